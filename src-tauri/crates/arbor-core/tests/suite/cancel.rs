//! Stopping an agent at any point: while the model streams, while a command
//! runs (its whole process group dies), while it waits for approval.

use super::*;
use arbor_core::ApprovalPolicy;
use arbor_protocol::{AgentStatus, Command, EventKind};
use arbor_testkit::wait_for_event;
use serde_json::json;

fn cancel(session: &Session) {
    session.submit(Command::Cancel { agent_id: session.main_agent_id().clone() }).expect("cancel");
}

fn pid_alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
}

/// SIGKILL is delivered asynchronously: give the kernel a bounded moment to finish it.
async fn gone_soon(pid: &str) -> bool {
    for _ in 0..200 {
        if !pid_alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn cancel_kills_a_running_command_and_its_children_and_stops_the_loop() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "Bash", "input": {"command": "sleep 60 & echo $! > child.pid; echo started; wait"}}]},
            {"text": "must never be requested"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "run it");
    wait_for_event(
        &mut events,
        WAIT,
        |e| matches!(&e.kind, EventKind::ToolOutputChunk(c) if c.content.contains("started")),
    )
    .await
    .expect("command started");
    let pid = read(&h.path("child.pid")).trim().to_string();
    assert!(pid_alive(&pid), "the background child runs");
    cancel(&session);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    let f = match &rest.last().expect("event").kind {
        EventKind::AgentFinished(f) => f.clone(),
        _ => unreachable!(),
    };
    assert_eq!(f.status, AgentStatus::Cancelled);
    assert!(gone_soon(&pid).await, "the command's whole process group was killed");
    assert_eq!(h.requests().len(), 1, "no model request after the stop");
}

#[tokio::test]
async fn cancel_while_the_model_streams_closes_the_stream() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [{"text": "a slow reply that takes its time to arrive", "chunk_delay_ms": 400}]}]}),
        Api::OpenAi,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "talk slowly");
    wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "response_chunk").await.expect("first chunk");
    cancel(&session);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    assert!(
        matches!(&rest.last().expect("event").kind, EventKind::AgentFinished(f) if f.status == AgentStatus::Cancelled)
    );
    assert_eq!(h.requests().len(), 1);
}

#[tokio::test]
async fn cancel_while_waiting_for_approval_withdraws_the_request() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "a.txt", "content": "A"}}]},
            {"text": "never"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "write");
    let req = wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "approval_request").await.expect("request");
    let EventKind::ApprovalRequest(req) = req.kind else { unreachable!() };
    cancel(&session);
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    assert!(
        rest.iter().any(
            |e| matches!(&e.kind, EventKind::ApprovalResolved(r) if r.request_id == req.request_id && r.outcome == arbor_protocol::ApprovalOutcome::Withdrawn)
        )
    );
    assert!(!h.path("a.txt").exists());
    assert_eq!(session.status(session.main_agent_id()), Some(AgentStatus::Cancelled));
    assert_eq!(h.requests().len(), 1);
}
