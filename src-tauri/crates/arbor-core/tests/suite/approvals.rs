//! Approvals through the session: the agent waits for its own answer, a denial
//! reaches the model, scopes leave standing answers, policies decide unasked.

use super::*;
use arbor_core::{ApprovalPolicy, Decision};
use arbor_protocol::{AgentStatus, ApprovalAnswer, ApprovalScope, Command, EventKind};
use arbor_testkit::wait_for_event;
use serde_json::json;

fn write_twice() -> serde_json::Value {
    json!({"rules": [{"match": {}, "turns": [
        {"tool_calls": [{"name": "Write", "input": {"file_path": "a.txt", "content": "A"}}]},
        {"tool_calls": [{"name": "Write", "input": {"file_path": "b.txt", "content": "B"}}]},
        {"text": "{{last_tool_result}}"}
    ]}]})
}

async fn next_request(events: &mut EventStream) -> arbor_protocol::ApprovalRequest {
    let ev =
        wait_for_event(events, WAIT, |e| e.kind.type_name() == "approval_request").await.expect("approval_request");
    match ev.kind {
        EventKind::ApprovalRequest(r) => r,
        _ => unreachable!(),
    }
}

fn answer(session: &Session, request_id: &str, approved: bool, scope: ApprovalScope) {
    session.submit(Command::ResolveApproval(ApprovalAnswer::new(request_id, approved, scope))).expect("answer");
}

#[tokio::test]
async fn approve_once_then_deny_and_the_model_hears_the_denial() {
    let h = Harness::new(write_twice(), Api::Anthropic).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "write");
    let first = next_request(&mut events).await;
    assert_eq!(first.tool_name, "Write");
    assert_eq!(first.tool_args["file_path"], "a.txt");
    assert_eq!(first.agent_path, vec!["main".to_string()]);
    assert!(!h.path("a.txt").exists(), "nothing runs before the answer");
    assert_eq!(session.status(session.main_agent_id()), Some(AgentStatus::WaitingApproval));
    answer(&session, &first.request_id, true, ApprovalScope::Once);
    let second = next_request(&mut events).await;
    assert_ne!(second.request_id, first.request_id, "once means once");
    answer(&session, &second.request_id, false, ApprovalScope::Once);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    assert_eq!(read(&h.path("a.txt")), "A");
    assert!(!h.path("b.txt").exists());
    let f = match &rest.last().expect("finished").kind {
        EventKind::AgentFinished(f) => f.clone(),
        _ => unreachable!(),
    };
    assert!(f.result.contains("Write call was denied by the user"), "the model was told: {}", f.result);
    assert!(
        session
            .submit(Command::ResolveApproval(ApprovalAnswer::new(second.request_id, true, ApprovalScope::Once)))
            .is_err(),
        "an answered request cannot be answered again"
    );
}

#[tokio::test]
async fn the_agent_scope_leaves_a_standing_answer() {
    let h = Harness::new(write_twice(), Api::OpenAi).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "write");
    let first = next_request(&mut events).await;
    answer(&session, &first.request_id, true, ApprovalScope::Agent);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    assert!(!rest.iter().any(|e| e.kind.type_name() == "approval_request"), "the second Write was not asked");
    assert_eq!((read(&h.path("a.txt")), read(&h.path("b.txt"))), ("A".into(), "B".into()));
}

#[tokio::test]
async fn statuses_and_resolution_are_events_in_order() {
    let h = Harness::new(write_twice(), Api::Anthropic).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "write");
    let first = next_request(&mut events).await;
    answer(&session, &first.request_id, true, ApprovalScope::Session);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    let kinds: Vec<String> = rest
        .iter()
        .take(3)
        .map(|e| match &e.kind {
            EventKind::AgentStatus(s) => format!("status:{}", s.status.as_str()),
            EventKind::ApprovalResolved(r) => {
                format!("resolved:{}:{}", r.outcome.is_approved(), r.request_id == first.request_id)
            }
            other => other.type_name().to_string(),
        })
        .collect();
    assert_eq!(kinds, vec!["status:waiting_approval", "resolved:true:true", "status:running"]);
}

#[tokio::test]
async fn policies_decide_without_asking() {
    let h = Harness::new(write_twice(), Api::Anthropic).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::deny_mutating();
    config.approval.per_tool.insert("Write".into(), Decision::Deny);
    let run = h.run_with(config, "write").await;
    assert!(!run.types().contains(&"approval_request"));
    assert!(!h.path("a.txt").exists());
    assert!(run.outputs()[0].0.contains("not allowed by the approval policy"));
    assert_eq!(run.finished().status, AgentStatus::Completed);
}

#[tokio::test]
async fn read_only_tools_never_ask_under_the_default_policy() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}, {"name": "Grep", "input": {"pattern": "x"}}, {"name": "Read", "input": {"file_path": "f"}}]},
            {"text": "ok"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    std::fs::write(h.path("f"), "x").expect("write");
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let run = h.run_with(config, "look").await;
    assert!(!run.types().contains(&"approval_request"));
    assert_eq!(run.finished().status, AgentStatus::Completed);
}
