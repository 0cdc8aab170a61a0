//! Stopping part of a tree: the whole subtree ends (model streams, commands,
//! queued children), nothing asks the model afterwards, and a parent whose
//! foreground child was stopped hears so and goes on.

use super::subagents::*;
use super::*;
use arbor_protocol::{AgentStatus, Command, EventKind};
use arbor_testkit::wait_for_event;
use serde_json::json;

/// A `sleep` no other test or process runs: its duration is unique to this call.
pub fn unique_sleep() -> String {
    format!("sleep 30.{}{:05}", std::process::id() % 1000, fastrand::u32(..100_000))
}

/// The ids of live processes whose command line starts with `command`.
pub fn processes(command: &str) -> Vec<String> {
    let out = std::process::Command::new("pgrep").arg("-f").arg(format!("^{command}")).output().expect("pgrep");
    String::from_utf8_lossy(&out.stdout).split_whitespace().map(str::to_string).collect()
}

/// Waits (bounded) until exactly `n` such processes live: a rendezvous with the commands.
pub async fn until_processes(command: &str, n: usize) {
    for _ in 0..500 {
        if processes(command).len() == n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("expected {n} processes `{command}`, found {:?}", processes(command));
}

/// The barrier before "nothing more happens": the session is dropped and its event
/// stream closes, which it does only once every agent task of it has ended, so
/// none is left that could still send a request.
async fn every_task_ended(session: Session, mut events: EventStream) {
    session.shutdown();
    drop(session);
    tokio::time::timeout(WAIT, async { while events.recv().await.is_some() {} }).await.expect("every agent task ended");
}

#[tokio::test]
async fn stopping_the_main_agent_stops_every_child_kills_their_commands_and_asks_the_model_nothing_more() {
    let sleep = unique_sleep();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-SLEEP"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": format!("{sleep}1")}}]},
                {"text": "never"}
            ]},
            {"match": {"first_user_contains": "CHILD-STREAM"}, "turns": [
                {"text": "a slow reply that takes its time to arrive, chunk by chunk", "chunk_delay_ms": 150}
            ]},
            {"match": {"first_user_contains": "CHILD-QUEUED"}, "turns": [{"text": "never"}]},
            {"match": {}, "turns": [
                {"tool_calls": [
                    task("s_1", "Sleeper one", "CHILD-SLEEP one"),
                    task("s_2", "Streamer", "CHILD-STREAM"),
                    task("s_3", "Sleeper two", "CHILD-SLEEP two"),
                    task("s_4", "Queued one", "CHILD-QUEUED")
                ]},
                {"text": "never"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.limits.max_parallel = 3;
    let (session, mut events) = h.start(config, "PARENT: sleep in children");
    let mut evs =
        collect_until(&mut events, WAIT, |e| e.kind.type_name() == "response_chunk").await.expect("streaming");
    until_processes(&sleep, 2).await;
    let sent = h.requests().len();
    assert_eq!(sent, 4, "the main agent's and the three running children's");
    session.submit(Command::Cancel { agent_id: session.main_agent_id().clone() }).expect("cancel");
    evs.extend(until_finished(&mut events, session.main_agent_id()).await);

    let agents = session.agents();
    assert_eq!(agents.len(), 5);
    assert!(agents.iter().all(|a| a.status == AgentStatus::Cancelled), "{agents:?}");
    for (id, s) in children(&evs) {
        assert_eq!(finished_of(&evs, &id).1.status, AgentStatus::Cancelled, "{}", s.description);
        assert_eq!(statuses(&evs, &id).last(), Some(&AgentStatus::Cancelled));
    }
    let (streamer, _) = child(&evs, "Streamer");
    assert!(
        !evs.iter().any(|e| e.agent_id == streamer && e.kind.type_name() == "response"),
        "the stream was closed before its reply completed"
    );
    let (queued, _) = child(&evs, "Queued one");
    assert_eq!(statuses(&evs, &queued), vec![AgentStatus::Queued, AgentStatus::Cancelled], "it never ran");
    until_processes(&sleep, 0).await;
    every_task_ended(session, events).await;
    assert_eq!(h.requests().len(), sent, "no model request after the stop");
    assert!(requests_of(&h.requests(), "CHILD-QUEUED").is_empty());
    assert!(processes(&sleep).is_empty(), "no process left behind");
}

#[tokio::test]
async fn stopping_a_foreground_child_is_a_subagent_error_for_its_parent_which_goes_on() {
    let sleep = unique_sleep();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-SLEEP"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": sleep}}]},
                {"text": "never"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [task("s_child", "Sleeper", "CHILD-SLEEP")]},
                {"text": "parent heard: {{last_tool_result}}"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "PARENT: one sleeper");
    let started = wait_for_event(&mut events, WAIT, |e| matches!(&e.kind, EventKind::AgentStarted(s) if s.depth == 1))
        .await
        .expect("child started");
    let kid = started.agent_id;
    until_processes(&sleep, 1).await;
    session.submit(Command::Cancel { agent_id: kid.clone() }).expect("cancel the child");
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    let EventKind::AgentFinished(f) = &rest.last().expect("event").kind else { unreachable!() };
    assert_eq!(f.status, AgentStatus::Completed, "the parent goes on");
    assert_eq!(f.result, "parent heard: Subagent error: stopped by the user");
    assert_eq!(session.status(&kid), Some(AgentStatus::Cancelled));
    // A person's Stop is said as such: the child's end names who stopped it.
    let kid_end = rest.iter().find_map(|e| match &e.kind {
        EventKind::AgentFinished(f) if e.agent_id == kid => Some(f.clone()),
        _ => None,
    });
    let kid_end = kid_end.expect("the child's end");
    assert_eq!(kid_end.stopped_by, Some(arbor_protocol::StoppedBy::Person));
    assert_eq!(kid_end.error.as_deref(), Some("stopped by you"));
    let requests = h.requests();
    let parent = requests_of(&requests, "PARENT").pop().expect("parent");
    assert_eq!(error_flags(parent), vec![("s_child".to_string(), true)]);
    assert_eq!(requests_of(&requests, "CHILD-SLEEP").len(), 1, "the stopped child asked nothing more");
    until_processes(&sleep, 0).await;
}

