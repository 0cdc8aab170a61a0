//! Children that outlive the call that made them: background Task, the tools
//! that manage them (TaskOutput, TaskStop, ListAgents), delegation by the
//! person, and steering a running child.

use super::subagents::*;
use super::subagents_stop::{unique_sleep, until_processes};
use super::*;
use arbor_core::SessionError;
use arbor_protocol::{AgentStatus, Command, DelegateRequest, EventKind};
use arbor_testkit::wait_for_event;
use serde_json::json;

#[tokio::test]
async fn a_background_child_returns_at_once_and_its_result_reaches_the_parent_as_a_notification() {
    for api in BOTH {
        let h = Harness::new(
            json!({"rules": [
                {"match": {"first_user_contains": "CHILD-BG"}, "turns": [{"text": "background result text", "delay_ms": 150}]},
                {"match": {}, "turns": [
                    {"tool_calls": [{"id": "bg_call", "name": "Task", "input": {
                        "description": "Background job", "prompt": "CHILD-BG: work", "run_in_background": true}}]},
                    {"text": "waiting for it"},
                    {"text": "saw the notification"}
                ]}
            ]}),
            api,
        )
        .await;
        let run = h.run("PARENT: work in the background").await;
        let main = run.session.main_agent_id().clone();
        let (kid, started) = child(&run.events, "Background job");
        assert!(started.background && started.parent_call_id.as_deref() == Some("bg_call"), "{api:?}");

        let (out, is_error, returned) = output_of(&run.events, "bg_call");
        assert!(!is_error);
        let named = out.split_whitespace().find(|w| w.starts_with("agent-")).expect("names the child");
        assert_eq!(named, kid.as_str(), "{out}");
        assert!(AgentId::is_valid(named));
        let (kid_done, kid_finished) = finished_of(&run.events, &kid);
        assert!(returned < kid_done, "the call returned before the child finished");

        let note = run
            .events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::TaskNotification(n) => Some((e.agent_id.clone(), n.clone(), e.seq)),
                _ => None,
            })
            .expect("task_notification");
        assert_eq!((&note.0, &note.1.task_id, note.1.status), (&main, &kid, AgentStatus::Completed));
        assert!(note.1.summary.contains("background result text"), "{}", note.1.summary);
        assert!(note.2 > kid_done);

        let parents = requests_of(&run.requests, "PARENT");
        assert_eq!(parents.len(), 3, "{api:?}");
        assert!(!parents[1].body.to_string().contains("task-notification"), "not before the child ended");
        let last = last_message(parents[2]);
        for part in [
            "<task-notification>",
            &format!("<task-id>{kid}</task-id>"),
            "<status>completed</status>",
            "background result text",
        ] {
            assert!(last.contains(part), "{api:?}: {part} missing from {last}");
        }
        assert_eq!(kid_finished.result, "background result text");

        let main_ends: Vec<u64> = run
            .events
            .iter()
            .filter(|e| e.agent_id == main && matches!(e.kind, EventKind::AgentFinished(_)))
            .map(|e| e.seq)
            .collect();
        assert_eq!(main_ends.len(), 1, "the main agent did not finish while its child ran");
        assert!(main_ends[0] > kid_done);
        assert_eq!(run.finished().result, "saw the notification");
    }
}

