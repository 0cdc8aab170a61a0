//! Claude Code's hooks through the real runtime: each event fires where Claude
//! Code fires it, with its stdin JSON; exit codes and JSON answers decide as
//! Claude Code's do; a workspace's hook never decides more loosely than the
//! person's policy; a hook that hangs is killed at its timeout.

use super::subagents::*;
use super::*;
use arbor_core::hooks::{self, HookSet};
use arbor_protocol::{
    AgentStatus, ApprovalAnswer, ApprovalScope, DecidedBy, HookDecision, HookEvent, HookOrigin, HookRan, StoppedBy,
};
use serde_json::{Value, json};

/// Hooks from a settings `hooks` object, as if from the person's own settings (or a workspace's).
pub(super) fn hook_set(hooks: Value, origin: HookOrigin) -> HookSet {
    let (loaded, problems) = hooks::parse(&hooks, std::path::Path::new("/home/me/.claude/settings.json"), origin);
    assert!(problems.is_empty(), "{problems:?}");
    HookSet::new(loaded)
}

/// A command hook entry.
pub(super) fn command(cmd: &str) -> Value {
    json!({"type": "command", "command": cmd})
}

/// A hook command that appends its stdin (one JSON line) to `log`, then runs `then`.
/// Hooks of agents running side by side run at once: the line is written under a
/// lock, or two lines' halves interleave (`cat` and `echo` are two writes).
pub(super) fn recording(log: &std::path::Path, then: &str) -> String {
    let log = log.display();
    format!("( flock 9; {{ cat; echo; }} >> '{log}' ) 9>> '{log}.lock'; {then}")
}

/// Every stdin the hooks of `log` were given, in order.
pub(super) fn received(log: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a hook's stdin is JSON"))
        .collect()
}

pub(super) fn hook_runs(events: &[arbor_protocol::AgentEvent]) -> Vec<HookRan> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::HookRan(h) => Some(h.clone()),
            _ => None,
        })
        .collect()
}

pub(super) fn bash_twice(first: &str, second: &str) -> Value {
    json!({"rules": [{"match": {}, "turns": [
        {"tool_calls": [{"id": "one", "name": "Bash", "input": {"command": first}}]},
        {"tool_calls": [{"id": "two", "name": "Bash", "input": {"command": second}}]},
        {"text": "done: {{last_tool_result}}"}
    ]}]})
}

pub(super) fn decided_by(events: &[arbor_protocol::AgentEvent], call: &str) -> Option<DecidedBy> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::ToolOutput(o) if o.call_id == call => Some(o.decided_by.clone()),
        _ => None,
    })?
}

#[tokio::test]
async fn a_pre_tool_use_hook_refuses_by_exit_2_and_gets_claude_codes_stdin() {
    let h = Harness::new(bash_twice("rm -rf keep", "echo fine"), Api::Anthropic).await;
    std::fs::create_dir(h.path("keep")).unwrap();
    let log = h.dir.path().join("pre.jsonl");
    let guard = recording(
        &log,
        &format!("tail -n1 '{}' | grep -q 'rm -rf' && {{ echo 'no rm -rf here' >&2; exit 2; }}; exit 0", log.display()),
    );
    let mut config = h.config();
    config.hooks =
        hook_set(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [command(&guard)]}]}), HookOrigin::Workspace);
    let run = h.run_with(config, "clean up").await;
    assert!(h.path("keep").exists(), "the refused command never ran");
    let outputs = run.outputs();
    assert!(
        outputs[0].1
            && outputs[0].0.contains("refused by a PreToolUse hook")
            && outputs[0].0.contains("no rm -rf here"),
        "{outputs:?}"
    );
    assert_eq!((outputs[1].0.trim(), outputs[1].1), ("fine", false));
    assert!(matches!(decided_by(&run.events, "one"), Some(DecidedBy::Hook { hook_event: HookEvent::PreToolUse, .. })));
    let runs = hook_runs(&run.events);
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (runs[0].exit_code, runs[0].decision, runs[0].call_id.as_deref()),
        (Some(2), HookDecision::Deny, Some("one"))
    );
    assert_eq!((runs[1].exit_code, runs[1].decision), (Some(0), HookDecision::Nothing));
    assert_eq!(runs[0].matcher.as_deref(), Some("Bash"));

    let stdin = received(&log);
    assert_eq!(stdin.len(), 2);
    let first = &stdin[0];
    for key in [
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "permission_mode",
        "tool_name",
        "tool_input",
        "tool_use_id",
    ] {
        assert!(first.get(key).is_some(), "{key} missing from {first}");
    }
    assert_eq!(first["hook_event_name"], "PreToolUse");
    assert_eq!(first["tool_name"], "Bash");
    assert_eq!(first["tool_input"]["command"], "rm -rf keep");
    assert_eq!(first["tool_use_id"], "one");
    assert_eq!(first["session_id"], run.session.id().as_str());
    assert_eq!(first["cwd"], h.root().display().to_string());
    assert_eq!(first["permission_mode"], "bypassPermissions");
    assert!(first.get("agent_id").is_none(), "the main agent's hooks get no agent_id");
    let transcript = std::fs::read_to_string(first["transcript_path"].as_str().unwrap()).expect("readable transcript");
    let rows: Vec<Value> = transcript.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows[0]["type"], "user");
    assert!(rows[0]["message"].to_string().contains("clean up"));
    assert_eq!(rows.last().unwrap()["type"], "assistant", "the transcript so far, the call's response last");
}

