//! The scheduler: more Task calls than slots wait, visibly queued, and every
//! result still comes back paired with its own call.

use super::subagents::*;
use super::*;
use arbor_protocol::{AgentStatus, EventKind};
use serde_json::json;

const FAN_OUT: usize = 20;
const SLOTS: usize = 3;

#[tokio::test]
async fn twenty_task_calls_never_run_more_than_three_at_once_and_all_pair_up() {
    let calls: Vec<_> = (0..FAN_OUT)
        .map(|i| task(&format!("toolu_fan_{i:02}"), &format!("fan {i:02}"), &format!("CHILD-{i:02}: echo me")))
        .collect();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-"}, "turns": [{"text": "{{first_user}}", "delay_ms": 100}]},
            {"match": {}, "turns": [{"tool_calls": calls}, {"text": "all back"}]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.limits.max_parallel = SLOTS;
    config.limits.max_subagents = FAN_OUT as u32;
    let (session, mut events) = h.start(config, "PARENT: fan out");
    let main = session.main_agent_id().clone();

    // Two views of "in flight", sampled while the run goes on: the registry's
    // running children, and requests the server has received from children
    // that have not finished yet (read in that order, so it can only undercount).
    let (mut max_running, mut max_in_flight) = (0usize, 0usize);
    let mut all = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(3));
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        tokio::select! {
            ev = events.recv() => {
                let ev = ev.expect("event stream open");
                let done = ev.agent_id == main && matches!(ev.kind, EventKind::AgentFinished(_));
                all.push(ev);
                if done {
                    break;
                }
            }
            _ = tick.tick() => {
                let sent = h.requests().iter().filter(|r| r.first_user_text.starts_with("CHILD-")).count();
                let agents = session.agents();
                let kids = agents.iter().filter(|a| a.parent_id.is_some());
                let running = kids.clone().filter(|a| matches!(a.status, AgentStatus::Running | AgentStatus::WaitingApproval)).count();
                let ended = kids.filter(|a| a.status.is_terminal()).count();
                max_running = max_running.max(running);
                max_in_flight = max_in_flight.max(sent.saturating_sub(ended));
            }
        }
        assert!(tokio::time::Instant::now() < deadline, "the fan-out did not finish");
    }
    assert_eq!(max_running, SLOTS, "never more than {SLOTS} children running, and that many do run together");
    assert_eq!(max_in_flight, SLOTS, "the server never saw more than {SLOTS} children's requests open at once");

    let kids = children(&all);
    assert_eq!(kids.len(), FAN_OUT);
    for (id, _) in &kids {
        assert_eq!(
            statuses(&all, id),
            vec![AgentStatus::Queued, AgentStatus::Running, AgentStatus::Completed],
            "every child is queued first"
        );
    }
    // Before any child ends, exactly the slots' worth of children run; the rest wait their turn.
    let first_end = all
        .iter()
        .find(|e| e.agent_id != main && matches!(e.kind, EventKind::AgentFinished(_)))
        .expect("a child finished")
        .seq;
    let started_late = all
        .iter()
        .filter(|e| {
            e.seq > first_end && matches!(&e.kind, EventKind::AgentStatus(s) if s.status == AgentStatus::Running)
        })
        .filter(|e| e.agent_id != main)
        .count();
    assert_eq!(started_late, FAN_OUT - SLOTS, "the excess waited, queued, for a slot to free");

    // Each call's result is its own child's (each child echoes its prompt).
    let requests = h.requests();
    let parent = requests_of(&requests, "PARENT").pop().expect("parent request");
    let results = tool_results(parent);
    assert_eq!(results.len(), FAN_OUT);
    for (i, (call_id, content)) in results.iter().enumerate() {
        assert_eq!(call_id, &format!("toolu_fan_{i:02}"));
        assert_eq!(content, &format!("CHILD-{i:02}: echo me"));
    }
    for (id, started) in &kids {
        let n = started.parent_call_id.as_deref().and_then(|c| c.strip_prefix("toolu_fan_")).expect("call id");
        assert_eq!(started.description, format!("fan {n}"));
        assert_eq!(finished_of(&all, id).1.result, format!("CHILD-{n}: echo me"), "child and call pair up");
    }
    assert_eq!(finished_of(&all, &main).1.result, "all back");
}