#[tokio::test]
async fn task_output_waits_or_answers_at_once_times_out_and_says_what_it_cannot_find() {
    let ids = predicted_ids(SEED, 1);
    let kid = ids[1].to_string();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-SLOW"}, "turns": [{"text": "slow result", "delay_ms": 400}]},
            {"match": {}, "turns": [
                {"tool_calls": [{"id": "o_start", "name": "Task", "input": {
                    "description": "Slow job", "prompt": "CHILD-SLOW: take your time", "run_in_background": true}}]},
                {"tool_calls": [
                    {"id": "o_peek", "name": "TaskOutput", "input": {"task_id": kid, "block": false}},
                    {"id": "o_missing", "name": "TaskOutput", "input": {"task_id": "agent-deadbeef"}},
                    {"id": "o_short", "name": "TaskOutput", "input": {"task_id": kid, "timeout_ms": 50}}
                ]},
                {"tool_calls": [{"id": "o_wait", "name": "TaskOutput", "input": {"task_id": kid}}]},
                {"text": "done"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("PARENT: start and collect").await;
    assert_eq!(run.session.main_agent_id(), &ids[0], "the id prediction holds");
    let (real, _) = child(&run.events, "Slow job");
    assert_eq!(real.to_string(), kid, "the id prediction holds");

    let (peek, is_error, _) = output_of(&run.events, "o_peek");
    assert!(!is_error && peek.contains(&kid) && peek.contains("still running"), "{peek}");
    let (missing, is_error, _) = output_of(&run.events, "o_missing");
    assert!(is_error && missing.contains("No agent agent-deadbeef"), "{missing}");
    let (short, is_error, _) = output_of(&run.events, "o_short");
    assert!(!is_error && short.starts_with("Timed out after 50 ms"), "{short}");
    let (waited, is_error, answered) = output_of(&run.events, "o_wait");
    assert_eq!((waited.as_str(), is_error), ("slow result", false));
    assert!(answered > finished_of(&run.events, &real).0);

    assert!(
        !run.events.iter().any(|e| e.kind.type_name() == "task_notification"),
        "TaskOutput collected the result: no notification as well"
    );
    assert!(!run.requests.iter().any(|r| r.body.to_string().contains("task-notification")));
    assert_eq!(run.finished().result, "done");
}

#[tokio::test]
async fn a_timed_out_task_output_still_leaves_the_notification_due() {
    let ids = predicted_ids(SEED, 1);
    let kid = ids[1].to_string();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-SLOW"}, "turns": [{"text": "late result", "delay_ms": 300}]},
            {"match": {}, "turns": [
                {"tool_calls": [{"name": "Task", "input": {"description": "Slow job", "prompt": "CHILD-SLOW", "run_in_background": true}}]},
                {"tool_calls": [{"id": "o_short", "name": "TaskOutput", "input": {"task_id": kid, "timeout_ms": 20}}]},
                {"text": "will wait"},
                {"text": "notified"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("PARENT: start, peek, wait").await;
    assert_eq!(child(&run.events, "Slow job").0.to_string(), kid, "the id prediction holds");
    assert!(output_of(&run.events, "o_short").0.starts_with("Timed out"));
    let parents = requests_of(&run.requests, "PARENT");
    assert!(last_message(parents.last().expect("parent")).contains("late result"));
    assert_eq!(run.finished().result, "notified");
}

#[tokio::test]
async fn task_stop_stops_a_child_and_its_subtree_only_your_own_and_list_agents_shows_the_tree() {
    let ids = predicted_ids(SEED, 2);
    let (main, kid) = (ids[0].to_string(), ids[1].to_string());
    let sleep = unique_sleep();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "GRAND-G"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": sleep}}]},
                {"text": "never"}
            ]},
            {"match": {"first_user_contains": "CHILD-C"}, "turns": [
                {"tool_calls": [
                    {"id": "c_stop_main", "name": "TaskStop", "input": {"task_id": main}},
                    {"id": "c_grand", "name": "Task", "input": {"description": "Grand sleeper", "prompt": "GRAND-G: sleep"}}
                ]},
                {"text": "never"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [{"name": "Task", "input": {"description": "Stoppable worker", "prompt": "CHILD-C: work", "run_in_background": true}}]},
                {"text": "waiting"},
                {"tool_calls": [{"id": "m_stop", "name": "TaskStop", "input": {"task_id": kid}}]},
                {"tool_calls": [{"id": "m_list", "name": "ListAgents", "input": {}}]},
                {"text": "stopped it"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.limits.max_depth = 2;
    let (session, mut events) = h.start(config, "PARENT: start a worker, then stop it");
    assert_eq!(session.main_agent_id().to_string(), main, "the id prediction holds");
    until_processes(&sleep, 1).await;
    // Wake the waiting main agent so it plays its TaskStop turn.
    session
        .submit(Command::SendMessage { agent_id: None, text: "USER: stop the worker now".into() })
        .expect("steer the main agent");
    let evs = until_finished(&mut events, session.main_agent_id()).await;
    let (c, _) = child(&evs, "Stoppable worker");
    let (g, g_started) = child(&evs, "Grand sleeper");
    assert_eq!(c.to_string(), kid, "the id prediction holds");
    assert_eq!(g_started.parent_id.as_ref(), Some(&c));

    let (stop, is_error, _) = output_of(&evs, "m_stop");
    assert!(!is_error, "{stop}");
    assert_eq!(stop, format!("Stopped {kid} (\"Stoppable worker\") and the 1 agent it started."));
    assert_eq!(session.status(&c), Some(AgentStatus::Cancelled));
    assert_eq!(session.status(&g), Some(AgentStatus::Cancelled), "and its subtree");
    until_processes(&sleep, 0).await;

    let (not_mine, is_error, _) = output_of(&evs, "c_stop_main");
    assert!(is_error && not_mine.contains("is not one of your subagents"), "{not_mine}");
    assert_eq!(session.status(session.main_agent_id()), Some(AgentStatus::Completed), "the refused stop did nothing");

    let (list, _, _) = output_of(&evs, "m_list");
    assert!(list.starts_with("3 agents in this session"), "{list}");
    let line = |id: &str| list.lines().find(|l| l.contains(&format!("- {id}"))).unwrap_or_default().to_string();
    assert!(line(&main).contains("(you)") && line(&main).contains("parent none"), "{list}");
    let c_line = line(&kid);
    for part in ["cancelled", "type general-purpose", "\"Stoppable worker\"", &format!("parent {main}"), "background"] {
        assert!(c_line.contains(part), "{part} missing: {c_line}");
    }
    let g_line = line(g.as_str());
    for part in ["cancelled", "\"Grand sleeper\"", &format!("parent {kid}"), "depth 2"] {
        assert!(g_line.contains(part), "{part} missing: {g_line}");
    }
    assert!(
        !evs.iter().any(|e| e.kind.type_name() == "task_notification"),
        "the stopper knows: no notification of the stop"
    );
    assert!(
        requests_of(&h.requests(), "PARENT").last().is_some_and(|r| !last_message(r).contains("task-notification"))
    );
}

#[tokio::test]
async fn a_delegated_child_reports_to_a_running_parent_like_a_background_one() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "DELEGATED"}, "turns": [{"text": "delegated result"}]},
            {"match": {}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "while [ ! -e go ]; do sleep 0.02; done; echo released"}}]},
                {"text": "main saw it"}
            ]}
        ]}),
        Api::OpenAi,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "PARENT: wait for go");
    let main = session.main_agent_id().clone();
    let mut seen = collect_until(&mut events, WAIT, |e| e.kind.type_name() == "tool_call").await.expect("tool_call");
    let kid = delegate(
        &session,
        DelegateRequest {
            parent_id: main.clone(),
            prompt: "DELEGATED: report".into(),
            description: Some("Side job".into()),
            subagent_type: None,
            model: None,
            max_turns: None,
            tools: None,
            permission_mode: None,
            sandbox: None,
            isolation: None,
            budget: None,
        },
    )
    .expect("delegate");
    seen.extend(until_finished(&mut events, &kid).await);
    std::fs::write(h.path("go"), "").expect("release the main agent");
    seen.extend(until_finished(&mut events, &main).await);

    let (id, started) = child(&seen, "Side job");
    assert_eq!(id, kid);
    assert_eq!((started.parent_id.as_ref(), started.parent_call_id.as_ref()), (Some(&main), None));
    assert!(started.background && started.depth == 1);
    assert!(seen.iter().any(|e| e.agent_id == main
        && matches!(&e.kind, EventKind::TaskNotification(n) if n.task_id == kid && n.status == AgentStatus::Completed)));
    let requests = h.requests();
    let parents = requests_of(&requests, "PARENT");
    assert_eq!(parents.len(), 2, "one run of the main agent: the notice joined its next turn");
    let last = last_message(parents[1]);
    assert!(
        last.contains("<task-notification>") && last.contains(kid.as_str()) && last.contains("delegated result"),
        "{last}"
    );
    assert_eq!(finished_of(&seen, &main).1.result, "main saw it");
}