#[tokio::test]
async fn a_persons_own_hook_may_let_a_call_run_unasked_a_workspaces_may_not() {
    let allow = r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"safe"}}'"#;
    for origin in [HookOrigin::User, HookOrigin::Workspace] {
        let h = Harness::new(bash_twice("echo one", "echo two"), Api::OpenAi).await;
        let mut config = h.config();
        config.approval = ApprovalPolicy::default();
        config.hooks = hook_set(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [command(allow)]}]}), origin);
        let (session, mut events) = h.start(config, "go");
        let mut seen = Vec::new();
        loop {
            let ev = tokio::time::timeout(WAIT, events.recv()).await.expect("event").expect("open");
            if let EventKind::ApprovalRequest(r) = &ev.kind {
                session
                    .submit(Command::ResolveApproval(ApprovalAnswer::new(&r.request_id, true, ApprovalScope::Once)))
                    .unwrap();
            }
            let done = matches!(ev.kind, EventKind::AgentFinished(_)) && ev.agent_id == *session.main_agent_id();
            seen.push(ev);
            if done {
                break;
            }
        }
        let asked = seen.iter().filter(|e| e.kind.type_name() == "approval_request").count();
        let runs = hook_runs(&seen);
        match origin {
            HookOrigin::User => {
                assert_eq!(asked, 0, "the person's own hook answered");
                assert!(matches!(
                    decided_by(&seen, "one"),
                    Some(DecidedBy::Hook { hook_event: HookEvent::PreToolUse, .. })
                ));
                assert_eq!(runs[0].decision, HookDecision::Allow);
            }
            HookOrigin::Workspace => {
                assert_eq!(asked, 2, "a workspace's hook does not decide for the person");
                assert_eq!(decided_by(&seen, "one"), Some(DecidedBy::Person));
                assert_eq!(runs[0].decision, HookDecision::Ignored);
                assert!(runs[0].message.as_deref().unwrap_or_default().contains("may not let a call run unasked"));
            }
        }
    }
}

