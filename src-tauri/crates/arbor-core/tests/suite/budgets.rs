//! Budgets on subtrees (design.md §3.4b): a token budget stops its subtree
//! before a request that would pass it, counting its descendants' use; 80%
//! warns and tells the models to wrap up; a wall-clock limit stops a running
//! command; a descendants budget and the spawn-rate guard refuse spawns; a
//! person raising a budget resumes the agent it stopped.

use super::subagents::*;
use super::*;
use arbor_protocol::{
    AgentStatus, Budget, BudgetKind, BudgetOrigin, BudgetSet, BudgetWarning, CommandReply, DelegateRequest, EventKind,
};
use serde_json::json;

fn budget_sets(events: &[AgentEvent], id: &AgentId) -> Vec<BudgetSet> {
    events
        .iter()
        .filter(|e| e.agent_id == *id)
        .filter_map(|e| match &e.kind {
            EventKind::BudgetSet(b) => Some(b.clone()),
            _ => None,
        })
        .collect()
}

fn warnings(events: &[AgentEvent]) -> Vec<(AgentId, BudgetWarning)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::BudgetWarning(w) => Some((e.agent_id.clone(), w.clone())),
            _ => None,
        })
        .collect()
}

/// A turn that used `tokens` input tokens and calls Glob.
fn costly_step(tokens: u64, text: &str) -> serde_json::Value {
    json!({"text": text, "usage": {"input_tokens": tokens},
           "tool_calls": [{"name": "Glob", "input": {"pattern": "*.none"}}]})
}

#[tokio::test]
async fn a_subtree_token_budget_stops_it_before_a_request_that_would_pass_it() {
    for api in BOTH {
        // The child (budget 10,000) spends 1,000 and starts a grandchild that spends 1,000 a request:
        // its 8th request (9,000 used, ~1,000 more expected) still fits, the 9th would not.
        let grand_steps: Vec<_> = (1..=12).map(|i| costly_step(1000, &format!("GRAND step {i}"))).collect();
        let h = Harness::new(
            json!({"rules": [
                {"match": {"first_user_contains": "GRAND:"}, "turns": grand_steps},
                {"match": {"first_user_contains": "CHILD:"}, "turns": [
                    {"usage": {"input_tokens": 1000},
                     "tool_calls": [{"id": "t_grand", "name": "Task", "input": {"description": "Grand", "prompt": "GRAND: dig"}}]},
                    {"text": "child must not get here"}
                ]},
                {"match": {}, "turns": [
                    {"tool_calls": [{"id": "t_child", "name": "Task",
                                     "input": {"description": "Budgeted", "prompt": "CHILD: work", "max_tokens": 10000}}]},
                    {"text": "main goes on"}
                ]}
            ]}),
            api,
        )
        .await;
        let mut config = h.config();
        config.limits.max_depth = 2;
        config.limits.subagent_max_turns = 20;
        let run = h.run_with(config, "PARENT: budget").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: the main agent goes on");

        let (child_id, _) = child(&run.events, "Budgeted");
        let (grand_id, _) = child(&run.events, "Grand");
        let sets = budget_sets(&run.events, &child_id);
        assert_eq!(sets.len(), 1, "{api:?}");
        assert_eq!((sets[0].budget.max_tokens, sets[0].origin), (Some(10_000), BudgetOrigin::TaskCall));
        assert!(budget_sets(&run.events, &grand_id).is_empty(), "the grandchild has no budget of its own");

        let grand_requests = requests_of(&run.requests, "GRAND:");
        assert_eq!(grand_requests.len(), 8, "{api:?}: stopped before the 9th request");
        assert_eq!(requests_of(&run.requests, "CHILD:").len(), 1, "{api:?}");
        // At 80% (8,000 of 10,000) the child's budget warned, and the next request told the model.
        let warned = warnings(&run.events);
        assert_eq!(warned.len(), 2, "{api:?}: {warned:?}");
        assert_eq!(
            (&warned[0].0, warned[0].1.kind, warned[0].1.standing.exhausted),
            (&child_id, BudgetKind::Tokens, None)
        );
        assert_eq!(warned[0].1.standing.used.tokens, 8_000);
        // Then once, that it ran out: what the meter shows, though use alone is under the limit.
        assert_eq!((&warned[1].0, warned[1].1.standing.exhausted), (&child_id, Some(BudgetKind::Tokens)));
        let stored = run.session.agents().into_iter().find(|a| a.id == child_id).unwrap();
        assert_eq!(stored.usage.input_tokens, 1000);
        assert!(last_message(grand_requests[7]).contains("Budget notice"), "{api:?}");
        assert!(!last_message(grand_requests[6]).contains("Budget notice"), "{api:?}");

        for id in [&child_id, &grand_id] {
            let (_, f) = finished_of(&run.events, id);
            assert_eq!(f.status, AgentStatus::BudgetExhausted, "{api:?} {id}");
            let why = f.error.unwrap_or_default();
            assert!(why.contains(&format!("tokens budget of {child_id} ran out: 9,000 of 10,000 tokens")), "{why}");
        }
        let (out, is_error, _) = output_of(&run.events, "t_child");
        assert!(is_error, "{api:?}");
        assert!(out.starts_with("Subagent error: stopped because the tokens budget of"), "{out}");
        assert!(out.contains("9,000 of 10,000 tokens") && out.contains("status budget_exhausted"), "{out}");
        assert_eq!(run.session.agents().len(), 3);
    }
}

