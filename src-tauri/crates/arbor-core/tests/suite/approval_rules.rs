//! Approvals a person can trust, without the UI: a scoped answer is a rule that
//! answers the pending requests it covers and decides later calls (each marked
//! with what decided it) until revoked; a denial's reason reaches the model;
//! previews show the file as it is on disk and say when it changes; a spawn
//! card's edits are what the child gets.

use super::subagents::*;
use super::*;
use arbor_core::{ApprovalPolicy, Decision};
use arbor_protocol::{
    AgentEvent, ApprovalAnswer, ApprovalPreview, ApprovalRequest, ApprovalResolved, ApprovalScope, Command, DecidedBy,
    EventKind, SpawnEdit, ToolOutput,
};
use arbor_testkit::contract::violations;
use serde_json::json;

/// Events until `pred` holds (it included), appended to `log`; the last one.
async fn until(events: &mut EventStream, log: &mut Vec<AgentEvent>, pred: impl Fn(&AgentEvent) -> bool) -> AgentEvent {
    let got = match collect_until(events, WAIT, pred).await {
        Ok(got) => got,
        Err(e) => {
            let seen: Vec<String> = log.iter().map(|e| format!("{}:{}", e.agent_id, e.kind.type_name())).collect();
            panic!("the event in time: {e:?}; before it: {seen:?}")
        }
    };
    log.extend(got.iter().cloned());
    got.last().cloned().expect("an event")
}

async fn next_request(events: &mut EventStream, log: &mut Vec<AgentEvent>) -> (AgentId, ApprovalRequest) {
    let ev = until(events, log, |e| matches!(e.kind, EventKind::ApprovalRequest(_))).await;
    let EventKind::ApprovalRequest(r) = ev.kind else { unreachable!() };
    (ev.agent_id, r)
}

fn send(session: &Session, answer: ApprovalAnswer) {
    session.submit(Command::ResolveApproval(answer)).expect("answer");
}

fn resolved<'a>(log: &'a [AgentEvent], request_id: &str) -> &'a ApprovalResolved {
    log.iter()
        .find_map(|e| match &e.kind {
            EventKind::ApprovalResolved(r) if r.request_id == request_id => Some(r),
            _ => None,
        })
        .expect("resolved")
}

fn output<'a>(log: &'a [AgentEvent], call_id: &str) -> &'a ToolOutput {
    log.iter()
        .find_map(|e| match &e.kind {
            EventKind::ToolOutput(o) if o.call_id == call_id => Some(o),
            _ => None,
        })
        .expect("output")
}

fn write(id: &str, file: &str, content: &str) -> serde_json::Value {
    json!({"id": id, "name": "Write", "input": {"file_path": file, "content": content}})
}

fn no_violations(log: &[AgentEvent]) {
    let v = violations(log, true);
    assert!(v.is_empty(), "contract violations: {v:?}");
}