#[tokio::test]
async fn a_hook_may_ask_rewrite_the_input_and_a_permission_request_hook_may_refuse() {
    let h = Harness::new(bash_twice("echo original", "touch made"), Api::Anthropic).await;
    let rewrite = r#"read -r x; case "$x" in
        *original*) echo '{"hookSpecificOutput":{"permissionDecision":"ask","updatedInput":{"command":"echo rewritten"}}}';;
        *) echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}';;
    esac"#;
    let deny = r#"echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not today"}}}'"#;
    let log = h.dir.path().join("notify.jsonl");
    let mut config = h.config();
    config.hooks = hook_set(
        json!({
            "PreToolUse": [{"matcher": "Bash", "hooks": [command(rewrite)]}],
            "PermissionRequest": [{"matcher": "Bash", "hooks": [command(&format!("read -r x; case \"$x\" in *touch*) {deny};; esac"))]}],
            "Notification": [{"matcher": "permission_prompt", "hooks": [command(&recording(&log, "exit 0"))]}]
        }),
        HookOrigin::Workspace,
    );
    let (session, mut events) = h.start(config, "go");
    let request =
        match arbor_testkit::wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "approval_request").await {
            Ok(arbor_protocol::AgentEvent { kind: EventKind::ApprovalRequest(r), .. }) => r,
            other => panic!("{other:?}"),
        };
    assert_eq!(
        request.tool_args["command"], "echo rewritten",
        "asked although the policy allows all, about the rewritten call"
    );
    session
        .submit(Command::ResolveApproval(ApprovalAnswer::new(&request.request_id, true, ApprovalScope::Once)))
        .unwrap();
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    let run_outputs: Vec<_> = rest
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolOutput(o) => Some(o.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(run_outputs[0].content.trim(), "rewritten");
    assert!(run_outputs[1].is_error && run_outputs[1].content.contains("not today"), "{:?}", run_outputs[1]);
    assert!(!h.path("made").exists());
    assert!(matches!(
        run_outputs[1].decided_by,
        Some(DecidedBy::Hook { hook_event: HookEvent::PermissionRequest, .. })
    ));
    // The Notification hook heard of the question a person was asked.
    let notes = received(&log);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["notification_type"], "permission_prompt");
    assert_eq!(notes[0]["hook_event_name"], "Notification");
    assert!(notes[0]["message"].as_str().unwrap().contains("Bash"));
}

#[tokio::test]
async fn post_tool_use_feedback_reaches_the_model_and_a_failure_has_its_own_event() {
    let h = Harness::new(bash_twice("echo formatted", "exit 3"), Api::OpenAi).await;
    let log = h.dir.path().join("post.jsonl");
    let block = r#"echo '{"decision":"block","reason":"lint: line too long","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"style guide: 80 columns"}}'"#;
    let mut config = h.config();
    config.hooks = hook_set(
        json!({
            "PostToolUse": [{"matcher": "Bash", "hooks": [command(&recording(&log, block))]}],
            "PostToolUseFailure": [{"hooks": [command(&recording(&log, "exit 0"))]}]
        }),
        HookOrigin::Workspace,
    );
    let run = h.run_with(config, "go").await;
    let outputs = run.outputs();
    assert!(
        outputs[0].0.contains("formatted") && outputs[0].0.contains("[PostToolUse hook feedback]\nlint: line too long")
    );
    assert!(outputs[0].0.contains("style guide: 80 columns"));
    let second = run.requests.iter().find(|r| r.turn == 1).expect("the second request");
    assert!(second.body.to_string().contains("lint: line too long"), "the model read the feedback");
    let stdin = received(&log);
    assert_eq!(stdin.len(), 2);
    assert_eq!(stdin[0]["hook_event_name"], "PostToolUse");
    assert!(stdin[0]["tool_response"].is_object());
    assert_eq!(stdin[1]["hook_event_name"], "PostToolUseFailure");
    assert!(stdin[1]["error"].as_str().is_some_and(|e| !e.is_empty()));
}

