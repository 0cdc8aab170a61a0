//! `cargo bench -p arbor-app --bench import -- [--sessions N]`: how fast Claude
//! Code's transcripts import. Builds a projects folder of N sessions (default 400)
//! from the recorded fixtures (tests/fixtures/claude-code: each copy a session
//! with two subagents, or a one-turn one, under a uuid of its own), imports it into
//! a fresh store, then imports it again (nothing changed), and prints sessions and
//! events per second and the folder's size. Prints figures; asserts nothing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use arbor_app::keys::MemoryStore;
use arbor_app::{Environment, Host, HostConfig};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn copy_tree(from: &Path, to: &Path, rename: &dyn Fn(&str) -> String) -> u64 {
    std::fs::create_dir_all(to).unwrap();
    let mut bytes = 0;
    for e in std::fs::read_dir(from).unwrap() {
        let p = e.unwrap().path();
        let name = rename(p.file_name().unwrap().to_str().unwrap());
        if p.is_dir() {
            bytes += copy_tree(&p, &to.join(name), rename);
        } else {
            bytes += std::fs::copy(&p, to.join(name)).unwrap();
        }
    }
    bytes
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize =
        args.iter().position(|a| a == "--sessions").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(400);
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/claude-code/projects/-home-user-demo-project");
    let work = tempfile::tempdir().unwrap();
    let projects = work.path().join("projects");
    let mut bytes = 0;
    // Two fixture sessions per copy, in projects of 50 copies each.
    for copy in 0..n.div_ceil(2) {
        let project = projects.join(format!("-home-user-project-{}", copy / 25));
        let tag = format!("{copy:08x}");
        let rename = |name: &str| {
            name.replacen("7f3c2a10", &tag, 1).replacen("c4e8a1b2", &tag, 1).replacen("-5b6e-", "-5b6f-", 1)
        };
        bytes += copy_tree(&fixtures, &project, &rename);
    }
    let host = Host::new(HostConfig {
        env: Environment::default(),
        settings_file: None,
        config_dir: None,
        secrets: Box::new(MemoryStore::default()),
        default_workspace: work.path().to_path_buf(),
        scratch_dir: work.path().join("scratch"),
        data_dir: Some(work.path().join("data")),
    });
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let started = Instant::now();
    let first = rt.block_on(host.import_claude_code(Some(projects.clone()))).unwrap();
    let took = started.elapsed().as_secs_f64();
    let events: u64 = first.sessions.iter().map(|s| s.events).sum();
    let sessions = first.sessions.len();
    let agents: u32 = first.sessions.iter().map(|s| 1 + s.subagents).sum();
    println!(
        "import of {sessions} sessions ({agents} agents, {:.1} MB of .jsonl): {events} events in {:.2} s \
         = {:.0} sessions/s, {:.0} events/s, {:.1} MB/s; {} problems",
        bytes as f64 / 1e6,
        took,
        sessions as f64 / took,
        events as f64 / took,
        bytes as f64 / 1e6 / took,
        first.problems.len()
    );
    let started = Instant::now();
    let again = rt.block_on(host.import_claude_code(Some(projects))).unwrap();
    let unchanged = again.sessions.iter().filter(|s| s.events == 0).count();
    println!(
        "import again: {unchanged} of {} unchanged in {:.3} s",
        again.sessions.len(),
        started.elapsed().as_secs_f64()
    );
}
