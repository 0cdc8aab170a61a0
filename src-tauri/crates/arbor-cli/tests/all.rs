//! The `arbor` binary as a user or a script drives it, against the scripted
//! model server: live view, `--json`, approvals on stdin, exit codes, the demo.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use arbor_testkit::{Scenario, ScriptedServer};
use serde_json::Value;
use std::path::Path;
use std::process::{Output, Stdio};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

struct Cli {
    server: ScriptedServer,
    workspace: tempfile::TempDir,
    data: tempfile::TempDir,
}

impl Cli {
    async fn new() -> Self {
        let server = ScriptedServer::start(Scenario::load("tools_tour").unwrap()).await.unwrap();
        Self { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() }
    }

    /// `arbor` with a clean environment pointing at the scripted server.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_arbor"));
        c.args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.data.path())
            .env("NO_COLOR", "1")
            .env("ARBOR_DATA_DIR", self.data.path())
            .env("ANTHROPIC_API_KEY", "sk-test-secret-key")
            .env("ANTHROPIC_BASE_URL", self.server.anthropic_base_url())
            .current_dir(self.workspace.path())
            .stdin(Stdio::null())
            .kill_on_drop(true);
        c
    }

    async fn run(&self, args: &[&str]) -> Output {
        tokio::time::timeout(std::time::Duration::from_secs(60), self.cmd(args).output())
            .await
            .expect("arbor finished")
            .unwrap()
    }

    fn file(&self, rel: &str) -> Option<String> {
        std::fs::read_to_string(self.workspace.path().join(rel)).ok()
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[tokio::test]
async fn run_streams_a_reply_and_executes_every_builtin_tool() {
    let cli = Cli::new().await;
    let out = cli.run(&["run", "--approve", "all", "please", "tour the tools"]).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "exit {:?}\n{stdout}\n{}", out.status, text(&out.stderr));
    assert_eq!(cli.file("hello.txt").as_deref(), Some("hello arbor\nsecond line\n"));
    assert!(stdout.contains("HELLO ARBOR"), "Bash output shown:\n{stdout}");
    assert!(stdout.contains("All six tools worked"));
    for tool in ["Write", "Read", "Edit", "Glob", "Grep", "Bash"] {
        assert!(stdout.contains(&format!("⚙ {tool}")), "{tool} call shown:\n{stdout}");
    }
    let id = stdout.lines().find_map(|l| l.strip_prefix('[').and_then(|l| l.split(']').next())).expect("an agent line");
    assert!(arbor_protocol::AgentId::is_valid(id));
    assert!(stdout.contains("\ncommands: sandboxed (workspace, bubblewrap"), "what holds commands is said:\n{stdout}");
    let header = |l: &str| ["session ", "tokens:", "commands:"].iter().any(|p| l.starts_with(p));
    for line in stdout.lines().filter(|l| !l.is_empty() && !header(l)) {
        assert!(line.starts_with(&format!("[{id}] ")), "every event line names its agent: {line:?}");
    }
    assert!(!stdout.contains('\u{1b}'), "NO_COLOR means no escape codes");
    let log = std::fs::read_to_string(cli.data.path().join("arbor.log")).unwrap();
    assert!(log.contains("agent finished"), "logs go to the data dir");
    assert!(!log.contains("sk-test-secret-key") && !stdout.contains("sk-test-secret-key"), "the key is never written");
}

#[tokio::test]
async fn json_mode_prints_exactly_one_event_per_line() {
    let cli = Cli::new().await;
    let out = cli.run(&["run", "--json", "--approve", "all", "tour the tools"]).await;
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let events: Vec<Value> = stdout.lines().map(|l| serde_json::from_str(l).expect("each line is JSON")).collect();
    assert!(events.len() > 20);
    for (i, e) in events.iter().enumerate() {
        assert!(e["type"].is_string() && e["agent_id"].is_string() && e["session_id"].is_string(), "{e}");
        assert_eq!(e["seq"].as_u64(), Some(i as u64 + 1));
    }
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    for t in [
        "agent_started",
        "agent_status",
        "response_chunk",
        "response",
        "tool_call",
        "tool_output_chunk",
        "tool_output",
        "usage",
    ] {
        assert!(types.contains(&t), "{t} missing");
    }
    assert_eq!(*types.last().unwrap(), "agent_finished");
}

