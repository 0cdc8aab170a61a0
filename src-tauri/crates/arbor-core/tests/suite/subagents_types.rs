//! Subagent types: another provider and model per type, a type's tool allow
//! list and permission mode, and Claude Code agent files loaded unchanged.

use super::subagents::*;
use super::*;
use arbor_core::definitions::{self, PermissionMode};
use arbor_core::{ApprovalPolicy, ToolFilter};
use arbor_protocol::{AgentStatus, EventKind};
use serde_json::json;

/// A parent that starts one child of `subagent_type` and repeats what came back.
fn one_typed_child(subagent_type: &str, child_turns: serde_json::Value) -> serde_json::Value {
    json!({"rules": [
        {"match": {"first_user_contains": "CHILD-TYPED"}, "turns": child_turns},
        {"match": {}, "turns": [
            {"tool_calls": [{"id": "typed", "name": "Task", "input": {
                "description": "Typed child", "prompt": "CHILD-TYPED: work", "subagent_type": subagent_type}}]},
            {"text": "{{last_tool_result}}"}
        ]}
    ]})
}

#[tokio::test]
async fn a_child_of_an_openai_type_runs_on_openai_under_an_anthropic_parent() {
    let h = Harness::new(one_typed_child("mini", json!([{"text": "mini says hi"}])), Api::Anthropic).await;
    let mut config = h.config();
    config.providers.insert("openai".into(), provider(Api::OpenAi, &h.server, fast_timeouts()));
    let mut mini = agent_type("mini", "You are MINI-SYSTEM, a cheap researcher.");
    mini.provider = Some("openai".into());
    mini.model = Some("gpt-4.1-mini".into());
    config.agent_types = vec![mini];
    let run = h.run_with(config, "PARENT: ask mini").await;
    assert_eq!(run.finished().result, "mini says hi");

    let kid = requests_of(&run.requests, "CHILD-TYPED");
    assert_eq!(kid.len(), 1);
    assert_eq!((kid[0].api, kid[0].path.as_str()), (Api::OpenAi, "/v1/chat/completions"));
    assert_eq!(kid[0].body["model"], "gpt-4.1-mini");
    assert!(kid[0].system_text.contains("MINI-SYSTEM"), "its type's system prompt");
    for p in requests_of(&run.requests, "PARENT") {
        assert_eq!(
            (p.api, p.path.as_str(), p.body["model"].as_str()),
            (Api::Anthropic, "/v1/messages", Some("claude-sonnet-4-5"))
        );
        assert!(!p.system_text.contains("MINI-SYSTEM"));
    }
    let (_, started) = child(&run.events, "Typed child");
    assert_eq!(
        (started.model.as_str(), started.provider.as_str(), started.subagent_type.as_deref()),
        ("gpt-4.1-mini", "openai", Some("mini")),
        "agent_started names the model actually used"
    );
    let summary = run.session.agents().into_iter().find(|a| a.depth == 1).expect("child");
    assert_eq!((summary.model.as_str(), summary.provider.as_str()), ("gpt-4.1-mini", "openai"));
}

