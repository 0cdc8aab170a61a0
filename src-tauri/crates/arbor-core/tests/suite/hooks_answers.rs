//! More of Claude Code's hook answers through the real runtime: JSON refusals and
//! context, failures shown and not blocking, PermissionRequest and SubagentStop
//! and UserPromptSubmit answers, prompts kept in order, the hooks' environment,
//! and a person's standing rule answering before any hook is asked.

use super::hooks::{bash_twice, command, decided_by, hook_runs, hook_set};
use super::subagents::*;
use super::*;
use arbor_protocol::{ApprovalAnswer, ApprovalScope, DecidedBy, HookDecision, HookEvent, HookOrigin};
use serde_json::json;

#[tokio::test]
async fn the_rest_of_claude_codes_answers_mean_what_they_mean_there() {
    // PreToolUse: a JSON deny with its reason, and additionalContext the model reads; a hook
    // that fails (exit 1) is shown and decides nothing; systemMessage is shown to the person.
    let h = Harness::new(bash_twice("echo first", "echo second"), Api::Anthropic).await;
    let pre = r#"read -r x; case "$x" in
        *first*) echo '{"systemMessage":"checked by the guard","hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"LINT-NOTE: prefer printf"}}';;
        *second*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"second is not allowed"}}';;
    esac"#;
    let mut config = h.config();
    config.hooks = hook_set(
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [command(pre), command("echo broken >&2; exit 1")]}]}),
        HookOrigin::Workspace,
    );
    let run = h.run_with(config, "go").await;
    let outputs = run.outputs();
    assert!(!outputs[0].1 && outputs[0].0.contains("LINT-NOTE: prefer printf"), "{outputs:?}");
    assert!(outputs[1].1 && outputs[1].0.contains("second is not allowed"), "{outputs:?}");
    assert!(run.requests[1].body.to_string().contains("LINT-NOTE"), "the model read the context");
    let runs = hook_runs(&run.events);
    let failed: Vec<_> = runs.iter().filter(|r| r.decision == HookDecision::Failed).collect();
    assert_eq!(failed.len(), 2, "the broken hook, once per call");
    assert_eq!(failed[0].message.as_deref(), Some("exit code 1: broken"));
    assert!(runs.iter().any(|r| r.message.as_deref() == Some("checked by the guard")));

    // PermissionRequest from the person's own settings: its allow answers for them.
    let h = Harness::new(bash_twice("echo a", "echo b"), Api::OpenAi).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let allow =
        r#"echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'"#;
    config.hooks =
        hook_set(json!({"PermissionRequest": [{"matcher": "Bash", "hooks": [command(allow)]}]}), HookOrigin::User);
    let run = h.run_with(config, "go").await;
    assert!(!run.types().contains(&"approval_request"));
    assert!(matches!(
        decided_by(&run.events, "one"),
        Some(DecidedBy::Hook { hook_event: HookEvent::PermissionRequest, .. })
    ));

    // SubagentStop's JSON block keeps the subagent going once; UserPromptSubmit's JSON block
    // keeps the prompt from the model.
    let scenario = json!({"rules": [
        {"match": {"first_user_contains": "CHILD-"}, "turns": [{"text": "child draft"}, {"text": "child final"}]},
        {"match": {}, "turns": [
            {"tool_calls": [{"id": "t", "name": "Task", "input": {"description": "Draft", "prompt": "CHILD-D"}}]},
            {"text": "{{last_tool_result}}"}
        ]}
    ]});
    let h = Harness::new(scenario, Api::Anthropic).await;
    let mut config = h.config();
    let block = r#"read -r x; case "$x" in *'"stop_hook_active":false'*) echo '{"decision":"block","reason":"add tests first"}';; esac"#;
    config.hooks = hook_set(json!({"SubagentStop": [{"hooks": [command(block)]}]}), HookOrigin::User);
    let run = h.run_with(config, "delegate").await;
    assert!(run.finished().result.contains("child final"), "{}", run.finished().result);
    assert!(requests_of(&run.requests, "CHILD-D").iter().any(|r| r.body.to_string().contains("add tests first")));

    let h = Harness::new(json!({"rules": [{"match": {}, "turns": [{"text": "ok"}]}]}), Api::OpenAi).await;
    let mut config = h.config();
    let block = r#"echo '{"decision":"block","reason":"that prompt names a customer"}'"#;
    config.hooks = hook_set(json!({"UserPromptSubmit": [{"hooks": [command(block)]}]}), HookOrigin::User);
    let (_session, mut events) = h.start(config, "about ACME Corp");
    let ran =
        arbor_testkit::wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "hook_ran").await.expect("hook_ran");
    let EventKind::HookRan(ran) = ran.kind else { unreachable!() };
    assert_eq!((ran.decision, ran.message.as_deref()), (HookDecision::Block, Some("that prompt names a customer")));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(h.requests().is_empty());
}