#[tokio::test]
async fn a_stop_hook_keeps_the_agent_going_once_and_one_that_always_blocks_is_cut_off() {
    let scenario = json!({"rules": [{"match": {}, "turns": [
        {"text": "first answer"}, {"text": "second answer"}, {"text": "a"}, {"text": "b"}, {"text": "c"},
        {"text": "d"}, {"text": "e"}, {"text": "f"}, {"text": "g"}
    ]}]});
    // Blocks unless it already did (Claude Code's stop_hook_active).
    let h = Harness::new(scenario.clone(), Api::Anthropic).await;
    let log = h.dir.path().join("stop.jsonl");
    let once = recording(
        &log,
        r#"tail -n1 "$LOG" | grep -q '"stop_hook_active":true' || { echo 'run the tests first' >&2; exit 2; }"#,
    );
    let mut config = h.config();
    config.hooks = hook_set(
        json!({"Stop": [{"hooks": [command(&format!("LOG='{}'; {once}", log.display()))]}]}),
        HookOrigin::Workspace,
    );
    let run = h.run_with(config, "go").await;
    assert_eq!(run.finished().result, "second answer");
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let second = run.requests.iter().find(|r| r.turn == 1).expect("asked again");
    assert!(second.body.to_string().contains("run the tests first"));
    let stdin = received(&log);
    assert_eq!(
        (stdin[0]["stop_hook_active"].as_bool(), stdin[1]["stop_hook_active"].as_bool()),
        (Some(false), Some(true))
    );
    assert_eq!(stdin[0]["last_assistant_message"], "first answer");

    let h = Harness::new(scenario, Api::Anthropic).await;
    let mut config = h.config();
    config.hooks = hook_set(json!({"Stop": [{"hooks": [command("echo never >&2; exit 2")]}]}), HookOrigin::User);
    let run = h.run_with(config, "go").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let runs = hook_runs(&run.events);
    assert_eq!(runs.len(), 6, "five blocks, then one not applied");
    assert_eq!(runs.last().unwrap().decision, HookDecision::Ignored);
    assert!(runs.last().unwrap().message.as_deref().unwrap().contains("5 times in a row"));
}