#[tokio::test]
async fn a_session_rule_answers_the_pending_sibling_and_later_calls_until_it_is_revoked() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-A"}, "turns": [
                {"tool_calls": [write("a1", "a1.txt", "A1")]},
                {"tool_calls": [write("a2", "a2.txt", "A2")]},
                {"tool_calls": [{"id": "a3", "name": "Bash", "input": {"command": "true", "description": "Checks nothing"}}]},
                {"tool_calls": [write("a4", "a4.txt", "A4")]},
                {"text": "A done"}
            ]},
            {"match": {"first_user_contains": "CHILD-B"}, "turns": [
                {"tool_calls": [write("b1", "b1.txt", "B1")]},
                {"text": "B done"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [task("t_a", "Writer A", "CHILD-A: write"), task("t_b", "Writer B", "CHILD-B: write")]},
                {"text": "both done"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "PARENT: two writers");
    let mut log = Vec::new();
    let mut asked = vec![next_request(&mut events, &mut log).await, next_request(&mut events, &mut log).await];
    asked.sort_by_key(|(_, r)| r.call_id.clone());
    let [(a, req_a1), (_, req_b1)] = <[_; 2]>::try_from(asked).expect("two requests");
    assert_eq!((req_a1.call_id.as_str(), req_b1.call_id.as_str()), ("a1", "b1"));

    // "Write anywhere in this session", answered on A's request.
    send(&session, ApprovalAnswer::new(&req_a1.request_id, true, ApprovalScope::Session));
    // A's Bash asks (a different tool); by then B's pending Write was answered by the rule.
    let (_, bash) = next_request(&mut events, &mut log).await;
    assert_eq!(bash.tool_name, "Bash");
    let set = resolved(&log, &req_a1.request_id).clone();
    assert_eq!(set.decided_by, Some(DecidedBy::Person));
    let rule = set.rule.clone().expect("the answer set a rule");
    assert_eq!(
        (rule.tool.as_str(), rule.scope, &rule.agent_id, rule.approved),
        ("Write", ApprovalScope::Session, &a, true)
    );
    let b_resolved =
        |e: &AgentEvent| matches!(&e.kind, EventKind::ApprovalResolved(r) if r.request_id == req_b1.request_id);
    if !log.iter().any(b_resolved) {
        until(&mut events, &mut log, b_resolved).await;
    }
    let sibling = resolved(&log, &req_b1.request_id);
    assert_eq!(sibling.decided_by, Some(DecidedBy::Rule { rule: rule.clone() }), "answered by the rule, and says so");
    assert!(sibling.outcome.is_approved() && sibling.rule.is_none());
    let a2 = output(&log, "a2");
    assert_eq!(
        a2.decided_by,
        Some(DecidedBy::Rule { rule: rule.clone() }),
        "A's second Write ran on the rule, unasked"
    );
    assert!(!log.iter().any(|e| matches!(&e.kind, EventKind::ApprovalRequest(r) if r.call_id == "a2")));

    // Revoked while the Bash waits: A's next Write asks again.
    session.submit(Command::RevokeRule { rule_id: rule.rule_id.clone() }).expect("revoke");
    assert!(session.submit(Command::RevokeRule { rule_id: rule.rule_id.clone() }).is_err(), "gone already");
    send(&session, ApprovalAnswer::new(&bash.request_id, true, ApprovalScope::Once));
    let (_, again) = next_request(&mut events, &mut log).await;
    assert_eq!((again.tool_name.as_str(), again.call_id.as_str()), ("Write", "a4"));
    assert!(log.iter().any(|e| matches!(&e.kind, EventKind::RuleRevoked(r) if r.rule_id == rule.rule_id)));
    send(&session, ApprovalAnswer::new(&again.request_id, true, ApprovalScope::Once));
    log.extend(until_finished(&mut events, session.main_agent_id()).await);
    assert_eq!(output(&log, "a4").decided_by, Some(DecidedBy::Person));
    assert_eq!(output(&log, "a3").decided_by, Some(DecidedBy::Person));
    for f in ["a1.txt", "a2.txt", "a4.txt", "b1.txt"] {
        assert!(h.path(f).exists(), "{f} written");
    }
    no_violations(&log);
}

#[tokio::test]
async fn a_denials_reason_reaches_the_model_and_a_denying_rule_refuses_later_calls_marked() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [write("w1", "notes.txt", "x")]},
            {"tool_calls": [write("w2", "other.txt", "y")]},
            {"text": "{{last_tool_result}}"}
        ]}]}),
        Api::OpenAi,
    )
    .await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "write notes");
    let mut log = Vec::new();
    let (_, req) = next_request(&mut events, &mut log).await;
    let mut answer = ApprovalAnswer::new(&req.request_id, false, ApprovalScope::Agent);
    answer.reason = Some("put notes in NOTES.md, not notes.txt".into());
    send(&session, answer);
    log.extend(until_finished(&mut events, session.main_agent_id()).await);
    let requests = h.requests();
    let second = &requests[1];
    let (_, result) = tool_results(second).into_iter().next().expect("the denial");
    assert!(result.contains("put notes in NOTES.md, not notes.txt"), "the model read the reason: {result}");
    assert_eq!(resolved(&log, &req.request_id).reason.as_deref(), Some("put notes in NOTES.md, not notes.txt"));
    // The denial was scoped: the second Write is refused by the rule, unasked, and marked.
    let w2 = output(&log, "w2");
    assert!(w2.is_error && w2.content.contains("standing rule"), "{}", w2.content);
    assert!(matches!(&w2.decided_by, Some(DecidedBy::Rule { rule }) if !rule.approved));
    assert_eq!(log.iter().filter(|e| matches!(e.kind, EventKind::ApprovalRequest(_))).count(), 1);
    assert!(!h.path("notes.txt").exists() && !h.path("other.txt").exists());
    no_violations(&log);
}

