//! The protocol's integration tests: the shared fixture of event logs that the
//! UI's reducer is checked against too (ui/src/store/fixtures.test.ts).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use arbor_protocol::{AgentEvent, AgentId, AgentStates, StoredAgent, Usage};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Deserialize)]
struct Expected {
    agents: Vec<StoredAgent>,
    subtree_usage: BTreeMap<AgentId, Usage>,
}

fn fixtures() -> Vec<(String, Vec<AgentEvent>, Expected)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/agent_states");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_str()?.strip_suffix(".events.jsonl").map(str::to_string))
        .collect();
    names.sort();
    assert!(names.len() >= 3, "the fixture holds its logs");
    names
        .into_iter()
        .map(|name| {
            let log = std::fs::read_to_string(dir.join(format!("{name}.events.jsonl"))).unwrap();
            let events = log.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
            let expected = std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap();
            (name, events, serde_json::from_str(&expected).unwrap())
        })
        .collect()
}

/// Costs are sums of floats: equal within a rounding error.
fn same_usage(a: &Usage, b: &Usage) -> bool {
    let cost = match (a.cost_usd, b.cost_usd) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        (x, y) => x == y,
    };
    cost && Usage { cost_usd: None, ..a.clone() } == Usage { cost_usd: None, ..b.clone() }
}

#[test]
fn every_agent_is_what_its_events_left_it() {
    for (name, events, expected) in fixtures() {
        let mut states = AgentStates::default();
        for ev in &events {
            states.apply(ev);
        }
        assert_eq!(states.agents().len(), expected.agents.len(), "{name}: agents");
        for want in &expected.agents {
            let got = states.get(&want.id).unwrap_or_else(|| panic!("{name}: {} missing", want.id));
            assert!(
                same_usage(&got.usage, &want.usage),
                "{name}: {} usage {:?} != {:?}",
                want.id,
                got.usage,
                want.usage
            );
            let strip = |a: &StoredAgent| StoredAgent { usage: Usage::default(), ..a.clone() };
            assert_eq!(strip(got), strip(want), "{name}: {}", want.id);
        }
        for (id, want) in &expected.subtree_usage {
            let got = states.subtree_usage(id);
            assert!(same_usage(&got, want), "{name}: subtree of {id}: {got:?} != {want:?}");
        }
        assert!(states.is_idle(), "{name}: every agent ends");

        // What a front end is sent: every agent's own and subtree figures, and the session's.
        let ids: Vec<AgentId> = states.agents().iter().map(|a| a.id.clone()).collect();
        let update = states.usage_update(&ids);
        assert_eq!(update.agents.len(), ids.len(), "{name}: one entry per agent");
        for entry in &update.agents {
            let own = &states.get(&entry.agent_id).expect("known").usage;
            assert!(same_usage(&entry.own.usage, own), "{name}: own usage of {}", entry.agent_id);
            let subtree = states.subtree_usage(&entry.agent_id);
            assert!(same_usage(&entry.subtree.usage, &subtree), "{name}: subtree of {}", entry.agent_id);
            assert_eq!(entry.own.tokens, own.total_tokens());
            assert_eq!(entry.subtree.tokens, subtree.total_tokens());
        }
        for (id, want) in &expected.subtree_usage {
            let got = update.agents.iter().find(|a| a.agent_id == *id).expect("in the update");
            assert!(same_usage(&got.subtree.usage, want), "{name}: update's subtree of {id}");
        }
        assert!(same_usage(&update.session.usage, &states.total_usage()), "{name}: session");
    }
}

#[test]
fn a_usage_update_names_the_touched_agents_and_those_above_them_only() {
    let (_, events, _) = fixtures().into_iter().find(|(n, _, _)| n == "cancelled_subtree").expect("fixture");
    let mut states = AgentStates::default();
    for ev in &events {
        states.apply(ev);
    }
    // The deepest agent: its parent and the main agent are above it; nothing else is.
    let deepest = states.agents().iter().max_by_key(|a| a.depth).expect("agents").clone();
    assert!(deepest.depth >= 2, "the fixture nests two levels");
    let update = states.usage_update([&deepest.id]);
    let mut named: Vec<AgentId> = update.agents.iter().map(|a| a.agent_id.clone()).collect();
    let mut want = vec![deepest.id.clone()];
    let mut cur = deepest.parent_id.clone();
    while let Some(p) = cur {
        cur = states.get(&p).and_then(|a| a.parent_id.clone());
        want.push(p);
    }
    named.sort();
    want.sort();
    assert_eq!(named, want);
    assert!(states.usage_update([&AgentId("agent-unknown".into())]).agents.is_empty(), "an unknown agent names none");
}

