//! `cargo bench -p arbor-cli --bench start` (or `ARBOR_BIN=target/release/arbor` to
//! measure a release build): how long `arbor run` takes from its process start to
//! its first model request, against the scripted model server on loopback (plain
//! HTTP, as a local model server is), and to its exit after a one-line answer.
//! The runs share a data directory, as a person's runs do; the first, which
//! creates the transcript store, is reported apart.

// A benchmark binary: its output is the report, and a failed step should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use arbor_testkit::{Scenario, ScriptedServer};
use serde_json::json;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let bin =
        std::env::var_os("ARBOR_BIN").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_arbor")));
    let size = std::fs::metadata(&bin).map(|m| m.len()).unwrap_or(0);
    println!("arbor binary: {} ({:.1} MB)", bin.display(), size as f64 / 1e6);
    let scenario: Scenario =
        serde_json::from_value(json!({ "name": "start", "rules": [ { "match": {}, "turns": [ { "text": "hi" } ] } ] }))
            .unwrap();
    let server = ScriptedServer::start(scenario).await.unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut first = Vec::new();
    let mut whole = Vec::new();
    for _ in 0..=RUNS {
        let before = server.requests().len();
        let mut cmd = Command::new(&bin);
        cmd.args(["run", "say hi"])
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", data.path())
            .env("NO_COLOR", "1")
            .env("ARBOR_DATA_DIR", data.path())
            .env("ANTHROPIC_API_KEY", "bench")
            .env("ANTHROPIC_BASE_URL", server.anthropic_base_url())
            .current_dir(workspace.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let t0 = Instant::now();
        let mut child = cmd.spawn().unwrap();
        while server.requests().len() == before {
            assert!(t0.elapsed() < Duration::from_secs(30), "no request within 30 s");
            std::thread::sleep(Duration::from_micros(100));
        }
        first.push(t0.elapsed().as_secs_f64() * 1000.0);
        let status = child.wait().unwrap();
        assert!(status.success(), "arbor run failed: {status}");
        whole.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    println!("the very first run (it creates the store): {:.1} ms to its first request", first.remove(0));
    whole.remove(0);
    println!(
        "process start to first model request (ms, {RUNS} runs): median {:.1}, p95 {:.1}, min {:.1}",
        pct(&mut first, 0.5),
        pct(&mut first, 0.95),
        pct(&mut first, 0.0)
    );
    println!(
        "process start to exit after a one-line answer (ms): median {:.1}, p95 {:.1}",
        pct(&mut whole, 0.5),
        pct(&mut whole, 0.95)
    );
    server.shutdown().await;
}