#[tokio::test]
async fn previews_show_the_file_on_disk_and_a_change_while_waiting_is_told() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [write("w1", "a.txt", "new line\n")]},
            {"tool_calls": [{"id": "e1", "name": "Edit", "input": {"file_path": "a.txt", "old_string": "new", "new_string": "newer"}}]},
            {"tool_calls": [{"id": "b1", "name": "Bash", "input": {"command": "ls -la", "description": "Lists files"}}]},
            {"text": "done"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    std::fs::write(h.path("a.txt"), "old one\nold two\n").expect("seed");
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "overwrite");
    let mut log = Vec::new();
    let (_, w) = next_request(&mut events, &mut log).await;
    assert_eq!(
        w.preview,
        Some(ApprovalPreview::File {
            path: "a.txt".into(),
            before: Some("old one\nold two\n".into()),
            after: Some("new line\n".into()),
            note: None
        }),
        "an overwrite shows what will be lost"
    );
    // Changed on disk while the person looks: the card is told, once.
    std::fs::write(h.path("a.txt"), "changed meanwhile\n").expect("change");
    let stale = until(&mut events, &mut log, |e| matches!(e.kind, EventKind::ApprovalStale(_))).await;
    let EventKind::ApprovalStale(s) = stale.kind else { unreachable!() };
    assert_eq!(s.request_id, w.request_id);
    assert!(s.message.contains("changed on disk"), "{}", s.message);
    send(&session, ApprovalAnswer::new(&w.request_id, true, ApprovalScope::Once));

    let (_, e) = next_request(&mut events, &mut log).await;
    assert_eq!(
        e.preview,
        Some(ApprovalPreview::File {
            path: "a.txt".into(),
            before: Some("new line\n".into()),
            after: Some("newer line\n".into()),
            note: None
        }),
        "an edit in context"
    );
    send(&session, ApprovalAnswer::new(&e.request_id, true, ApprovalScope::Once));
    let (_, b) = next_request(&mut events, &mut log).await;
    assert_eq!(
        b.preview,
        Some(ApprovalPreview::Command {
            command: "ls -la".into(),
            cwd: h.root().canonicalize().expect("root").display().to_string(),
            description: Some("Lists files".into()),
            sandbox: Some(arbor_protocol::CommandSandbox::Unavailable {
                reason: "no sandbox was set up for this session".into()
            }),
        })
    );
    send(&session, ApprovalAnswer::new(&b.request_id, true, ApprovalScope::Once));
    log.extend(until_finished(&mut events, session.main_agent_id()).await);
    assert_eq!(log.iter().filter(|e| matches!(e.kind, EventKind::ApprovalStale(_))).count(), 1);
    assert_eq!(read(&h.path("a.txt")), "newer line\n");
    no_violations(&log);
}