#[tokio::test]
async fn user_prompt_submit_adds_context_or_blocks_the_prompt() {
    let scenario = json!({"rules": [{"match": {}, "turns": [{"text": "ok"}]}]});
    let h = Harness::new(scenario.clone(), Api::OpenAi).await;
    let log = h.dir.path().join("prompt.jsonl");
    let mut config = h.config();
    config.hooks = hook_set(
        json!({
            "UserPromptSubmit": [{"hooks": [command(&recording(&log, "echo 'Sprint ends Friday.'"))]}],
            "SessionStart": [{"matcher": "startup", "hooks": [command(r#"echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"Branch: main"}}'"#)]}]
        }),
        HookOrigin::User,
    );
    let run = h.run_with(config, "what is due?").await;
    let body = run.requests[0].body.to_string();
    assert!(body.contains("Sprint ends Friday.") && body.contains("Branch: main"), "{body}");
    let said: Vec<String> = run
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::UserMessage(m) => Some(m.content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(said, ["what is due?"], "the person's message is theirs alone");
    assert_eq!(received(&log)[0]["prompt"], "what is due?");

    let h = Harness::new(scenario, Api::OpenAi).await;
    let mut config = h.config();
    config.hooks = hook_set(
        json!({"UserPromptSubmit": [{"hooks": [command("echo 'no secrets in prompts' >&2; exit 2")]}]}),
        HookOrigin::User,
    );
    let (session, mut events) = h.start(config, "my password is hunter2");
    let blocked =
        arbor_testkit::wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "hook_ran").await.expect("hook_ran");
    let EventKind::HookRan(ran) = blocked.kind else { unreachable!() };
    assert_eq!((ran.decision, ran.message.as_deref()), (HookDecision::Block, Some("no secrets in prompts")));
    // Its run never comes: the main agent ends, stopped by the hook, and nothing is at work.
    let end = arbor_testkit::wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "agent_finished")
        .await
        .expect("ended");
    let EventKind::AgentFinished(f) = end.kind else { unreachable!() };
    assert_eq!((f.status, f.stopped_by), (AgentStatus::Cancelled, Some(StoppedBy::Hook)));
    assert!(f.error.as_deref().unwrap_or_default().contains("no secrets in prompts"));
    assert!(session.is_idle());
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(h.requests().is_empty(), "the blocked prompt never reached the model");
}

#[tokio::test]
async fn subagent_hooks_match_the_agent_type_and_get_its_id() {
    let scenario = json!({"rules": [
        {"match": {"first_user_contains": "CHILD-"}, "turns": [{"text": "child done"}]},
        {"match": {}, "turns": [
            {"tool_calls": [
                {"id": "r", "name": "Task", "input": {"description": "Review", "prompt": "CHILD-R", "subagent_type": "reviewer"}},
                {"id": "g", "name": "Task", "input": {"description": "General", "prompt": "CHILD-G"}}
            ]},
            {"text": "all done"}
        ]}
    ]});
    let h = Harness::new(scenario, Api::Anthropic).await;
    let log = h.dir.path().join("sub.jsonl");
    let context = r#"echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"REVIEW-RULES: be strict"}}'"#;
    let mut config = h.config();
    config.agent_types = vec![agent_type("reviewer", "You review.")];
    config.hooks = hook_set(
        json!({
            "SubagentStart": [{"matcher": "reviewer", "hooks": [command(&recording(&log, context))]}],
            "SubagentStop": [{"hooks": [command(&recording(&log, "exit 0"))]}]
        }),
        HookOrigin::User,
    );
    let run = h.run_with(config, "delegate").await;
    assert_eq!(run.finished().result, "all done");
    let (reviewer, _) = child(&run.events, "Review");
    let (general, _) = child(&run.events, "General");
    let stdin = received(&log);
    let of = |event: &str| stdin.iter().filter(|s| s["hook_event_name"] == event).cloned().collect::<Vec<_>>();
    let starts = of("SubagentStart");
    assert_eq!(starts.len(), 1, "the matcher is on the agent type");
    assert_eq!(
        (starts[0]["agent_id"].as_str(), starts[0]["agent_type"].as_str()),
        (Some(reviewer.as_str()), Some("reviewer"))
    );
    let mut stops: Vec<(String, String)> = of("SubagentStop")
        .iter()
        .map(|s| (s["agent_id"].as_str().unwrap().into(), s["agent_type"].as_str().unwrap().into()))
        .collect();
    stops.sort();
    let mut expected =
        vec![(reviewer.to_string(), "reviewer".to_string()), (general.to_string(), "general-purpose".to_string())];
    expected.sort();
    assert_eq!(stops, expected);
    for s in of("SubagentStop") {
        assert!(std::fs::metadata(s["agent_transcript_path"].as_str().unwrap()).is_ok());
        assert_eq!(s["last_assistant_message"], "child done");
    }
    let kid = requests_of(&run.requests, "CHILD-R");
    assert!(kid[0].body.to_string().contains("REVIEW-RULES: be strict"), "SubagentStart's context went with the task");
    assert!(!requests_of(&run.requests, "CHILD-G")[0].body.to_string().contains("REVIEW-RULES"));
    let ran_on: Vec<_> = run
        .events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::HookRan(h) if h.hook_event == HookEvent::SubagentStart))
        .map(|e| e.agent_id.clone())
        .collect();
    assert_eq!(ran_on, [reviewer], "the event is the child's");
}

#[tokio::test]
async fn a_hook_that_hangs_is_killed_at_its_timeout_and_the_call_goes_on() {
    let h = Harness::new(bash_twice("echo a", "echo b"), Api::Anthropic).await;
    let mut config = h.config();
    config.hooks = hook_set(
        json!({"PreToolUse": [{"hooks": [{"type": "command", "command": "sleep 30", "timeout": 0.5}]}]}),
        HookOrigin::User,
    );
    let started = std::time::Instant::now();
    let run = h.run_with(config, "go").await;
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(run.outputs().iter().map(|(o, _)| o.trim().to_string()).collect::<Vec<_>>(), ["a", "b"]);
    let runs = hook_runs(&run.events);
    assert!(runs.iter().all(|r| r.decision == HookDecision::TimedOut && r.exit_code.is_none()), "{runs:?}");
    assert!(runs[0].message.as_deref().unwrap().contains("timeout"));
}

#[tokio::test]
async fn continue_false_stops_the_agent_and_says_why() {
    let h = Harness::new(bash_twice("echo a", "echo b"), Api::OpenAi).await;
    let mut config = h.config();
    config.hooks = hook_set(
        json!({"PostToolUse": [{"hooks": [command(r#"echo '{"continue":false,"stopReason":"budget review needed"}'"#)]}]}),
        HookOrigin::Workspace,
    );
    let run = h.run_with(config, "go").await;
    let finished = run.finished();
    assert_eq!((finished.status, finished.stopped_by), (AgentStatus::Cancelled, Some(StoppedBy::Hook)));
    let runs = hook_runs(&run.events);
    assert_eq!((runs[0].decision, runs[0].message.as_deref()), (HookDecision::Stop, Some("budget review needed")));
    assert_eq!(run.requests.len(), 1, "no turn after the stop");
}
