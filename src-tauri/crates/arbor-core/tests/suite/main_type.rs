//! A main agent of any type (`--agent`): the type's prompt, tools, model,
//! provider, permission mode and hooks apply to the top-level conversation,
//! its node says its type, and a type that does not exist is a clear error.

use super::subagents::*;
use super::*;
use arbor_core::definitions::PermissionMode;
use arbor_core::hooks::HookSet;
use arbor_protocol::{AgentStatus, HookOrigin};
use serde_json::json;

#[tokio::test]
async fn the_main_agent_runs_as_its_type_with_the_types_prompt_tools_model_provider_mode_and_hooks() {
    let scenario = json!({"rules": [{"match": {}, "turns": [
        {"tool_calls": [{"name": "Write", "input": {"file_path": "a.txt", "content": "A"}}]},
        {"text": "reviewed: {{last_tool_result}}"}
    ]}]});
    let h = Harness::new(scenario, Api::OpenAi).await;
    let mut config = h.config();
    config.providers.insert("second".into(), provider(Api::OpenAi, &h.server, fast_timeouts()));
    let mut reviewer = agent_type("reviewer", "You are REVIEWER-SYSTEM: review, never edit.");
    reviewer.tools =
        arbor_core::ToolFilter { allow: Some(vec!["Read".into(), "Write".into(), "Grep".into()]), deny: Vec::new() };
    reviewer.model = Some("gpt-review".into());
    reviewer.provider = Some("second".into());
    reviewer.permission_mode = PermissionMode::Plan;
    let log = h.dir.path().join("stop.log");
    let (hooks, _) = arbor_core::hooks::parse(
        &json!({"Stop": [{"hooks": [{"type": "command", "command": format!("cat >> '{}'", log.display())}]}]}),
        std::path::Path::new("/home/me/.claude/agents/reviewer.md"),
        HookOrigin::User,
    );
    reviewer.hooks = HookSet::new(hooks);
    config.agent_types = vec![reviewer, agent_type("helper", "HELPER")];
    config.main_agent.agent_type = Some("reviewer".into());
    let run = h.run_with(config, "review the code").await;

    let first = &run.requests[0];
    assert!(first.system_text.contains("REVIEWER-SYSTEM"), "the type's prompt: {}", first.system_text);
    assert_eq!(first.body["model"], "gpt-review");
    assert_eq!(
        tool_names(first),
        vec!["Grep".to_string(), "Read".to_string(), "Write".to_string()],
        "the type's tools"
    );
    let started = run
        .events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::AgentStarted(s) if s.parent_id.is_none() => Some(s.clone()),
            _ => None,
        })
        .expect("the main agent started");
    assert_eq!(
        (started.subagent_type.as_deref(), started.model.as_str(), started.provider.as_str(), started.depth),
        (Some("reviewer"), "gpt-review", "second", 0)
    );
    assert!(!h.path("a.txt").exists(), "permissionMode plan: no edits");
    assert!(run.outputs()[0].1, "the Write was refused");
    assert_eq!(run.finished().status, AgentStatus::Completed);
    assert!(
        std::fs::read_to_string(&log).unwrap_or_default().contains("\"hook_event_name\":\"Stop\""),
        "the type's hooks ran"
    );
}

#[test]
fn a_type_that_does_not_exist_is_a_clear_error() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let h = Harness::new(json!({"rules": []}), Api::Anthropic).await;
        let mut config = h.config();
        config.agent_types = vec![agent_type("helper", "H")];
        config.main_agent.agent_type = Some("reviewr".into());
        let err = Session::start(config).err().expect("refused");
        assert_eq!(err.to_string(), "no agent type \"reviewr\" to run the main agent as (the types here: helper)");
    });
}
