//! The soak in CI: a few hundred seeded scenarios, every contract checked after
//! each. `cargo bench -p arbor-app --bench soak -- --scenarios 10000` runs thousands.

#[path = "../soak/mod.rs"]
mod scenario;

/// How many scenarios CI runs, and how many at once.
const SCENARIOS: u64 = 200;
const AT_ONCE: usize = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn random_trees_faults_answers_and_cancels_break_no_contract() {
    let dir = tempfile::tempdir().unwrap();
    let mut seeds = 1..=SCENARIOS;
    let mut running = tokio::task::JoinSet::new();
    let mut violations = Vec::new();
    let (mut agents, mut events) = (0, 0);
    loop {
        while running.len() < AT_ONCE
            && let Some(seed) = seeds.next()
        {
            let dir = dir.path().to_path_buf();
            running.spawn(async move { scenario::run(seed, &dir).await });
        }
        let Some(done) = running.join_next().await else { break };
        let outcome = done.expect("a scenario panicked");
        agents += outcome.agents;
        events += outcome.events;
        violations.extend(outcome.violations);
    }
    assert!(agents > SCENARIOS as usize * 2, "the trees had subagents: {agents} agents");
    assert!(
        violations.is_empty(),
        "{} violations in {SCENARIOS} scenarios ({agents} agents, {events} events):\n{}",
        violations.len(),
        violations.join("\n")
    );
}