#[tokio::test]
async fn a_spawn_card_shows_the_child_and_its_edits_are_what_the_child_gets() {
    let scenario = json!({"rules": [
        {"match": {"first_user_contains": "CHILD"}, "turns": [{"text": "child ran"}]},
        {"match": {}, "turns": [
            {"tool_calls": [task("t1", "Survey", "CHILD: survey everything")]},
            {"text": "{{last_tool_result}}"}
        ]}
    ]});
    let h = Harness::new(scenario.clone(), Api::Anthropic).await;
    let mut config = h.config();
    config.approval.ask_before_spawning();
    let (session, mut events) = h.start(config, "PARENT: spawn");
    let mut log = Vec::new();
    let (_, req) = next_request(&mut events, &mut log).await;
    let Some(ApprovalPreview::Spawn(plan)) = &req.preview else { panic!("a spawn card: {:?}", req.preview) };
    assert_eq!((plan.subagent_type.as_str(), plan.description.as_str()), ("general-purpose", "Survey"));
    assert_eq!(plan.prompt, "CHILD: survey everything");
    assert!(plan.tools.contains(&"Read".to_string()) && plan.tools.contains(&"Bash".to_string()), "{:?}", plan.tools);
    let edit = SpawnEdit {
        prompt: Some("CHILD: survey only src/".into()),
        model: Some("claude-haiku-4-5".into()),
        tools: Some(vec!["Read".into(), "Grep".into(), "NotATool".into()]),
        max_turns: Some(2),
    };
    let mut answer = ApprovalAnswer::new(&req.request_id, true, ApprovalScope::Once);
    answer.edit = Some(edit.clone());
    send(&session, answer);
    log.extend(until_finished(&mut events, session.main_agent_id()).await);
    let requests = h.requests();
    let child = requests_of(&requests, "CHILD").pop().expect("the child's request");
    assert_eq!(child.first_user_text, "CHILD: survey only src/", "the edited prompt");
    assert_eq!(child.body["model"], "claude-haiku-4-5", "the edited model");
    assert_eq!(tool_names(child), vec!["Grep".to_string(), "Read".to_string()], "only the kept tools, none added");
    assert_eq!(resolved(&log, &req.request_id).edit.as_ref(), Some(&edit), "the edit is recorded");
    let started = children(&log);
    assert_eq!(started[0].1.model, "claude-haiku-4-5");
    no_violations(&log);

    // Denied with a reason: the parent's model reads it as the Task result, and no child exists.
    let h = Harness::new(scenario, Api::Anthropic).await;
    let mut config = h.config();
    config.approval.per_tool.insert("Task".into(), Decision::Ask);
    let (session, mut events) = h.start(config, "PARENT: spawn");
    let mut log = Vec::new();
    let (_, req) = next_request(&mut events, &mut log).await;
    let mut answer = ApprovalAnswer::new(&req.request_id, false, ApprovalScope::Once);
    answer.reason = Some("do it yourself, it is one file".into());
    send(&session, answer);
    log.extend(until_finished(&mut events, session.main_agent_id()).await);
    let EventKind::AgentFinished(f) = &log.last().expect("end").kind else { unreachable!() };
    assert!(f.result.contains("do it yourself, it is one file"), "{}", f.result);
    assert!(children(&log).is_empty());
    no_violations(&log);
}

#[tokio::test]
async fn every_call_says_what_decided_it() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"id": "r1", "name": "Read", "input": {"file_path": "f.txt"}}, write("w1", "g.txt", "g")]},
            {"text": "ok"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    std::fs::write(h.path("f.txt"), "f").expect("seed");
    let mut config = h.config();
    config.approval = ApprovalPolicy::deny_mutating();
    let run = h.run_with(config, "read and write").await;
    let out = |id: &str| output(&run.events, id).clone();
    assert_eq!(out("r1").decided_by, Some(DecidedBy::Policy), "a read the policy lets run");
    assert_eq!(out("w1").decided_by, Some(DecidedBy::Policy), "a write the policy refuses");
    assert!(out("w1").is_error);
    no_violations(&run.events);
}