#[tokio::test]
async fn a_delegated_child_wakes_a_parent_that_had_finished() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "DELEGATED"}, "turns": [{"text": "late delegated result"}]},
            {"match": {}, "turns": [{"text": "first answer"}, {"text": "second answer"}]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "PARENT: answer");
    let main = session.main_agent_id().clone();
    let first = until_finished(&mut events, &main).await;
    assert_eq!(finished_of(&first, &main).1.result, "first answer");
    let kid = delegate(
        &session,
        DelegateRequest {
            parent_id: main.clone(),
            prompt: "DELEGATED: one more thing".into(),
            description: None,
            subagent_type: None,
            model: None,
            max_turns: None,
            tools: None,
            permission_mode: None,
            sandbox: None,
            isolation: None,
            budget: None,
        },
    )
    .expect("delegate");
    let second = until_finished(&mut events, &main).await;
    let (kid_done, _) = finished_of(&second, &kid);
    let (main_done, f) = finished_of(&second, &main);
    assert!(main_done > kid_done);
    assert_eq!((f.status, f.result.as_str()), (AgentStatus::Completed, "second answer"), "woken and answered again");
    let (_, started) = child(&second, "DELEGATED: one more thing");
    assert_eq!(started.parent_id.as_ref(), Some(&main), "description derived from the prompt");
    let requests = h.requests();
    let parents = requests_of(&requests, "PARENT");
    assert_eq!(parents.len(), 2);
    let last = last_message(parents[1]);
    assert!(last.contains("<task-notification>") && last.contains("late delegated result"), "{last}");
}

