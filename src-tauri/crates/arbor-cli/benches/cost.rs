//! `cargo bench -p arbor-cli --bench cost`: what one long task costs in billed
//! input, Arbor side by side with Claude Code (the npm CLI at a pinned
//! version, installed once into a cache directory), both against the scripted
//! model server on loopback.
//!
//! The task: the main agent reads twenty 8 KB files, one per turn through
//! `Bash`, then answers. Each client's requests are replayed through
//! Anthropic's caching rules (`arbor_testkit::cache`): billed input is
//! uncached + 1.25 × cache write + 0.1 × cache read, in estimated tokens.
//!
//! Then a fork: the main agent reads five of the files and forks a subagent
//! (`Task` with `fork: true`), whose first request should read the parent's
//! whole conversation from the cache.
//!
//! `-- --arbor-only` leaves Claude Code out; `ARBOR_BIN=…` measures another
//! `arbor` binary (an older build, for a before and after); `-- --requests`
//! prints every request's figures; `-- --window` also runs the task in a
//! 30,000-token window, where it must compact, and prints what that cost.

// A benchmark binary: its output is the report, and a failed step should stop it loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use arbor_testkit::cache::{Billed, CacheReplay};
use arbor_testkit::{RecordedRequest, Scenario, ScriptedServer};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const FILES: usize = 20;
const FILE_BYTES: usize = 8 * 1024;
const CC_VERSION: &str = "2.1.330";
const PROMPT: &str =
    "COST-READ: read notes-01.txt to notes-20.txt, one file per turn with Bash (cat), then say what they hold.";

/// The model's turn that reads notes file `i` with Bash.
fn cat(i: usize) -> Value {
    json!({ "tool_calls": [ { "name": "Bash", "input": { "command": format!("cat notes-{i:02}.txt") } } ] })
}

/// Twenty turns of `cat`, then the answer, each turn chosen by the last file read
/// (so a compacted conversation, with fewer turns in it, goes on where it was);
/// anything else a client asks (a title, a summary) gets a short text.
fn scenario() -> Scenario {
    let mut rules: Vec<Value> = (1..=FILES)
        .map(|i| {
            let next = if i == FILES { json!({ "text": "The twenty files hold the bench's notes." }) } else { cat(i + 1) };
            json!({ "match": { "last_tool_result_contains": format!("notes-{i:02}-END") }, "turns": [next], "repeat_last": true })
        })
        .collect();
    rules.push(json!({ "match": { "first_user_contains": "COST-READ" }, "turns": [cat(1)], "repeat_last": true }));
    rules.push(json!({ "match": {}, "turns": [ { "text": "ok" } ], "repeat_last": true }));
    serde_json::from_value(json!({ "name": "cost", "rules": rules })).unwrap()
}

/// The workspace: a git repository (as a person's project is, which both clients
/// describe to the model) of twenty files of 8 KB of varied lines.
fn write_files(dir: &Path) {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for i in 1..=FILES {
        let mut text = String::new();
        let mut line = 0;
        while text.len() < FILE_BYTES {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            line += 1;
            text.push_str(&format!("{i:02}.{line:03} measurement {seed:016x} within tolerance {}\n", seed % 997));
        }
        text.truncate(FILE_BYTES - 16);
        text.push_str(&format!("\nnotes-{i:02}-END\n"));
        std::fs::write(dir.join(format!("notes-{i:02}.txt")), text).unwrap();
    }
    for args in [&["init", "-q", "-b", "main"][..], &["add", "."], &["commit", "-q", "-m", "The notes"]] {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Bench")
            .env("GIT_AUTHOR_EMAIL", "bench@example.com")
            .env("GIT_COMMITTER_NAME", "Bench")
            .env("GIT_COMMITTER_EMAIL", "bench@example.com")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?} failed");
    }
}

struct Report {
    requests: Vec<Billed>,
    /// The largest request's tool count and its tools' and system prompt's estimated tokens.
    prefix: (usize, u64),
}

impl Report {
    fn of(requests: &[RecordedRequest]) -> Self {
        let mut cache = CacheReplay::default();
        let tokens = |v: Option<&Value>| v.map_or(0, |v| (v.to_string().len() as u64).div_ceil(4));
        let prefix = requests
            .iter()
            .map(|r| {
                let tools = r.body.get("tools").and_then(Value::as_array).map_or(0, Vec::len);
                (tools, tokens(r.body.get("tools")) + tokens(r.body.get("system")))
            })
            .max_by_key(|p| p.1)
            .unwrap_or_default();
        Self { requests: requests.iter().map(|r| cache.bill(&r.body)).collect(), prefix }
    }

    fn total(&self, from: usize) -> Billed {
        let mut sum = Billed::default();
        for b in self.requests.iter().skip(from) {
            sum.add(b);
        }
        sum
    }

