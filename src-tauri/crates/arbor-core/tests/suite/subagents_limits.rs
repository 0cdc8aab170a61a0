//! What bounds a child: Task's validation, turn limits (asked, defaulted,
//! clamped), failures, the depth limit and the count limit.

use super::subagents::*;
use super::*;
use arbor_protocol::{AgentStatus, EventKind};
use serde_json::json;

#[tokio::test]
async fn invalid_task_calls_are_errors_for_the_model_and_spawn_nothing() {
    for api in BOTH {
        let h = Harness::new(
            json!({"rules": [
                {"match": {"first_user_contains": "CHILD-X"}, "turns": [{"text": "must never run"}]},
                {"match": {}, "turns": [
                    {"tool_calls": [
                        {"id": "v_blank", "name": "Task", "input": {"description": "blank", "prompt": "   "}},
                        {"id": "v_missing", "name": "Task", "input": {"description": "missing"}},
                        {"id": "v_type", "name": "Task", "input": {"prompt": "CHILD-X do", "subagent_type": "x"}},
                        {"id": "v_zero", "name": "Task", "input": {"prompt": "CHILD-X do", "max_turns": 0}},
                        {"id": "v_string", "name": "Task", "input": {"prompt": "CHILD-X do", "max_turns": "3"}},
                        {"id": "v_fraction", "name": "Task", "input": {"prompt": "CHILD-X do", "max_turns": 2.5}},
                        {"id": "v_number", "name": "Task", "input": {"prompt": 42}},
                        {"id": "v_json", "name": "Task", "raw_arguments": "{\"prompt\": \"CHILD-X do"}
                    ]},
                    {"text": "gave up"}
                ]}
            ]}),
            api,
        )
        .await;
        let mut config = h.config();
        config.agent_types = vec![agent_type("reviewer", "You review.")];
        let run = h.run_with(config, "PARENT: try bad calls").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}");
        let expected = [
            ("v_blank", "prompt is missing or blank"),
            ("v_missing", "prompt is missing or blank"),
            ("v_type", "Unknown agent type \"x\". Available: general-purpose, reviewer"),
            ("v_zero", "max_turns must be an integer of at least 1 (got 0)"),
            ("v_string", "max_turns must be an integer of at least 1 (got \"3\")"),
            ("v_fraction", "max_turns must be an integer of at least 1 (got 2.5)"),
            ("v_number", "Invalid input for Task"),
            ("v_json", "Invalid arguments for Task: arguments are not valid JSON"),
        ];
        for (id, text) in expected {
            let (out, is_error, _) = output_of(&run.events, id);
            assert!(is_error && out.contains(text), "{api:?} {id}: {out}");
        }
        assert_eq!(
            output_of(&run.events, "v_type").0,
            "Unknown agent type \"x\". Available: general-purpose, reviewer"
        );
        let parent = requests_of(&run.requests, "PARENT")[1];
        assert_eq!(tool_results(parent).len(), expected.len(), "every call got its result");
        if api == Api::Anthropic {
            assert!(error_flags(parent).iter().all(|(_, e)| *e), "all marked is_error");
        }
        assert!(children(&run.events).is_empty(), "nothing was spawned");
        assert_eq!(run.session.agents().len(), 1);
        assert!(requests_of(&run.requests, "CHILD-X").is_empty());
    }
}