#[tokio::test]
async fn a_message_to_a_running_child_steers_its_next_turn_only() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-STEER"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "while [ ! -e go ]; do sleep 0.02; done; echo released"}}]},
                {"text": "child done"}
            ]},
            {"match": {}, "turns": [{"tool_calls": [task("st", "Steered", "CHILD-STEER: work")]}, {"text": "{{last_tool_result}}"}]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "PARENT: delegate");
    let main = session.main_agent_id().clone();
    let call = wait_for_event(&mut events, WAIT, |e| e.agent_id != main && e.kind.type_name() == "tool_call")
        .await
        .expect("the child runs its command");
    let kid = call.agent_id;
    session
        .submit(Command::SendMessage { agent_id: Some(kid.clone()), text: "STEER: prefer blue".into() })
        .expect("steer the child");
    std::fs::write(h.path("go"), "").expect("release the child");
    let rest = until_finished(&mut events, &main).await;
    assert_eq!(finished_of(&rest, &main).1.result, "child done");
    let requests = h.requests();
    let kids = requests_of(&requests, "CHILD-STEER");
    assert_eq!(kids.len(), 2);
    assert!(last_message(kids[1]).contains("STEER: prefer blue"), "in the child's next request");
    assert!(!last_message(kids[0]).contains("prefer blue"));
    assert!(
        requests_of(&requests, "PARENT").iter().all(|r| !r.body.to_string().contains("prefer blue")),
        "not the parent's"
    );
    assert!(
        session.submit(Command::SendMessage { agent_id: Some(kid), text: "too late".into() }).is_err(),
        "a finished child takes no message"
    );
}

