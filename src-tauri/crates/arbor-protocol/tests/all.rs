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
    }
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