#[tokio::test]
async fn stopping_withdraws_a_childs_pending_approval() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-ASK"}, "turns": [
                {"tool_calls": [{"name": "Write", "input": {"file_path": "a.txt", "content": "A"}}]},
                {"text": "never"}
            ]},
            {"match": {}, "turns": [{"tool_calls": [task("s_ask", "Asker", "CHILD-ASK: write")]}, {"text": "never"}]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.approval = arbor_core::ApprovalPolicy::default();
    let (session, mut events) = h.start(config, "PARENT: ask through a child");
    let asked = wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "approval_request").await.expect("asked");
    let EventKind::ApprovalRequest(req) = &asked.kind else { unreachable!() };
    let kid = asked.agent_id.clone();
    assert_eq!(session.status(&kid), Some(AgentStatus::WaitingApproval));
    let sent = h.requests().len();
    session.submit(Command::Cancel { agent_id: session.main_agent_id().clone() }).expect("cancel");
    let rest = until_finished(&mut events, session.main_agent_id()).await;
    assert!(
        rest.iter().any(|e| e.agent_id == kid
            && matches!(&e.kind, EventKind::ApprovalResolved(r) if r.request_id == req.request_id && r.outcome == arbor_protocol::ApprovalOutcome::Withdrawn)),
        "the pending request is resolved, as not approved"
    );
    assert_eq!(session.status(&kid), Some(AgentStatus::Cancelled));
    assert_eq!(session.status(session.main_agent_id()), Some(AgentStatus::Cancelled));
    assert!(!h.path("a.txt").exists());
    assert!(
        session
            .submit(Command::ResolveApproval(arbor_protocol::ApprovalAnswer::new(
                req.request_id.clone(),
                true,
                arbor_protocol::ApprovalScope::Once
            )))
            .is_err(),
        "a withdrawn request cannot be answered"
    );
    assert_eq!(h.requests().len(), sent, "no model request after the stop");
}

#[tokio::test]
async fn stopping_a_main_agent_that_waits_for_a_background_child_stops_both_for_good() {
    let sleep = unique_sleep();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-BG"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": sleep}}]},
                {"text": "never"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [{"name": "Task", "input": {"description": "Background sleeper", "prompt": "CHILD-BG", "run_in_background": true}}]},
                {"text": "waiting"},
                {"text": "must never be requested"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "PARENT: start and wait");
    let main = session.main_agent_id().clone();
    until_processes(&sleep, 1).await;
    // The main agent has answered and now only waits for its child.
    let waiting = wait_for_event(&mut events, WAIT, |e| {
        e.agent_id == main && matches!(&e.kind, EventKind::Response(t) if t.content == "waiting")
    })
    .await;
    waiting.expect("main waits");
    assert_eq!(session.status(&main), Some(AgentStatus::Running), "waiting for a child is not finished");
    let sent = h.requests().len();
    session.submit(Command::Cancel { agent_id: main.clone() }).expect("cancel");
    let rest = until_finished(&mut events, &main).await;
    assert_eq!(finished_of(&rest, &main).1.status, AgentStatus::Cancelled);
    // Unlike a foreground child, a background one may end just after its stopped parent.
    let kid = session.agents().into_iter().find(|a| a.depth == 1).expect("child").id;
    if !rest.iter().any(|e| e.agent_id == kid && e.kind.type_name() == "agent_finished") {
        until_finished(&mut events, &kid).await;
    }
    assert_eq!(session.status(&kid), Some(AgentStatus::Cancelled));
    until_processes(&sleep, 0).await;
    assert_eq!(session.status(&main), Some(AgentStatus::Cancelled));
    every_task_ended(session, events).await;
    assert_eq!(h.requests().len(), sent, "the stopped child's end does not wake the stopped parent");
}