#[tokio::test]
async fn a_delegated_child_still_runs_under_a_main_agent_that_was_stopped() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "DELEGATED"}, "turns": [{"text": "delegated after the stop"}]},
            {"match": {}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "sleep 5"}}]},
                {"text": "main read: the delegated result"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "PARENT: work");
    let main = session.main_agent_id().clone();
    wait_for_event(&mut events, WAIT, |e| e.kind.type_name() == "tool_call").await.expect("running");
    session.submit(Command::Cancel { agent_id: main.clone() }).expect("stop main");
    let stopped = until_finished(&mut events, &main).await;
    assert_eq!(finished_of(&stopped, &main).1.status, AgentStatus::Cancelled);
    let kid = delegate(
        &session,
        DelegateRequest {
            parent_id: main.clone(),
            prompt: "DELEGATED: after the stop".into(),
            description: Some("After stop".into()),
            subagent_type: None,
            model: None,
            max_turns: None,
            tools: None,
            permission_mode: None,
            sandbox: None,
            isolation: None,
            budget: None,
        },
    )
    .expect("delegate");
    let rest = until_finished(&mut events, &main).await;
    let (_, f) = finished_of(&rest, &kid);
    assert_eq!(f.status, AgentStatus::Completed, "the new child is not born stopped");
    assert_eq!(f.result, "delegated after the stop");
    assert_eq!(finished_of(&rest, &main).1.result, "main read: the delegated result", "main was woken with it");
}