#[tokio::test]
async fn json_mode_takes_approvals_on_stdin() {
    let cli = Cli::new().await;
    let mut child = cli
        .cmd(&["run", "--json", "--approve", "ask", "two writes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answers = vec![true, false].into_iter();
    let mut seen = Vec::new();
    let read_all = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let e: Value = serde_json::from_str(&line).unwrap();
            if e["type"] == "approval_request" {
                assert_eq!(e["agent_path"], serde_json::json!(["main"]));
                let reply = serde_json::json!({"type": "approval", "request_id": e["request_id"], "approved": answers.next().unwrap()});
                stdin.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
            }
            seen.push(e);
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), read_all).await.expect("run ends");
    assert!(child.wait().await.unwrap().success());
    assert_eq!(cli.file("a.txt").as_deref(), Some("A"));
    assert_eq!(cli.file("b.txt"), None);
    let resolved: Vec<&str> =
        seen.iter().filter(|e| e["type"] == "approval_resolved").map(|e| e["outcome"].as_str().unwrap()).collect();
    assert_eq!(resolved, vec!["approved", "denied"]);
    let broken = arbor_testkit::violations(
        &seen.iter().map(|e| serde_json::from_value(e.clone()).unwrap()).collect::<Vec<_>>(),
        true,
    );
    assert!(broken.is_empty(), "{broken:?}");
    let last = seen.last().unwrap();
    assert!(last["result"].as_str().unwrap().contains("denied by the user"), "{last}");
}

#[tokio::test]
async fn ask_without_a_terminal_or_json_denies_and_says_why() {
    let cli = Cli::new().await;
    let out = cli.run(&["run", "two writes"]).await;
    assert!(out.status.success());
    assert_eq!(cli.file("a.txt"), None);
    assert!(text(&out.stderr).contains("stdin is not a terminal"), "{}", text(&out.stderr));
}

