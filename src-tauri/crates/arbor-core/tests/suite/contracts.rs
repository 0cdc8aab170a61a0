//! The event stream's contracts under concurrency (design.md §3.1): for every
//! tool call `tool_call` < `approval_request` < `approval_resolved` <
//! `tool_output` in seq order, each request resolved once by its own agent, seq
//! gap-free, and a stopped agent's pending request withdrawn rather than denied.

use super::*;
use arbor_protocol::{ApprovalAnswer, ApprovalOutcome, ApprovalScope, Command, EventKind};
use arbor_testkit::violations;
use serde_json::json;

/// Writes in parallel in one response: the person answers each the moment it is
/// asked, from another thread, approving some and denying the rest. A denied
/// call's result comes at once, so an answer announced by whoever answered
/// (rather than by the asking agent) often came after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn answers_are_announced_before_the_calls_they_let_run() {
    const WRITES: usize = 12;
    let calls: Vec<serde_json::Value> = (0..WRITES)
        .map(|i| json!({"name": "Write", "input": {"file_path": format!("f{i}.txt"), "content": "x"}}))
        .collect();
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [{"tool_calls": calls}, {"text": "done"}]}]}),
        Api::Anthropic,
    )
    .await;
    for round in 0..25 {
        let mut config = h.config();
        config.approval = ApprovalPolicy::default();
        let (session, mut events) = h.start(config, &format!("write {round}"));
        let main = session.main_agent_id().clone();
        // Answers come from a thread of their own, as the CLI's stdin reader's do.
        let (tx, rx) = std::sync::mpsc::channel::<(String, bool)>();
        let answering = session.clone();
        let answerer = std::thread::spawn(move || {
            for (request_id, approved) in rx {
                let answer = ApprovalAnswer::new(request_id, approved, ApprovalScope::Once);
                answering.submit(Command::ResolveApproval(answer)).expect("answer");
            }
        });
        let mut log = Vec::new();
        loop {
            let ev = tokio::time::timeout(WAIT, events.recv()).await.expect("in time").expect("open");
            if let EventKind::ApprovalRequest(r) = &ev.kind {
                let approved = r.tool_args["file_path"] == "f0.txt";
                tx.send((r.request_id.clone(), approved)).expect("answerer");
            }
            let end = ev.agent_id == main && matches!(ev.kind, EventKind::AgentFinished(_));
            log.push(ev);
            if end {
                break;
            }
        }
        drop(tx);
        answerer.join().expect("answerer");
        let broken = violations(&log, true);
        assert!(broken.is_empty(), "round {round}: {broken:?}");
        let outcomes: Vec<ApprovalOutcome> = log
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::ApprovalResolved(r) => Some(r.outcome),
                _ => None,
            })
            .collect();
        assert_eq!(outcomes.len(), WRITES);
        assert_eq!(outcomes.iter().filter(|o| o.is_approved()).count(), 1);
        std::fs::remove_file(h.path("f0.txt")).expect("the approved write ran");
    }
}

/// A request whose agent is stopped is withdrawn: its own outcome, not a denial.
#[tokio::test]
async fn a_stopped_agents_request_is_withdrawn() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "Bash", "input": {"command": "touch x"}}]},
            {"text": "never"}
        ]}]}),
        Api::OpenAi,
    )
    .await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "go");
    let main = session.main_agent_id().clone();
    let mut log = arbor_testkit::collect_until(&mut events, WAIT, |e| matches!(e.kind, EventKind::ApprovalRequest(_)))
        .await
        .expect("request");
    session.submit(Command::Cancel { agent_id: main.clone() }).expect("cancel");
    log.extend(until_finished(&mut events, &main).await);
    assert!(violations(&log, true).is_empty(), "{:?}", violations(&log, true));
    let resolved: Vec<_> = log
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ApprovalResolved(r) => Some(r.outcome),
            _ => None,
        })
        .collect();
    assert_eq!(resolved, [ApprovalOutcome::Withdrawn]);
    assert!(!h.path("x").exists());
}