    fn print(&self, name: &str, every: bool) -> f64 {
        let all = self.total(0);
        let later = self.total(2);
        let share = |b: &Billed| 100.0 * b.read as f64 / b.sent().max(1) as f64;
        println!(
            "{name}: {} requests; fixed prefix {} tools, about {:.1}k tokens with the system prompt",
            self.requests.len(),
            self.prefix.0,
            self.prefix.1 as f64 / 1e3
        );
        println!(
            "  input sent {:.0}k tokens: {:.0}k uncached, {:.0}k written to the cache, {:.0}k read from it",
            all.sent() as f64 / 1e3,
            all.uncached as f64 / 1e3,
            all.written as f64 / 1e3,
            all.read as f64 / 1e3
        );
        println!(
            "  read from cache: {:.0}% of all input, {:.0}% from the third request on",
            share(&all),
            share(&later)
        );
        println!("  billed input (uncached + 1.25 × written + 0.1 × read): {:.0}k tokens", all.billed() / 1e3);
        if every {
            for (i, b) in self.requests.iter().enumerate() {
                println!(
                    "    #{:>2}: {:>7} sent, {:>7} uncached, {:>7} written, {:>7} read",
                    i + 1,
                    b.sent(),
                    b.uncached,
                    b.written,
                    b.read
                );
            }
        }
        all.billed()
    }
}

/// The main agent reads five files, then forks a child that answers at once.
fn fork_scenario() -> Scenario {
    let fork = json!({ "tool_calls": [ { "name": "Task", "input": {
        "prompt": "FORK-SIDE: list the lines of the notes you read that are out of tolerance.",
        "description": "Out-of-tolerance lines", "fork": true } } ] });
    let mut rules = vec![
        json!({ "match": { "last_user_contains": "FORK-SIDE" }, "turns": [ { "text": "None are out of tolerance." } ], "repeat_last": true }),
        json!({ "match": { "last_tool_result_contains": "None are out" }, "turns": [ { "text": "Done." } ], "repeat_last": true }),
    ];
    for i in 1..=5 {
        let next = if i == 5 { fork.clone() } else { cat(i + 1) };
        rules.push(json!({ "match": { "last_tool_result_contains": format!("notes-{i:02}-END") }, "turns": [next], "repeat_last": true }));
    }
    rules.push(json!({ "match": { "first_user_contains": "COST-READ" }, "turns": [cat(1)], "repeat_last": true }));
    rules.push(json!({ "match": {}, "turns": [ { "text": "ok" } ], "repeat_last": true }));
    serde_json::from_value(json!({ "name": "cost-fork", "rules": rules })).unwrap()
}

/// What a fork child's first request reads from the cache its parent wrote.
async fn fork_first_request(bin: &Path) {
    let server = ScriptedServer::start(fork_scenario()).await.unwrap();
    let base = server.anthropic_base_url();
    let path = bin.to_path_buf();
    tokio::task::spawn_blocking(move || arbor(&path, &base, false)).await.unwrap();
    let requests = server.requests();
    let mut cache = CacheReplay::default();
    let billed: Vec<Billed> = requests.iter().map(|r| cache.bill(&r.body)).collect();
    // The fork's first request: the first with its task as the last user text.
    let first = requests.iter().position(|r| {
        let last_user = r.body["messages"].as_array().and_then(|m| m.iter().rev().find(|m| m["role"] == "user"));
        last_user.is_some_and(|m| m.to_string().contains("FORK-SIDE"))
    });
    match first {
        Some(i) => {
            let b = &billed[i];
            println!(
                "a fork child's first request (after its parent read 5 files): {} tokens sent, {:.0}% read from the cache, \
                 billed {:.1}k",
                b.sent(),
                100.0 * b.read as f64 / b.sent().max(1) as f64,
                b.billed() / 1e3
            );
        }
        None => println!("a fork child's first request: none was sent (this build cannot fork)"),
    }
    server.shutdown().await;
}

