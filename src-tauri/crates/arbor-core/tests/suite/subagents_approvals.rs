//! Approvals from children: each suspends only its own agent, carries the agent
//! path, is answered on its own; scoped answers reach down the tree; a spawn
//! itself can be made to ask.

use super::subagents::*;
use super::*;
use arbor_core::{ApprovalPolicy, Decision};
use arbor_protocol::{AgentEvent, AgentStatus, ApprovalAnswer, ApprovalRequest, ApprovalScope, Command, EventKind};
use serde_json::json;

/// Two children started together, each writing its own file.
fn two_writers() -> serde_json::Value {
    json!({"rules": [
        {"match": {"first_user_contains": "CHILD-A"}, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "a.txt", "content": "A"}}]},
            {"text": "A wrote"}
        ]},
        {"match": {"first_user_contains": "CHILD-B"}, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "b.txt", "content": "B"}}]},
            {"text": "B wrote"}
        ]},
        {"match": {}, "turns": [
            {"tool_calls": [task("w_a", "Writer A", "CHILD-A: write a.txt"), task("w_b", "Writer B", "CHILD-B: write b.txt")]},
            {"text": "both wrote"}
        ]}
    ]})
}

/// The next `n` approval requests, with the asking agent; every event up to them goes into `seen`.
async fn approval_requests(
    events: &mut EventStream,
    n: usize,
    seen: &mut Vec<AgentEvent>,
) -> Vec<(AgentId, ApprovalRequest)> {
    let mut out = Vec::new();
    while out.len() < n {
        let evs = collect_until(events, WAIT, |e| e.kind.type_name() == "approval_request").await.expect("approval");
        let ev = evs.last().cloned().expect("event");
        seen.extend(evs);
        let EventKind::ApprovalRequest(r) = ev.kind else { unreachable!() };
        out.push((ev.agent_id, r));
    }
    out
}

fn answer(session: &Session, request_id: &str, approved: bool, scope: ApprovalScope) {
    session.submit(Command::ResolveApproval(ApprovalAnswer::new(request_id, approved, scope))).expect("answer");
}

#[tokio::test]
async fn parallel_children_ask_at_once_and_each_answer_releases_only_its_own_child() {
    let h = Harness::new(two_writers(), Api::Anthropic).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "PARENT: two writers");
    let mut all = Vec::new();
    let mut asked = approval_requests(&mut events, 2, &mut all).await;
    asked.sort_by_key(|(_, r)| r.agent_path.clone());
    let [(a, req_a), (b, req_b)] = <[_; 2]>::try_from(asked).expect("two requests");
    assert_ne!(a, b);
    assert_eq!(req_a.agent_path, vec!["main".to_string(), "Writer A".to_string()]);
    assert_eq!(req_b.agent_path, vec!["main".to_string(), "Writer B".to_string()]);
    assert_eq!((req_a.tool_name.as_str(), req_a.tool_args["file_path"].as_str()), ("Write", Some("a.txt")));
    assert_eq!(session.status(&a), Some(AgentStatus::WaitingApproval), "both wait at once");
    assert_eq!(session.status(&b), Some(AgentStatus::WaitingApproval));
    assert_eq!(session.status(session.main_agent_id()), Some(AgentStatus::Running), "only the askers are suspended");
    assert!(!h.path("a.txt").exists() && !h.path("b.txt").exists());

    answer(&session, &req_a.request_id, true, ApprovalScope::Once);
    let seen = until_finished(&mut events, &a).await;
    all.extend(seen.iter().cloned());
    assert!(
        seen.iter().any(
            |e| matches!(&e.kind, EventKind::ApprovalResolved(r) if r.request_id == req_a.request_id && r.outcome.is_approved())
        )
    );
    assert!(
        !seen.iter().any(|e| matches!(&e.kind, EventKind::ApprovalResolved(r) if r.request_id == req_b.request_id))
    );
    assert_eq!(read(&h.path("a.txt")), "A", "A went on");
    assert_eq!(session.status(&a), Some(AgentStatus::Completed));
    assert!(!h.path("b.txt").exists(), "B still waits");
    assert_eq!(session.status(&b), Some(AgentStatus::WaitingApproval));
    assert_eq!(requests_of(&h.requests(), "CHILD-B").len(), 1, "B made no further request");

    answer(&session, &req_b.request_id, true, ApprovalScope::Once);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    all.extend(rest.iter().cloned());
    assert!(matches!(&rest.last().expect("event").kind, EventKind::AgentFinished(f) if f.result == "both wrote"));
    for kid in [&a, &b] {
        assert_eq!(
            statuses(&all, kid),
            vec![
                AgentStatus::Queued,
                AgentStatus::Running,
                AgentStatus::WaitingApproval,
                AgentStatus::Running,
                AgentStatus::Completed
            ],
            "every state change is an event"
        );
    }
    assert_eq!(read(&h.path("b.txt")), "B");
    let requests = h.requests();
    let parent = requests_of(&requests, "PARENT").pop().expect("parent");
    assert_eq!(
        tool_results(parent),
        vec![("w_a".to_string(), "A wrote".to_string()), ("w_b".to_string(), "B wrote".to_string())]
    );
}

/// The main agent writes first (and is asked), then starts two writing children.
fn main_then_children() -> serde_json::Value {
    json!({"rules": [
        {"match": {"first_user_contains": "CHILD-A"}, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "a.txt", "content": "A"}}]},
            {"text": "A: {{last_tool_result}}"}
        ]},
        {"match": {"first_user_contains": "CHILD-B"}, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "b.txt", "content": "B"}}]},
            {"text": "B: {{last_tool_result}}"}
        ]},
        {"match": {}, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "main.txt", "content": "M"}}]},
            {"tool_calls": [task("w_a", "Writer A", "CHILD-A: write"), task("w_b", "Writer B", "CHILD-B: write")]},
            {"text": "done"}
        ]}
    ]})
}