#[tokio::test]
async fn a_session_budget_stops_the_main_agent_and_raising_it_resumes_the_run() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            costly_step(10_000, "step one"),
            costly_step(10_000, "step two"),
            {"text": "done after the raise", "usage": {"input_tokens": 10_000}}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.budget = Budget { max_tokens: Some(25_000), ..Budget::default() };
    let (session, mut events) = h.start(config, "PARENT: spend");
    let main = session.main_agent_id().clone();
    let first = until_finished(&mut events, &main).await;
    let (_, f) = finished_of(&first, &main);
    assert_eq!(f.status, AgentStatus::BudgetExhausted);
    assert!(f.error.as_deref().unwrap_or_default().contains("20,000 of 25,000 tokens"), "{:?}", f.error);
    assert_eq!(budget_sets(&first, &main)[0].origin, BudgetOrigin::Session);
    assert_eq!(h.requests().len(), 2);

    // Raising it lets the stopped agent carry on.
    let reply = session
        .submit(Command::SetBudget {
            agent_id: main.clone(),
            budget: Budget { max_tokens: Some(45_000), ..Budget::default() },
        })
        .unwrap();
    assert_eq!(reply, CommandReply::Resumed { agent_id: main.clone() });
    let second = until_finished(&mut events, &main).await;
    let (_, f) = finished_of(&second, &main);
    assert_eq!(f.status, AgentStatus::Completed);
    let set = &budget_sets(&second, &main)[0];
    assert_eq!((set.budget.max_tokens, set.origin), (Some(45_000), BudgetOrigin::Person));
    assert_eq!(h.requests().len(), 3);
    assert!(last_message(&h.requests()[2]).contains("Your budget was raised"));
    let state = session.agents().into_iter().find(|a| a.id == main).unwrap();
    assert_eq!(state.usage.input_tokens, 30_000, "usage counts every run");

    // Raising a budget that has still no room changes it but resumes nothing.
    let reply = session
        .submit(Command::SetBudget {
            agent_id: main.clone(),
            budget: Budget { max_duration_seconds: Some(3600), ..Budget::default() },
        })
        .unwrap();
    assert_eq!(reply, CommandReply::Done, "it had completed: nothing to resume");
}

