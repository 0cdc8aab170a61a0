//! What isolation costs, on this machine's real kernel and real git:
//! - starting `true` in the sandbox (bubblewrap) against starting it plainly;
//! - finding the changes a command made, in workspaces of 5,000, 20,000 and
//!   80,000 files (the first look, which reads every small file, and each later walk);
//! - making a subagent's worktree of a 20,000-file repository, beside `git worktree add` alone.
//!
//! Run: `cargo bench -p arbor-core --bench isolation` (prints figures; asserts nothing).
//! `-- --quick` uses fewer runs and only the 20,000-file workspace.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use arbor_core::changes::TreeScan;
use arbor_core::{Jail, SandboxPolicy, Sandboxing};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn pct(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(s: f64) -> String {
    format!("{:.2} ms", s * 1000.0)
}

/// `n` files of a few lines each, 100 per directory, and a `.gitignore`d build dir.
fn workspace(root: &Path, n: usize) {
    for i in 0..n {
        let dir = root.join(format!("src/m{:03}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("f{i}.rs")), format!("// file {i}\nfn f{i}() -> u32 {{\n    {i}\n}}\n"))
            .unwrap();
    }
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    for i in 0..1000 {
        std::fs::write(root.join(format!("target/o{i}")), "x").unwrap();
    }
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=Bench", "-c", "user.email=bench@localhost"])
        .args(args)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

fn sandbox_cost(runs: usize, rt: &tokio::runtime::Runtime) {
    let ws = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let bwrap = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join("bwrap"))
        .find(|p| p.is_file());
    let machine =
        Arc::new(Sandboxing::probe(bwrap, std::env::var_os("HOME").map(Into::into), scratch.path().into(), &[]));
    println!("sandbox: {:?}", machine.support());
    let sandboxed = Jail::new(machine.clone(), SandboxPolicy::default(), ws.path());
    let plain = Jail::none(ws.path());
    let time = |jail: &Jail| -> Vec<f64> {
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                rt.block_on(async { jail.command("/bin/sh", "true", ws.path()).unwrap().status().await.unwrap() });
                t.elapsed().as_secs_f64()
            })
            .collect()
    };
    // Warm both (page cache, the private /tmp).
    time(&sandboxed);
    time(&plain);
    let (s, p) = (time(&sandboxed), time(&plain));
    println!(
        "start `true`, {runs} runs: plain median {} p95 {}; sandboxed median {} p95 {}; added at the median {}",
        ms(median(p.clone())),
        ms(pct(p.clone(), 0.95)),
        ms(median(s.clone())),
        ms(pct(s.clone(), 0.95)),
        ms(median(s) - median(p))
    );
}

fn change_detection(sizes: &[usize], runs: usize) {
    for &n in sizes {
        let dir = tempfile::tempdir().unwrap();
        workspace(dir.path(), n);
        let t = Instant::now();
        let mut scan = TreeScan::take(dir.path());
        let first = t.elapsed().as_secs_f64();
        assert_eq!(scan.files(), n + 1, "ignored files are not tracked");
        let mut walks = Vec::new();
        for i in 0..runs {
            // What a command does: one file rewritten.
            std::fs::write(dir.path().join(format!("src/m000/f{}.rs", i % 100)), format!("changed {i}\n")).unwrap();
            let t = Instant::now();
            let found = scan.rescan();
            walks.push(t.elapsed().as_secs_f64());
            assert_eq!(found, 1);
        }
        println!(
            "changes after a command, {n} files: first look {}; each walk median {} p95 {} ({runs} runs)",
            ms(first),
            ms(median(walks.clone())),
            ms(pct(walks, 0.95))
        );
    }
}

fn worktree_creation(n: usize, runs: usize) {
    let dir = tempfile::tempdir().unwrap();
    workspace(dir.path(), n);
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "start"]);
    // An uncommitted change, as a parent's tree usually has.
    std::fs::write(dir.path().join("src/m000/f0.rs"), "edited\n").unwrap();
    let mut arbor = Vec::new();
    let mut plain = Vec::new();
    for i in 0..runs {
        let t = Instant::now();
        let wt = arbor_core::worktree::create(dir.path(), "sess-bench", &format!("agent-{i:08x}")).unwrap();
        arbor.push(t.elapsed().as_secs_f64());
        arbor_core::worktree::remove(&wt.path, &wt.parent_top, &wt.branch, false).unwrap();
        let path = dir.path().join(format!(".git/plain-{i}"));
        let t = Instant::now();
        git(dir.path(), &["worktree", "add", "-q", "-b", &format!("plain-{i}"), path.to_str().unwrap(), "HEAD"]);
        plain.push(t.elapsed().as_secs_f64());
        git(dir.path(), &["worktree", "remove", "--force", path.to_str().unwrap()]);
    }
    println!(
        "worktree of a {n}-file repository, {runs} runs: Arbor's (parent's tree with its uncommitted change) median {}; `git worktree add` alone median {}",
        ms(median(arbor)),
        ms(median(plain))
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    sandbox_cost(if quick { 30 } else { 200 }, &rt);
    let sizes: &[usize] = if quick { &[20_000] } else { &[5_000, 20_000, 80_000] };
    change_detection(sizes, if quick { 5 } else { 30 });
    worktree_creation(20_000, if quick { 2 } else { 5 });
}