/// Runs `arbor run` on the task; with `--json`, its events (one per line).
fn arbor(bin: &Path, base_url: &str, json: bool) -> String {
    let workspace = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    write_files(workspace.path());
    let mut args = vec!["run", "--approve", "all"];
    if json {
        args.push("--json");
    }
    args.push(PROMPT);
    let out = Command::new(bin)
        .args(&args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", data.path())
        .env("NO_COLOR", "1")
        .env("ARBOR_DATA_DIR", data.path())
        .env("ANTHROPIC_API_KEY", "bench")
        .env("ANTHROPIC_BASE_URL", base_url)
        .current_dir(workspace.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "arbor run failed: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The same task in a 30,000-token window (the server refuses longer requests as
/// Anthropic does): it completes, and what its compactions cost.
async fn in_a_small_window(bin: &Path, talk: bool) {
    const WINDOW: u64 = 30_000;
    let mut scenario = scenario();
    // A model that writes 6 KB with every call: clearing results cannot make room, so it summarizes.
    if talk {
        for rule in &mut scenario.rules {
            for turn in rule.turns.iter_mut().filter(|t| !t.tool_calls.is_empty()) {
                turn.text = Some("Noting what this file holds before the next one. ".repeat(120));
            }
        }
    }
    scenario.context_window = Some(WINDOW);
    // The summary request, should clearing not be enough.
    let summary: arbor_testkit::Rule = serde_json::from_value(json!({
        "match": { "system_contains": "You summarize" },
        "turns": [ { "text": "SUMMARY: the notes read so far hold measurements within tolerance." } ], "repeat_last": true
    }))
    .unwrap();
    scenario.rules.insert(0, summary);
    let server = ScriptedServer::start(scenario).await.unwrap();
    let base = server.anthropic_base_url();
    let path = bin.to_path_buf();
    let events = tokio::task::spawn_blocking(move || arbor(&path, &base, true)).await.unwrap();
    let (mut compacted, mut count, mut own) = (0u64, 0u32, 0u64);
    for line in events.lines() {
        let Ok(ev) = serde_json::from_str::<Value>(line) else { continue };
        if ev["type"] == "context_compacted" {
            count += 1;
            compacted +=
                ev["before_tokens"].as_u64().unwrap_or(0).saturating_sub(ev["after_tokens"].as_u64().unwrap_or(0));
            let u = &ev["usage"];
            own += ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]
                .iter()
                .map(|k| u[k].as_u64().unwrap_or(0))
                .sum::<u64>();
        }
    }
    let requests = server.requests();
    let refused = requests.iter().filter(|r| r.status == 400).count();
    let billed = Report::of(&requests).total(0).billed();
    println!(
        "arbor in a {WINDOW}-token window{}: completed in {} requests ({refused} refused as too long); {count} compactions took \
         {:.0}k tokens out of its context; their own model use {own} tokens ({:.0} per 100k compacted); billed input {:.0}k",
        if talk { ", the model writing 6 KB with each call" } else { "" },
        requests.len(),
        compacted as f64 / 1e3,
        own as f64 * 100_000.0 / (compacted.max(1)) as f64,
        billed / 1e3
    );
    server.shutdown().await;
}

/// Claude Code at the pinned version, installed once (as scripts/record-claude-code-fixtures.sh does).
fn claude_code() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"));
    let prefix = std::env::var_os("ARBOR_CC_PREFIX")
        .map(PathBuf::from)
        .unwrap_or_else(|| cache.join(format!("arbor/claude-code-{CC_VERSION}")));
    let claude = prefix.join("node_modules/.bin/claude");
    let version = || {
        Command::new(&claude).arg("--version").output().ok().map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    if !version().is_some_and(|v| v.starts_with(CC_VERSION)) {
        println!("(installing @anthropic-ai/claude-code@{CC_VERSION} into {})", prefix.display());
        std::fs::create_dir_all(&prefix).unwrap();
        let status = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--no-save", "--loglevel=error", "--prefix"])
            .arg(&prefix)
            .arg(format!("@anthropic-ai/claude-code@{CC_VERSION}"))
            .status()
            .unwrap();
        assert!(status.success(), "npm could not install Claude Code");
    }
    let got = version().unwrap_or_default();
    assert!(got.starts_with(CC_VERSION), "{} reports {got:?}, not {CC_VERSION}", claude.display());
    claude
}

fn claude(claude: &Path, base_url: &str) {
    let root = tempfile::tempdir().unwrap();
    let workspace = root.path().join("work");
    let home = root.path().join("home");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    write_files(&workspace);
    let out = Command::new(claude)
        // Its own tools, as a person runs it; Bash allowed, so nothing waits for an answer.
        .args(["-p", PROMPT, "--output-format", "json", "--allowedTools", "Bash"])
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env("SHELL", "/bin/bash")
        .env("TERM", "dumb")
        .env("LANG", "C.UTF-8")
        .env("TMPDIR", root.path())
        .env("ANTHROPIC_BASE_URL", base_url)
        .env("ANTHROPIC_API_KEY", "sk-ant-arbor-bench-dummy")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .current_dir(&workspace)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("\"is_error\":false"),
        "claude failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let every = args.iter().any(|a| a == "--requests");
    let arbor_only = args.iter().any(|a| a == "--arbor-only");
    let bin =
        std::env::var_os("ARBOR_BIN").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_arbor")));
    println!("task: read {FILES} files of {} KB, one per turn through Bash, then answer", FILE_BYTES / 1024);
    println!("(tokens estimated as a block's JSON text over four, the same for both clients)");

    let server = ScriptedServer::start(scenario()).await.unwrap();
    let base = server.anthropic_base_url();
    let path = bin.clone();
    tokio::task::spawn_blocking(move || arbor(&path, &base, false)).await.unwrap();
    let ours = Report::of(&server.requests())
        .print(&format!("arbor ({})", std::env::var("ARBOR_BIN").unwrap_or_else(|_| "this build".into())), every);
    server.shutdown().await;
    fork_first_request(&bin).await;
    if args.iter().any(|a| a == "--window") {
        in_a_small_window(&bin, false).await;
        in_a_small_window(&bin, true).await;
    }
    if arbor_only {
        return;
    }

    let server = ScriptedServer::start(scenario()).await.unwrap();
    let base = server.anthropic_base_url();
    let cc = claude_code();
    tokio::task::spawn_blocking(move || claude(&cc, &base)).await.unwrap();
    let theirs = Report::of(&server.requests()).print(&format!("Claude Code {CC_VERSION}"), every);
    server.shutdown().await;
    println!("arbor's billed input is {:.2} × Claude Code's", ours / theirs.max(1.0));
}
