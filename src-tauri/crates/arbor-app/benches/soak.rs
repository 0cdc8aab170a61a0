//! `cargo bench -p arbor-app --bench soak -- [--scenarios N] [--from SEED] [--jobs J]`:
//! runs N seeded soak scenarios (tests/soak) and prints the count and every
//! violation; exits 1 if there was one. `--from S --scenarios 1` replays seed S.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

#[path = "../tests/soak/mod.rs"]
mod soak;

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let scenarios = arg(&args, "--scenarios", 1000);
    let from = arg(&args, "--from", 1);
    let jobs = arg(&args, "--jobs", 4) as usize;
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build().unwrap();
    let started = std::time::Instant::now();
    let (agents, events, violations) = rt.block_on(async {
        let dir = tempfile::tempdir().unwrap();
        let mut seeds = from..from + scenarios;
        let mut running = tokio::task::JoinSet::new();
        let (mut agents, mut events, mut violations) = (0usize, 0usize, Vec::new());
        let mut finished = 0u64;
        loop {
            while running.len() < jobs
                && let Some(seed) = seeds.next()
            {
                let dir = dir.path().to_path_buf();
                running.spawn(async move { soak::run(seed, &dir).await });
            }
            let Some(done) = running.join_next().await else { break };
            let o = done.unwrap();
            finished += 1;
            if finished.is_multiple_of(500) {
                println!("soak: {finished} of {scenarios} done, {} violations so far", violations.len());
            }
            agents += o.agents;
            events += o.events;
            for v in &o.violations {
                println!("VIOLATION {v}");
            }
            violations.extend(o.violations);
        }
        (agents, events, violations)
    });
    println!(
        "soak: {scenarios} scenarios (seeds {from}..{}), {agents} agents, {events} events, {} violations, {:.0} s",
        from + scenarios - 1,
        violations.len(),
        started.elapsed().as_secs_f64()
    );
    if violations.is_empty() { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE }
}
