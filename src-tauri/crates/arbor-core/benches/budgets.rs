//! What budget enforcement costs per model request: the check an agent makes
//! before each request, with the session's tree at 20, 200 and 2,000 agents
//! (the main agent and every child under a budget, every agent with usage),
//! checked from the deepest agent, so every budget above it is weighed.
//!
//! Run: `cargo bench -p arbor-core --bench budgets` (prints figures; asserts nothing).
//! `-- --quick` uses fewer runs.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use arbor_core::BudgetProbe;
use arbor_core::provider::{AnthropicConfig, AnthropicProvider};
use arbor_core::{Session, SessionConfig};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let runs = if quick { 2_000 } else { 20_000 };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let _guard = rt.enter();
    let dir = tempfile::tempdir().unwrap();
    println!("budget check before a model request ({runs} checks each; median, p99):");
    for agents in [20, 200, 2_000] {
        // Never called: the probe only builds the tree and checks it.
        let provider = Arc::new(
            AnthropicProvider::new(AnthropicConfig { base_url: "http://127.0.0.1:9".into(), ..Default::default() })
                .unwrap(),
        );
        let (session, _events) = Session::start(SessionConfig::new(dir.path(), "anthropic", provider, "m")).unwrap();
        let probe = BudgetProbe::new(session, agents);
        assert_eq!(probe.agents(), agents);
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            assert!(probe.check());
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        times.sort_by(f64::total_cmp);
        let p = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
        println!("  {agents:>5} agents: median {:.2} µs, p99 {:.2} µs", p(0.5), p(0.99));
    }
}