#[tokio::test]
async fn a_types_tool_list_limits_what_its_child_is_offered() {
    let h = Harness::new(
        one_typed_child(
            "reader",
            json!([
                {"tool_calls": [{"id": "r_write", "name": "Write", "input": {"file_path": "x.txt", "content": "x"}}]},
                {"text": "reader done"}
            ]),
        ),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    let mut reader = agent_type("reader", "You only read.");
    reader.tools = ToolFilter { allow: Some(vec!["Read".into(), "Glob".into()]), deny: Vec::new() };
    config.agent_types = vec![reader];
    let run = h.run_with(config, "PARENT: ask reader").await;
    let kid = requests_of(&run.requests, "CHILD-TYPED");
    assert_eq!(tool_names(kid[0]), vec!["Glob", "Read"]);
    let (out, is_error, _) = output_of(&run.events, "r_write");
    assert!(is_error && out.contains("Unknown tool: Write"), "{out}");
    assert!(!h.path("x.txt").exists());
    assert_eq!(run.finished().result, "reader done");
}

#[tokio::test]
async fn a_plan_mode_type_has_its_writes_denied_without_asking() {
    let h = Harness::new(
        one_typed_child(
            "planner",
            json!([
                {"tool_calls": [{"id": "p_write", "name": "Write", "input": {"file_path": "plan.txt", "content": "x"}}]},
                {"text": "planned only"}
            ]),
        ),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let mut planner = agent_type("planner", "You plan.");
    planner.permission_mode = PermissionMode::Plan;
    config.agent_types = vec![planner];
    let run = h.run_with(config, "PARENT: ask planner").await;
    assert!(!run.types().contains(&"approval_request"), "refused, not asked");
    let (out, is_error, _) = output_of(&run.events, "p_write");
    assert!(is_error && out.contains("not allowed by the approval policy"), "{out}");
    assert!(!h.path("plan.txt").exists());
    assert_eq!(run.finished().status, AgentStatus::Completed);
    assert_eq!(run.finished().result, "planned only");
}

#[tokio::test]
async fn a_claude_code_agent_file_loads_unchanged_and_shapes_its_child() {
    let h = Harness::new(one_typed_child("code-reviewer", json!([{"text": "looks good"}])), Api::Anthropic).await;
    let dir = h.path(".claude/agents");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("code-reviewer.md"),
        "---\nname: code-reviewer\ndescription: Expert code review specialist. Use proactively after writing code.\n\
         tools: Read, Grep, Glob\nmodel: inherit\ncolor: green\n---\n\nYou are a senior code reviewer (REVIEWER-BODY).\n",
    )
    .expect("agent file");
    let catalog = definitions::load(&definitions::search_dirs(&h.root(), None));
    assert!(catalog.problems.iter().all(|p| !p.skipped), "{:?}", catalog.problems);
    let mut config = h.config();
    config.agent_types = catalog.definitions;
    let run = h.run_with(config, "PARENT: review").await;
    assert_eq!(run.finished().result, "looks good");
    let kid = requests_of(&run.requests, "CHILD-TYPED");
    assert!(kid[0].system_text.contains("REVIEWER-BODY"));
    assert_eq!(tool_names(kid[0]), vec!["Glob", "Grep", "Read"]);
    assert_eq!(kid[0].body["model"], "claude-sonnet-4-5", "model: inherit");
    let parent = requests_of(&run.requests, "PARENT")[0];
    let task =
        parent.body["tools"].as_array().expect("tools").iter().find(|t| t["name"] == "Task").cloned().expect("Task");
    assert!(
        task["description"].as_str().is_some_and(|d| d.contains("code-reviewer: Expert code review specialist")),
        "the parent's model is told about the type"
    );
    assert!(
        run.events.iter().any(
            |e| matches!(&e.kind, EventKind::AgentStarted(s) if s.subagent_type.as_deref() == Some("code-reviewer"))
        )
    );
}

#[tokio::test]
async fn a_task_calls_model_overrides_and_claude_code_aliases_resolve() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-"}, "turns": [{"text": "ok"}]},
            {"match": {}, "turns": [
                {"tool_calls": [
                    {"name": "Task", "input": {"description": "Alias", "prompt": "CHILD-ALIAS", "model": "haiku"}},
                    {"name": "Task", "input": {"description": "Named", "prompt": "CHILD-NAMED", "model": "claude-opus-4-1"}}
                ]},
                {"text": "done"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("PARENT: pick models").await;
    for (tag, description, model) in
        [("CHILD-ALIAS", "Alias", "claude-haiku-4-5"), ("CHILD-NAMED", "Named", "claude-opus-4-1")]
    {
        assert_eq!(requests_of(&run.requests, tag)[0].body["model"], model);
        assert_eq!(child(&run.events, description).1.model, model);
    }
}

#[tokio::test]
async fn only_the_users_own_agent_type_may_loosen_the_policy() {
    for (source, asks) in
        [(definitions::DefinitionSource::ClaudeProject, true), (definitions::DefinitionSource::User, false)]
    {
        let h = Harness::new(
            one_typed_child(
                "bypasser",
                json!([
                    {"tool_calls": [{"name": "Write", "input": {"file_path": "b.txt", "content": "B"}}]},
                    {"text": "{{last_tool_result}}"}
                ]),
            ),
            Api::Anthropic,
        )
        .await;
        let mut config = h.config();
        config.approval = ApprovalPolicy::default();
        let mut bypasser = agent_type("bypasser", "You bypass.");
        bypasser.permission_mode = PermissionMode::BypassPermissions;
        bypasser.source = Some(source);
        config.agent_types = vec![bypasser];
        let (session, mut events) = h.start(config, "PARENT: bypass");
        let first = collect_until(&mut events, WAIT, |e| {
            e.kind.type_name() == "approval_request"
                || (e.agent_id == *session.main_agent_id() && e.kind.type_name() == "agent_finished")
        })
        .await
        .expect("asked or finished");
        let last = first.last().expect("event");
        assert_eq!(last.kind.type_name() == "approval_request", asks, "{source:?}");
        if asks {
            // A workspace file cannot lift the user's policy: the child asks; deny it.
            let EventKind::ApprovalRequest(r) = &last.kind else { unreachable!() };
            assert_eq!(r.agent_path, vec!["main".to_string(), "Typed child".to_string()]);
            session
                .submit(arbor_protocol::Command::ResolveApproval(arbor_protocol::ApprovalAnswer::new(
                    r.request_id.clone(),
                    false,
                    arbor_protocol::ApprovalScope::Once,
                )))
                .expect("deny");
            until_finished(&mut events, session.main_agent_id()).await;
            assert!(!h.path("b.txt").exists());
        } else {
            assert_eq!(read(&h.path("b.txt")), "B", "the user's own type runs unasked");
        }
    }
}

/// A provider whose every request panics: a stand-in for a bug in an agent's task.
struct Panicking;

#[async_trait::async_trait]
impl arbor_core::provider::Provider for Panicking {
    fn name(&self) -> &str {
        "anthropic"
    }

    async fn stream(
        &self,
        _req: arbor_core::provider::ModelRequest<'_>,
    ) -> Result<arbor_core::provider::ResponseStream, arbor_core::provider::ProviderError> {
        panic!("PANIC-IN-CHILD")
    }
}

#[tokio::test]
async fn a_child_whose_task_panics_fails_and_its_parent_goes_on() {
    let h = Harness::new(one_typed_child("boom", json!([{"text": "never"}])), Api::Anthropic).await;
    let mut config = h.config();
    config.providers.insert("broken".into(), std::sync::Arc::new(Panicking));
    let mut boom = agent_type("boom", "You crash.");
    boom.provider = Some("broken".into());
    boom.model = Some("boom-model".into());
    config.agent_types = vec![boom];
    let run = h.run_with(config, "PARENT: ask boom").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let (out, is_error, _) = output_of(&run.events, "typed");
    assert!(is_error, "{out}");
    assert!(out.starts_with("Subagent error: internal error: the agent's task panicked: PANIC-IN-CHILD"), "{out}");
    let (id, _) = child(&run.events, "Typed child");
    assert_eq!(run.session.status(&id), Some(AgentStatus::Failed));
    assert_eq!(run.finished().result, out, "the parent went on and answered with it");
}