#[tokio::test]
async fn task_output_reports_a_failed_and_a_stopped_background_child() {
    let ids = predicted_ids(SEED, 2);
    let (failing, stopped) = (ids[1].to_string(), ids[2].to_string());
    let sleep = unique_sleep();
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-FAIL"}, "turns": [{"status": 400}]},
            {"match": {"first_user_contains": "CHILD-STOPPED"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": sleep}}]},
                {"text": "never"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [{"name": "Task", "input": {"description": "Failing", "prompt": "CHILD-FAIL", "run_in_background": true}}]},
                {"tool_calls": [{"name": "Task", "input": {"description": "Stopped", "prompt": "CHILD-STOPPED", "run_in_background": true}}]},
                {"tool_calls": [
                    {"id": "o_failed", "name": "TaskOutput", "input": {"task_id": failing}},
                    {"id": "o_stopped", "name": "TaskOutput", "input": {"task_id": stopped}}
                ]},
                {"text": "reported"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let (session, mut events) = h.start(h.config(), "PARENT: two background children");
    let mut seen = Vec::new();
    until_processes(&sleep, 1).await;
    let stopped_id = AgentId(stopped.clone());
    assert_eq!(session.status(&stopped_id), Some(AgentStatus::Running), "the id prediction holds");
    session.submit(Command::Cancel { agent_id: stopped_id }).expect("stop the child");
    seen.extend(until_finished(&mut events, session.main_agent_id()).await);
    let (out, is_error, _) = output_of(&seen, "o_failed");
    assert!(is_error && out.starts_with("Subagent error: ") && out.contains("failed"), "{out}");
    let (out, is_error, _) = output_of(&seen, "o_stopped");
    assert_eq!((out.as_str(), is_error), ("Subagent error: stopped by the user", true));
    assert_eq!(finished_of(&seen, session.main_agent_id()).1.result, "reported");
}

#[tokio::test]
async fn delegations_and_messages_that_cannot_be_delivered_are_refused_with_typed_errors() {
    let h = Harness::new(json!({"rules": [{"match": {}, "turns": [{"text": "hi"}]}]}), Api::Anthropic).await;
    let (session, mut events) = h.start(h.config(), "PARENT: hi");
    let main = session.main_agent_id().clone();
    until_finished(&mut events, &main).await;
    let request = |parent_id: AgentId, subagent_type: Option<&str>| DelegateRequest {
        parent_id,
        prompt: "DELEGATED: x".into(),
        description: None,
        subagent_type: subagent_type.map(str::to_string),
        model: None,
        max_turns: None,
        tools: None,
        permission_mode: None,
        sandbox: None,
        isolation: None,
        budget: None,
    };
    let unknown = AgentId("agent-0000dead".into());
    // SpawnError is not exported from arbor_core, so its variants are matched by text here.
    match delegate(&session, request(unknown.clone(), None)) {
        Err(SessionError::Spawn(e)) => assert_eq!(e.to_string(), "no agent agent-0000dead in this session"),
        other => panic!("{other:?}"),
    }
    match delegate(&session, request(main.clone(), Some("nope"))) {
        Err(SessionError::Spawn(e)) => {
            assert_eq!(e.to_string(), "Unknown agent type \"nope\". Available: general-purpose");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        session.submit(Command::SendMessage { agent_id: Some(unknown), text: "x".into() }),
        Err(SessionError::UnknownAgent(_))
    ));
    assert_eq!(session.agents().len(), 1, "nothing was spawned");
}

/// The child's model answers "child saw the notice" once the notice is in its last message.
fn nested_background(grand_delay_ms: u64) -> serde_json::Value {
    json!({"rules": [
        {"match": {"first_user_contains": "GRAND-BG"}, "turns": [{"text": "grand result", "delay_ms": grand_delay_ms}]},
        {"match": {"first_user_contains": "CHILD-C", "last_user_contains": "<task-notification>"}, "repeat_last": true,
         "turns": [{"text": "child saw the notice"}]},
        {"match": {"first_user_contains": "CHILD-C"}, "turns": [
            {"tool_calls": [{"name": "Task", "input": {"description": "Grand bg", "prompt": "GRAND-BG", "run_in_background": true}}]},
            {"text": "child waits"}
        ]},
        {"match": {}, "turns": [{"tool_calls": [task("fg", "Child", "CHILD-C: start one in the background")]}, {"text": "{{last_tool_result}}"}]}
    ]})
}

#[tokio::test]
async fn a_child_returns_only_after_its_own_background_child_even_with_one_slot() {
    // One slot: the child lends it to its background child during the Task call and
    // gets it back when that one ends, so the notice joins the Task's result.
    // Two slots and a slow grandchild: the child answers, waits (slot released), is woken.
    for (slots, grand_delay_ms, child_requests) in [(1, 0, 2), (2, 200, 3)] {
        let h = Harness::new(nested_background(grand_delay_ms), Api::Anthropic).await;
        let mut config = h.config();
        config.limits.max_depth = 2;
        config.limits.max_parallel = slots;
        let run = h.run_with(config, "PARENT: nest in the background").await;
        assert_eq!(run.finished().result, "child saw the notice", "{slots} slot(s): the child saw its child's result");
        let (c, _) = child(&run.events, "Child");
        let (g, g_started) = child(&run.events, "Grand bg");
        assert_eq!((g_started.parent_id.as_ref(), g_started.depth, g_started.background), (Some(&c), 2, true));
        assert!(
            run.events
                .iter()
                .any(|e| e.agent_id == c && matches!(&e.kind, EventKind::TaskNotification(n) if n.task_id == g))
        );
        let kid = requests_of(&run.requests, "CHILD-C");
        assert_eq!(kid.len(), child_requests, "{slots} slot(s)");
        let last = last_message(kid[child_requests - 1]);
        assert!(last.contains("<task-notification>") && last.contains("grand result"), "{last}");
        assert!(
            requests_of(&run.requests, "PARENT").iter().all(|r| !r.body.to_string().contains("grand result")),
            "the grandchild's result reaches its own parent only"
        );
        assert!(finished_of(&run.events, &g).0 < finished_of(&run.events, &c).0);
    }
}