#[tokio::test]
async fn failures_exit_non_zero_with_one_clear_line() {
    let cli = Cli::new().await;
    let out = cli.run(&["run", "--approve", "all", "to be rejected"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("failed") && err.contains("HTTP 400"), "{err}");

    let out = cli.run(&["run", "--approve", "all", "--max-turns", "2", "never stop"]).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("turn limit (2 turns)"), "{}", text(&out.stderr));

    let out = cli.run(&["run", "--bogus-flag", "x"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--bogus-flag"));

    let out = cli.run(&["run", "--workspace", "/nonexistent/place", "hi"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/nonexistent/place is not a directory"));

    let mut cmd = cli.cmd(&["run", "hi"]);
    cmd.env_remove("ANTHROPIC_API_KEY").env_remove("ANTHROPIC_BASE_URL");
    let out = cmd.output().await.unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("no model provider configured") && err.contains("demo"), "{err}");
    assert!(!err.contains("panicked"));
}

#[tokio::test]
async fn the_openai_provider_is_chosen_by_flag_and_base_url() {
    let cli = Cli::new().await;
    let mut cmd =
        cli.cmd(&["run", "--provider", "openai", "--model", "llama3.2", "--approve", "all", "tour the tools"]);
    cmd.env_remove("ANTHROPIC_API_KEY").env("OPENAI_BASE_URL", cli.server.openai_base_url()).env("OPENAI_API_KEY", "k");
    let out = cmd.output().await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("llama3.2 via openai"));
    assert!(
        cli.server.requests().iter().all(|r| r.path.ends_with("/chat/completions") && r.body["model"] == "llama3.2")
    );
}

#[tokio::test]
async fn the_demo_runs_without_a_key_and_says_it_is_scripted() {
    let cli = Cli::new().await;
    let ws = cli.workspace.path().join("demo");
    std::fs::create_dir(&ws).unwrap();
    let mut cmd = cli.cmd(&["demo", "--workspace", ws.to_str().unwrap()]);
    cmd.env_remove("ANTHROPIC_API_KEY");
    let out = cmd.output().await.unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(stdout.contains("SCRIPTED"), "{stdout}");
    assert!(stdout.contains("■ completed"));
    assert!(std::fs::read_to_string(Path::new(&ws).join("src/inventory.py")).unwrap().contains("raise ValueError"));
    assert!(Path::new(&ws).join("NOTES.md").exists());
}

/// A workspace with a Claude Code agent file (`reviewer`) and a broken one.
async fn subagent_cli() -> Cli {
    let server = ScriptedServer::start(Scenario::load("subagents_cli").unwrap()).await.unwrap();
    let cli = Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    let agents = cli.workspace.path().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews code for quality.\ntools: Read, Grep, Glob, Write\nmodel: inherit\n---\n\nYou review code and write your review to a file.\n",
    )
    .unwrap();
    std::fs::write(
        agents.join("broken.md"),
        "---\nname: broken\ndescription: Broken on purpose.\nmaxTurns: ten\n---\nbody\n",
    )
    .unwrap();
    cli
}

fn json_events(stdout: &[u8]) -> Vec<Value> {
    text(stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[tokio::test]
async fn run_shows_children_labelled_by_id_and_description_with_their_thinking_hidden() {
    let cli = subagent_cli().await;
    let out = cli.run(&["run", "--approve", "all", "delegate two"]).await;
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let child_line =
        stdout.lines().find(|l| l.contains(" Do A] ")).expect("a line labelled with the child's description");
    let label = child_line.trim_start().split(']').next().unwrap();
    assert!(label.starts_with("[agent-") && label.ends_with(" Do A"), "{child_line}");
    assert!(stdout.contains("A is done"), "{stdout}");
    assert!(stdout.contains("▶ Review code (reviewer)"), "{stdout}");
    assert!(stdout.contains("MAIN-THOUGHT"), "the main agent's thinking is shown:\n{stdout}");
    assert!(!stdout.contains("SECRET-CHILD-THOUGHT"), "a child's thinking is hidden:\n{stdout}");
    assert_eq!(cli.file("review.txt").as_deref(), Some("looks fine"));
    assert!(stderr.contains("broken.md") && stderr.contains("maxTurns"), "a bad agent file is reported:\n{stderr}");
}

#[tokio::test]
async fn a_childs_approval_names_its_agent_path_and_is_answered_on_stdin() {
    let cli = subagent_cli().await;
    let mut child = cli
        .cmd(&["run", "--json", "--approve", "ask", "delegate two"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let read_all = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let e: Value = serde_json::from_str(&line).unwrap();
            if e["type"] == "approval_request" {
                let reply = serde_json::json!({"type": "approval", "request_id": e["request_id"], "approved": true});
                stdin.write_all(format!("{reply}\n").as_bytes()).await.unwrap();
            }
            seen.push(e);
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), read_all).await.expect("run ends");
    assert!(child.wait().await.unwrap().success());
    let main = seen[0]["agent_id"].clone();
    let req = seen.iter().find(|e| e["type"] == "approval_request").expect("the reviewer asked");
    assert_eq!(req["agent_path"], serde_json::json!(["main", "Review code"]));
    assert_ne!(req["agent_id"], main, "tagged with the child's id");
    let started = seen
        .iter()
        .find(|e| e["type"] == "agent_started" && e["agent_id"] == req["agent_id"])
        .expect("the child was announced");
    assert_eq!(started["parent_id"], main);
    assert_eq!(started["subagent_type"], "reviewer");
    assert_eq!(started["depth"], 1);
    assert_eq!(cli.file("review.txt").as_deref(), Some("looks fine"));
}

#[tokio::test]
async fn limit_flags_reach_the_scheduler() {
    let cli = subagent_cli().await;
    let out = cli.run(&["run", "--json", "--approve", "all", "--max-parallel", "1", "delegate two"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events = json_events(&out.stdout);
    let main = events[0]["agent_id"].clone();
    // With one slot, the second child starts running only after the first finished.
    let order: Vec<(String, String)> = events
        .iter()
        .filter(|e| e["agent_id"] != main)
        .filter(|e| e["type"] == "agent_finished" || (e["type"] == "agent_status" && e["status"] == "running"))
        .map(|e| (e["agent_id"].as_str().unwrap().to_string(), e["type"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(order.len(), 4, "{order:?}");
    assert_eq!(order[0].0, order[1].0, "one child runs to its end before the next starts: {order:?}");
    assert_eq!(order[1].1, "agent_finished");

    let out = cli.run(&["run", "--json", "--approve", "all", "--max-depth", "0", "delegate two"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events = json_events(&out.stdout);
    assert!(!events.iter().any(|e| e["type"] == "agent_started" && e["agent_id"] != events[0]["agent_id"]));
    let outputs: Vec<&str> =
        events.iter().filter(|e| e["type"] == "tool_output").map(|e| e["content"].as_str().unwrap()).collect();
    assert_eq!(outputs, vec!["subagent depth limit reached: do this subtask yourself"; 2]);
}

#[tokio::test]
async fn agents_lists_the_types_found_and_the_files_that_failed() {
    let cli = subagent_cli().await;
    let out = cli.run(&["agents"]).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success());
    assert!(stdout.contains("general-purpose"), "{stdout}");
    assert!(stdout.contains("reviewer  (workspace .claude/agents) Reviews code for quality."), "{stdout}");
    assert!(stdout.contains("error: ") && stdout.contains("broken.md: field `maxTurns`"), "{stdout}");
}

#[path = "suite/transcripts.rs"]
mod transcripts;

#[path = "suite/owner.rs"]
mod owner;

#[path = "suite/mcp.rs"]
mod mcp;

#[path = "suite/approvals.rs"]
mod approvals;

#[path = "suite/budgets.rs"]
mod budgets;

#[path = "suite/context.rs"]
mod context;

#[path = "suite/hooks.rs"]
mod hooks;

#[path = "suite/claude_code_hooks.rs"]
mod claude_code_hooks;

#[path = "suite/acp.rs"]
mod acp;

#[path = "suite/external.rs"]
mod external;

/// A local server on the Anthropic route takes no key: ANTHROPIC_BASE_URL alone is enough.
#[tokio::test]
async fn a_local_server_on_either_route_needs_no_key() {
    let mut scenario = Scenario::load("tools_tour").unwrap();
    scenario.keyless = true;
    let server = ScriptedServer::start(scenario).await.unwrap();
    let cli = Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    let mut cmd = cli.cmd(&["run", "--approve", "all", "tour the tools"]);
    cmd.env_remove("ANTHROPIC_API_KEY");
    let out = cmd.output().await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let requests = cli.server.requests();
    assert!(!requests.is_empty() && requests.iter().all(|r| r.header("x-api-key").is_none()));
}

/// The process exits only once its last event is stored: the store holds
/// exactly what `--json` printed, and the session is marked ended.
#[tokio::test]
async fn a_runs_last_event_is_stored_when_the_process_exits() {
    let cli = Cli::new().await;
    let out = cli.run(&["run", "--json", "--approve", "all", "tour the tools"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let printed: Vec<Value> = text(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let last = printed.last().unwrap();
    let session = arbor_protocol::SessionId(last["session_id"].as_str().unwrap().to_string());
    let store = arbor_store::Store::open(&cli.data.path().join(arbor_store::Store::FILE_NAME)).unwrap();
    assert_eq!(store.last_seq(&session).unwrap(), last["seq"].as_u64().unwrap());
    let stored = store.export(&session, None).unwrap();
    assert_eq!(stored.events.len(), printed.len());
    assert!(stored.session.ended_at.is_some(), "the writer ended the session before the process exited");
}

/// Ctrl-C stops the agents, says so in one line, and exits 130 (the shell's SIGINT convention).
#[tokio::test]
async fn ctrl_c_stops_the_run_with_one_line_and_exit_130() {
    let cli = Cli::new().await;
    let mut child = cli
        .cmd(&["run", "--json", "--approve", "ask", "two writes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    // It waits for an approval nobody gives: interrupt it there.
    let asked = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.contains("\"approval_request\"") {
                return;
            }
        }
        panic!("no approval request");
    };
    tokio::time::timeout(std::time::Duration::from_secs(30), asked).await.expect("asked");
    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let rest = async { while lines.next_line().await.unwrap().is_some() {} };
    tokio::time::timeout(std::time::Duration::from_secs(30), rest).await.expect("output ends");
    let out =
        tokio::time::timeout(std::time::Duration::from_secs(30), child.wait_with_output()).await.unwrap().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let err = text(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("stopped by Ctrl-C") && err.contains("resumed"), "{err}");
    assert_eq!(cli.file("a.txt"), None);
}

#[path = "suite/isolation.rs"]
mod isolation;