#[tokio::test]
async fn a_wall_clock_limit_stops_a_running_command_and_names_the_limit() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "SLOW:"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "sleep 30"}}]},
                {"text": "slow must not get here"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [{"id": "t_slow", "name": "Task",
                                 "input": {"description": "Slow", "prompt": "SLOW: wait", "max_duration_seconds": 1}}]},
                {"text": "main goes on"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let started = std::time::Instant::now();
    let run = h.run("PARENT: time").await;
    assert!(started.elapsed() < Duration::from_secs(15), "the 30 s command was stopped");
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let (slow, _) = child(&run.events, "Slow");
    let (_, f) = finished_of(&run.events, &slow);
    assert_eq!(f.status, AgentStatus::BudgetExhausted);
    let (out, is_error, _) = output_of(&run.events, "t_slow");
    assert!(is_error && out.contains("the duration budget of") && out.contains("of 1.0 s wall time"), "{out}");
}

#[tokio::test]
async fn a_descendants_budget_and_the_spawn_rate_guard_refuse_spawns_with_a_clear_message() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "LEAF"}, "turns": [{"text": "leaf done"}]},
            {"match": {"first_user_contains": "LIMITED:"}, "turns": [
                {"tool_calls": [
                    {"id": "l1", "name": "Task", "input": {"description": "Leaf one", "prompt": "LEAF one"}},
                    {"id": "l2", "name": "Task", "input": {"description": "Leaf two", "prompt": "LEAF two"}}
                ]},
                {"text": "limited done"}
            ]},
            {"match": {"first_user_contains": "LOOP"}, "repeat_last": true, "turns": [
                {"tool_calls": [{"name": "Task", "input": {"description": "Again", "prompt": "LEAF again"}}]}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;

    // A person delegates with room for one subagent below it.
    let mut config = h.config();
    config.limits.max_depth = 2;
    let (session, mut events) = h.start(config, "LOOP: never mind");
    session.submit(Command::Cancel { agent_id: session.main_agent_id().clone() }).unwrap();
    until_finished(&mut events, session.main_agent_id()).await;
    let limited = delegate(
        &session,
        DelegateRequest {
            parent_id: session.main_agent_id().clone(),
            prompt: "LIMITED: two leaves".into(),
            description: Some("Limited".into()),
            subagent_type: None,
            model: None,
            max_turns: None,
            tools: None,
            permission_mode: None,
            sandbox: None,
            isolation: None,
            budget: Some(Budget { max_subagents: Some(1), ..Budget::default() }),
        },
    )
    .unwrap();
    let evs = until_finished(&mut events, &limited).await;
    assert_eq!(budget_sets(&evs, &limited)[0].origin, BudgetOrigin::Delegation);
    let outs: Vec<(String, bool)> = ["l1", "l2"].iter().map(|c| output_of(&evs, c)).map(|(o, e, _)| (o, e)).collect();
    assert_eq!(outs.iter().filter(|(_, e)| !e).count(), 1, "one leaf ran: {outs:?}");
    let refused = &outs.iter().find(|(_, e)| *e).unwrap().0;
    assert!(refused.contains("allows 1 subagents below it, and 1 have been started"), "{refused}");
    // Its one subagent started, the limit is reached: no wrap-up, only no more subagents.
    let second = requests_of(&h.requests(), "LIMITED:")[1].clone();
    let said = last_message(&second);
    assert!(said.contains("Start no new subagents") && !said.contains("Wrap up"), "{said}");
    session.shutdown();

    // A model that spawns in a loop is held to the rate.
    let mut config = h.config();
    config.limits.max_spawns_per_minute = 3;
    config.limits.max_subagents = 50;
    config.main_agent.max_turns = 6;
    let run = h.run_with(config, "LOOP: spawn forever").await;
    assert_eq!(run.finished().status, AgentStatus::MaxTurns);
    assert_eq!(children(&run.events).len(), 3, "three spawned in the minute, no more");
    let outs = run.outputs();
    assert_eq!(outs.len(), 6);
    for (out, is_error) in &outs[3..] {
        assert!(*is_error && out.contains("spawn-rate guard allows 3 new subagents a minute"), "{out}");
    }
}