#[tokio::test]
async fn prompts_through_hooks_reach_the_agent_in_the_order_sent() {
    let h =
        Harness::new(json!({"rules": [{"match": {}, "repeat_last": true, "turns": [{"text": "ok"}]}]}), Api::Anthropic)
            .await;
    let mut config = h.config();
    // The first prompt's hook is slow: the second must still come after it.
    let slow_first = r#"read -r x; case "$x" in *FIRST*) sleep 0.4;; esac"#;
    config.hooks = hook_set(json!({"UserPromptSubmit": [{"hooks": [command(slow_first)]}]}), HookOrigin::User);
    let (session, mut events) = h.start(config, "FIRST prompt");
    session.submit(Command::SendMessage { agent_id: None, text: "SECOND prompt".into() }).unwrap();
    let mut said = Vec::new();
    while said.len() < 2 {
        let ev = tokio::time::timeout(WAIT, events.recv()).await.expect("event").expect("open");
        if let EventKind::UserMessage(m) = ev.kind {
            said.push(m.content);
        }
    }
    assert_eq!(said, ["FIRST prompt", "SECOND prompt"]);
}

#[tokio::test]
async fn hooks_get_claude_codes_and_arbors_variables_and_only_the_environment_given() {
    let h = Harness::new(bash_twice("echo a", "echo b"), Api::Anthropic).await;
    let out = h.dir.path().join("env.txt");
    let mut config = h.config();
    config.hook_env = vec![("PATH".into(), "/usr/bin:/bin".into()), ("TEAM".into(), "infra".into())];
    let cmd = format!(
        "printf '%s|%s|%s|%s|%s|%s\\n' \"$CLAUDE_PROJECT_DIR\" \"$ARBOR_SESSION_ID\" \"$ARBOR_AGENT_ID\" \"$ARBOR_HOOK_EVENT\" \"$TEAM\" \"${{HOME:-none}}\" >> '{}'",
        out.display()
    );
    config.hooks = hook_set(json!({"Stop": [{"hooks": [command(&cmd)]}]}), HookOrigin::User);
    let run = h.run_with(config, "go").await;
    let line = std::fs::read_to_string(&out).unwrap();
    let expected = format!(
        "{}|{}|{}|Stop|infra|none\n",
        h.root().display(),
        run.session.id().as_str(),
        run.session.main_agent_id().as_str()
    );
    assert_eq!(line, expected, "exactly the environment given, and the hook's own variables");
}

#[tokio::test]
async fn a_persons_standing_rule_answers_before_any_permission_request_hook() {
    let h = Harness::new(bash_twice("echo one", "echo two"), Api::Anthropic).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let deny_two = r#"read -r x; case "$x" in *two*) echo '{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no"}}}';; esac"#;
    config.hooks = hook_set(json!({"PermissionRequest": [{"hooks": [command(deny_two)]}]}), HookOrigin::User);
    let (session, mut events) = h.start(config, "go");
    let asked = arbor_testkit::wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "approval_request").await;
    let Ok(arbor_protocol::AgentEvent { kind: EventKind::ApprovalRequest(r), .. }) = asked else { panic!("asked") };
    // The person lets Bash run for this agent from now on.
    session.submit(Command::ResolveApproval(ApprovalAnswer::new(&r.request_id, true, ApprovalScope::Agent))).unwrap();
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    let second = rest.iter().find_map(|e| match &e.kind {
        EventKind::ToolOutput(o) if o.call_id == "two" => Some(o.clone()),
        _ => None,
    });
    let second = second.expect("the second call's output");
    assert!(!second.is_error && second.content.trim() == "two", "{second:?}");
    assert!(matches!(second.decided_by, Some(DecidedBy::Rule { .. })), "{:?}", second.decided_by);
    assert!(
        !hook_runs(&rest).iter().any(|r| r.call_id.as_deref() == Some("two")),
        "nobody was asked, so no PermissionRequest hook ran"
    );
}