/// A child that never stops calling tools, each turn saying which it is.
fn looping_child(tag: &str) -> serde_json::Value {
    json!({"match": {"first_user_contains": tag}, "repeat_last": true, "turns": [
        {"text": format!("{tag} step 1"), "tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]},
        {"text": format!("{tag} step 2"), "tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]},
        {"text": format!("{tag} step 3"), "tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]},
        {"text": format!("{tag} step 4"), "tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]},
        {"text": format!("{tag} step 5+"), "tool_calls": [{"name": "Glob", "input": {"pattern": "*"}}]}
    ]})
}

#[tokio::test]
async fn children_stop_at_the_turn_limit_asked_for_defaulted_or_clamped() {
    let h = Harness::new(
        json!({"rules": [
            looping_child("CHILD-ASKED"),
            looping_child("CHILD-DEFAULT"),
            looping_child("CHILD-CLAMPED"),
            {"match": {}, "turns": [
                {"tool_calls": [
                    {"id": "t_asked", "name": "Task", "input": {"description": "asked", "prompt": "CHILD-ASKED", "max_turns": 2}},
                    {"id": "t_default", "name": "Task", "input": {"description": "default", "prompt": "CHILD-DEFAULT"}},
                    {"id": "t_clamped", "name": "Task", "input": {"description": "clamped", "prompt": "CHILD-CLAMPED", "max_turns": 50}}
                ]},
                {"text": "ok"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.limits.subagent_max_turns = 3;
    config.limits.max_turns_cap = 4;
    let run = h.run_with(config, "PARENT: loop").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    for (tag, call, description, turns) in [
        ("CHILD-ASKED", "t_asked", "asked", 2),
        ("CHILD-DEFAULT", "t_default", "default", 3),
        ("CHILD-CLAMPED", "t_clamped", "clamped", 4),
    ] {
        assert_eq!(requests_of(&run.requests, tag).len(), turns, "{tag} made exactly {turns} model requests");
        let (id, _) = child(&run.events, description);
        let (_, f) = finished_of(&run.events, &id);
        assert_eq!((f.status, f.turns), (AgentStatus::MaxTurns, turns as u32), "{tag}");
        assert_eq!(statuses(&run.events, &id).last(), Some(&AgentStatus::MaxTurns));
        let (out, is_error, _) = output_of(&run.events, call);
        assert!(!is_error, "a turn limit is not a failure: {out}");
        assert!(out.starts_with(&format!("{tag} step {turns}\n")), "its last text comes back: {out}");
        assert!(out.contains(&format!("stopped at its turn limit ({turns} turns)")), "{out}");
    }
}

#[tokio::test]
async fn a_failing_child_is_a_subagent_error_and_the_parent_goes_on() {
    for api in BOTH {
        let h = Harness::new(
            json!({"rules": [
                {"match": {"first_user_contains": "CHILD-500"}, "turns": [{"status": 500}]},
                {"match": {"first_user_contains": "CHILD-CUT"}, "turns": [
                    {"text": "This reply is long enough to be cut in the middle of its stream.", "cut_after_events": 4}
                ]},
                {"match": {"first_user_contains": "CHILD-TOOLERR"}, "turns": [
                    {"tool_calls": [{"name": "Read", "input": {"file_path": "no-such-file.txt"}}]},
                    {"text": "the file is missing, reported"}
                ]},
                {"match": {}, "turns": [
                    {"tool_calls": [
                        task("f_500", "Server error", "CHILD-500"),
                        task("f_cut", "Cut stream", "CHILD-CUT"),
                        task("f_tool", "Tool error", "CHILD-TOOLERR")
                    ]},
                    {"text": "carried on"}
                ]}
            ]}),
            api,
        )
        .await;
        let run = h.run("PARENT: three children").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: the parent goes on");
        assert_eq!(run.finished().result, "carried on");
        assert_eq!(requests_of(&run.requests, "CHILD-500").len(), 4, "retried 3 times, then given up");

        let (out, is_error, _) = output_of(&run.events, "f_500");
        assert!(is_error && out.starts_with("Subagent error: ") && out.contains("500"), "{api:?}: {out}");
        let (out, is_error, _) = output_of(&run.events, "f_cut");
        assert!(is_error && out.starts_with("Subagent error: "), "{api:?}: {out}");
        let (out, is_error, _) = output_of(&run.events, "f_tool");
        assert_eq!(
            (out.as_str(), is_error),
            ("the file is missing, reported", false),
            "a tool error is not a child failure"
        );

        for (description, status) in [
            ("Server error", AgentStatus::Failed),
            ("Cut stream", AgentStatus::Failed),
            ("Tool error", AgentStatus::Completed),
        ] {
            let (id, _) = child(&run.events, description);
            assert_eq!(finished_of(&run.events, &id).1.status, status, "{description}");
            assert_eq!(statuses(&run.events, &id).last(), Some(&status));
        }
        let parent = requests_of(&run.requests, "PARENT")[1];
        if api == Api::Anthropic {
            let flags = error_flags(parent);
            assert_eq!(
                flags,
                vec![("f_500".into(), true), ("f_cut".into(), true), ("f_tool".into(), false)],
                "is_error reaches the API"
            );
        }
    }
}

/// What a parent and a child that tries to start subagents anyway are scripted to do.
fn nesting(grandchild_turns: serde_json::Value) -> serde_json::Value {
    json!({"rules": [
        {"match": {"first_user_contains": "GRAND-G"}, "turns": grandchild_turns},
        {"match": {"first_user_contains": "CHILD-C"}, "turns": [
            {"tool_calls": [
                {"id": "c_stop", "name": "TaskStop", "input": {"task_id": "agent-0000beef"}},
                {"id": "c_task", "name": "Task", "input": {"description": "Grandchild", "prompt": "GRAND-G: dig"}}
            ]},
            {"text": "child says: {{last_tool_result}}"}
        ]},
        {"match": {}, "turns": [{"tool_calls": [task("p_task", "Child", "CHILD-C: delegate further")]}, {"text": "{{last_tool_result}}"}]}
    ]})
}

#[tokio::test]
async fn at_the_depth_limit_task_is_not_offered_and_a_call_anyway_is_refused() {
    let h = Harness::new(nesting(json!([{"text": "must never run"}])), Api::Anthropic).await;
    let run = h.run("PARENT: nest").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let parent_tools = tool_names(requests_of(&run.requests, "PARENT")[0]);
    for t in ["Task", "TaskOutput", "TaskStop", "ListAgents"] {
        assert!(parent_tools.iter().any(|n| n == t), "the main agent (depth 0 < 1) is offered {t}");
    }
    let kid = requests_of(&run.requests, "CHILD-C");
    let child_tools = tool_names(kid[0]);
    assert_eq!(child_tools, vec!["Bash", "Edit", "Glob", "Grep", "Read", "Write"], "no subagent tools at depth 1");
    let results = tool_results(kid[1]);
    assert_eq!(
        results,
        vec![
            ("c_stop".to_string(), "subagent depth limit reached: do this subtask yourself".to_string()),
            ("c_task".to_string(), "subagent depth limit reached: do this subtask yourself".to_string()),
        ]
    );
    assert!(requests_of(&run.requests, "GRAND-G").is_empty());
    assert_eq!(run.session.agents().len(), 2, "no grandchild");
}

#[tokio::test]
async fn a_raised_depth_limit_allows_a_grandchild_counted_exactly() {
    let h = Harness::new(
        nesting(json!([
            {"tool_calls": [{"id": "g_task", "name": "Task", "input": {"prompt": "GRAND-G again"}}]},
            {"text": "grandchild found: {{last_tool_result}}"}
        ])),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.limits.max_depth = 2;
    let run = h.run_with(config, "PARENT: nest").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let main = run.session.main_agent_id().clone();
    let (c, c_started) = child(&run.events, "Child");
    let (g, g_started) = child(&run.events, "Grandchild");
    assert_eq!((c_started.depth, c_started.parent_id), (1, Some(main)));
    assert_eq!((g_started.depth, g_started.parent_id.as_ref()), (2, Some(&c)));
    assert_eq!(g_started.parent_call_id.as_deref(), Some("c_task"), "the child's own Task call");
    assert!(tool_names(requests_of(&run.requests, "CHILD-C")[0]).contains(&"Task".to_string()), "depth 1 < 2");
    let g_reqs = requests_of(&run.requests, "GRAND-G");
    assert!(!tool_names(g_reqs[0]).contains(&"Task".to_string()), "depth 2 is the limit");
    assert_eq!(
        tool_results(g_reqs[1]),
        vec![("g_task".to_string(), "subagent depth limit reached: do this subtask yourself".to_string())]
    );
    assert_eq!(
        run.finished().result,
        "child says: grandchild found: subagent depth limit reached: do this subtask yourself",
        "the grandchild's text reached the child, the child's the parent"
    );
    assert!(
        output_of(&run.events, "c_stop").0.contains("No agent agent-0000beef"),
        "TaskStop exists at depth 1 now, and says what it did not find"
    );
    let agents = run.session.agents();
    assert_eq!(agents.len(), 3);
    let g_summary = agents.iter().find(|a| a.id == g).expect("grandchild in the registry");
    assert_eq!((g_summary.depth, g_summary.parent_id.as_ref()), (2, Some(&c)));
}

#[tokio::test]
async fn beyond_max_subagents_a_task_call_is_refused_and_nothing_spawned() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-"}, "turns": [{"text": "{{first_user}} done"}]},
            {"match": {}, "turns": [
                {"tool_calls": [task("m_1", "one", "CHILD-1"), task("m_2", "two", "CHILD-2")]},
                {"tool_calls": [task("m_3", "three", "CHILD-3")]},
                {"text": "{{last_tool_result}}"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.limits.max_subagents = 2;
    let run = h.run_with(config, "PARENT: three in all").await;
    assert_eq!(output_of(&run.events, "m_2").0, "CHILD-2 done");
    let (out, is_error, _) = output_of(&run.events, "m_3");
    assert!(is_error && out.starts_with("subagent limit reached"), "{out}");
    assert!(requests_of(&run.requests, "CHILD-3").is_empty());
    assert_eq!(children(&run.events).len(), 2);
    assert_eq!(run.session.agents().len(), 3);
    assert!(!run.events.iter().any(|e| matches!(&e.kind, EventKind::AgentStarted(s) if s.description == "three")));
}

#[tokio::test]
async fn a_nesting_child_lends_its_slot_so_one_slot_cannot_deadlock() {
    let h = Harness::new(nesting(json!([{"text": "grandchild done"}])), Api::Anthropic).await;
    let mut config = h.config();
    config.limits.max_depth = 2;
    config.limits.max_parallel = 1;
    let run = h.run_with(config, "PARENT: nest with one slot").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    assert_eq!(run.finished().result, "child says: grandchild done");
}