#[test]
fn a_log_replayed_from_the_stored_agents_ends_the_same() {
    // Resume: the agents as stored at some point, then the rest of the log.
    for (name, events, expected) in fixtures() {
        let half = events.len() / 2;
        let mut first = AgentStates::default();
        for ev in &events[..half] {
            first.apply(ev);
        }
        let mut resumed = AgentStates::from_agents(first.agents().to_vec());
        for ev in &events[half..] {
            resumed.apply(ev);
        }
        for want in &expected.agents {
            assert_eq!(resumed.get(&want.id).map(|a| a.status), Some(want.status), "{name}: {}", want.id);
        }
    }
}

/// While a call waits for a person, the session's waiting time counts on from
/// `live_wait` (overlaps with ended waits counted once); when the last wait
/// ends, it is the ended waits' union again.
#[test]
fn a_wait_in_progress_counts_as_it_passes() {
    use arbor_protocol::{
        ApprovalOutcome, ApprovalRequest, ApprovalResolved, ApprovalScope, EventKind, LiveWait, SessionId,
        TimelineBuilder, ToolCall,
    };
    let ev = |seq: u64, ts: i64, agent: &str, kind: EventKind| AgentEvent {
        agent_id: AgentId(agent.into()),
        session_id: SessionId("s".into()),
        seq,
        ts,
        kind,
    };
    let started = |agent: &str| {
        EventKind::AgentStarted(arbor_protocol::AgentStarted {
            parent_id: None,
            parent_call_id: None,
            depth: 0,
            description: agent.into(),
            subagent_type: None,
            model: "m".into(),
            provider: "p".into(),
            background: false,
            call_seq: None,
            fork: None,
            external: None,
        })
    };
    let call = |id: &str| {
        EventKind::ToolCall(ToolCall {
            call_id: id.into(),
            tool_name: "Write".into(),
            tool_args: serde_json::json!({}),
            mcp: None,
        })
    };
    let ask = |id: &str| {
        EventKind::ApprovalRequest(ApprovalRequest {
            request_id: format!("r-{id}"),
            call_id: id.into(),
            tool_name: "Write".into(),
            tool_args: serde_json::json!({}),
            agent_path: Vec::new(),
            preview: None,
            options: Vec::new(),
        })
    };
    let answer = |id: &str| {
        EventKind::ApprovalResolved(ApprovalResolved {
            request_id: format!("r-{id}"),
            outcome: ApprovalOutcome::Approved,
            scope: ApprovalScope::Once,
            decided_by: None,
            reason: None,
            rule: None,
            edit: None,
        })
    };
    let mut b = TimelineBuilder::default();
    let at = |b: &mut TimelineBuilder, seq, ts, agent: &str, kind| b.apply(&ev(seq, ts, agent, kind));
    at(&mut b, 1, 0, "a", started("a"));
    at(&mut b, 2, 0, "b", started("b"));
    at(&mut b, 3, 100, "a", call("c1"));
    at(&mut b, 4, 100, "a", ask("c1"));
    assert_eq!(b.timeline().live_wait, Some(LiveWait { since: 100, before_ms: 0 }));
    let u = b.take_update();
    assert!(u.live_wait_changed && u.live_wait == Some(LiveWait { since: 100, before_ms: 0 }), "{u:?}");
    at(&mut b, 5, 150, "b", call("c2"));
    at(&mut b, 6, 150, "b", ask("c2"));
    assert!(!b.take_update().live_wait_changed, "the longest wait still began at 100");
    // The first ends at 300; the second goes on: 200 ms ended, counted on from 300.
    at(&mut b, 7, 300, "a", answer("c1"));
    assert_eq!(b.timeline().waiting_ms, 200);
    assert_eq!(b.timeline().live_wait, Some(LiveWait { since: 150, before_ms: 50 }));
    // At 400: 50 (100..150) + 250 (150..400) = 300, the union of both waits so far.
    let w = b.timeline().live_wait.unwrap();
    assert_eq!(w.before_ms + (400 - w.since) as u64, 300);
    at(&mut b, 8, 500, "b", answer("c2"));
    assert_eq!((b.timeline().waiting_ms, b.timeline().live_wait), (400, None));
    assert!(b.take_update().live_wait_changed);
}

/// `EventKind::shapes_agent` names every event `StoredAgent::apply` reads: no other
/// event of the fixture's logs changes its agent (a front end is sent the agents
/// those events touched, and nothing else would tell it of a change).
#[test]
fn only_the_events_that_shape_an_agent_change_it() {
    for (name, events, _) in fixtures() {
        let mut states = AgentStates::default();
        for ev in &events {
            let before = states.get(&ev.agent_id).cloned();
            states.apply(ev);
            let after = states.get(&ev.agent_id).cloned();
            if !ev.kind.shapes_agent() {
                assert_eq!(before, after, "{name}: seq {} ({}) changed its agent", ev.seq, ev.kind.type_name());
            }
        }
    }
}