#[tokio::test]
async fn a_subtree_grant_on_the_main_agent_covers_its_children_and_an_agent_grant_does_not() {
    // Subtree: the children's writes run unasked.
    let h = Harness::new(main_then_children(), Api::Anthropic).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "PARENT: write then delegate");
    let (asker, first) = approval_requests(&mut events, 1, &mut Vec::new()).await.remove(0);
    assert_eq!(&asker, session.main_agent_id());
    answer(&session, &first.request_id, true, ApprovalScope::Subtree);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    assert!(!rest.iter().any(|e| e.kind.type_name() == "approval_request"), "no child was asked");
    assert_eq!((read(&h.path("a.txt")), read(&h.path("b.txt"))), ("A".into(), "B".into()));

    // Agent scope: the same grant stops at the main agent; each child asks for itself.
    let h = Harness::new(main_then_children(), Api::Anthropic).await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "PARENT: write then delegate");
    let (_, first) = approval_requests(&mut events, 1, &mut Vec::new()).await.remove(0);
    answer(&session, &first.request_id, true, ApprovalScope::Agent);
    let asked = approval_requests(&mut events, 2, &mut Vec::new()).await;
    assert!(asked.iter().all(|(a, r)| a != session.main_agent_id() && r.agent_path.len() == 2));
    for (_, r) in &asked {
        answer(&session, &r.request_id, false, ApprovalScope::Once);
    }
    until_finished(&mut events, session.main_agent_id()).await;
    assert!(!h.path("a.txt").exists() && !h.path("b.txt").exists(), "denied children wrote nothing");
}

#[tokio::test]
async fn a_task_call_under_ask_waits_for_the_answer_before_any_child_exists() {
    let scenario = json!({"rules": [
        {"match": {"first_user_contains": "CHILD-T"}, "turns": [{"text": "spawned after approval"}]},
        {"match": {}, "turns": [{"tool_calls": [task("t_ask", "Asked spawn", "CHILD-T: go")]}, {"text": "{{last_tool_result}}"}]}
    ]});
    for approved in [true, false] {
        let h = Harness::new(scenario.clone(), Api::Anthropic).await;
        let mut config = h.config();
        config.approval.per_tool.insert("Task".into(), Decision::Ask);
        let (session, mut events) = h.start(config, "PARENT: spawn");
        let (asker, req) = approval_requests(&mut events, 1, &mut Vec::new()).await.remove(0);
        assert_eq!(&asker, session.main_agent_id());
        assert_eq!((req.tool_name.as_str(), req.call_id.as_str()), ("Task", "t_ask"));
        assert_eq!(req.tool_args["prompt"], "CHILD-T: go");
        assert_eq!(req.agent_path, vec!["main".to_string()]);
        assert_eq!(session.agents().len(), 1, "no child before the answer");
        assert!(requests_of(&h.requests(), "CHILD-T").is_empty());
        answer(&session, &req.request_id, approved, ApprovalScope::Once);
        let rest = until_finished(&mut events, session.main_agent_id()).await;
        let EventKind::AgentFinished(f) = &rest.last().expect("event").kind else { unreachable!() };
        if approved {
            assert_eq!(f.result, "spawned after approval");
            assert_eq!(children(&rest).len(), 1);
        } else {
            assert!(f.result.contains("Task call was denied by the user"), "{}", f.result);
            assert!(children(&rest).is_empty() && session.agents().len() == 1);
        }
    }
}

/// A Task call is read and planned once: the child that starts after the answer is the
/// one its card showed, even if the agent types changed while the card waited (a reload
/// that drops the type would otherwise make the call fail as an unknown type).
#[tokio::test]
async fn the_child_that_starts_is_the_one_the_card_showed() {
    let scenario = json!({"rules": [
        {"match": {"first_user_contains": "CHILD-R"}, "turns": [{"text": "reviewed"}]},
        {"match": {}, "turns": [
            {"tool_calls": [{"id": "t_r", "name": "Task", "input": {
                "description": "Review", "prompt": "CHILD-R: review", "subagent_type": "reviewer"}}]},
            {"text": "{{last_tool_result}}"}
        ]}
    ]});
    let h = Harness::new(scenario, Api::Anthropic).await;
    let mut config = h.config();
    config.agent_types = vec![agent_type("reviewer", "You review.")];
    config.approval.per_tool.insert("Task".into(), Decision::Ask);
    let (session, mut events) = h.start(config, "PARENT: spawn");
    let (_, req) = approval_requests(&mut events, 1, &mut Vec::new()).await.remove(0);
    let Some(arbor_protocol::ApprovalPreview::Spawn(plan)) = &req.preview else { panic!("a spawn card: {req:?}") };
    assert_eq!(plan.subagent_type, "reviewer");
    // The types are reloaded while the card waits: the reviewer is gone.
    session.set_agent_types(Vec::new());
    answer(&session, &req.request_id, true, ApprovalScope::Once);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    let EventKind::AgentFinished(f) = &rest.last().expect("event").kind else { unreachable!() };
    assert_eq!(f.result, "reviewed", "the child shown started");
    let started = rest
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::AgentStarted(s) if s.parent_id.is_some() => Some(s.clone()),
            _ => None,
        })
        .expect("a child");
    assert_eq!(started.subagent_type.as_deref(), Some("reviewer"));
    assert!(started.call_seq.is_some(), "its place among its siblings, from its Task call's event");
}
