//! Tests of the Bash tool, kept apart so bash.rs stays readable.

use super::*;
use crate::tools::test_ctx;
use serde_json::json;
use std::time::Instant;

async fn bash(dir: &Path, input: Value) -> ToolResult {
    BashTool::default().call(input, &test_ctx(dir)).await
}

/// Whether `pid` is gone; a zombie counts, as nothing may reap orphans in a container.
fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(") ").next().is_some_and(|rest| rest.starts_with('Z')),
    }
}

async fn wait_dead(pid: u32) -> bool {
    for _ in 0..100 {
        if is_dead(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

async fn read_pid(path: &Path) -> u32 {
    for _ in 0..250 {
        if let Ok(s) = std::fs::read_to_string(path)
            && let Ok(pid) = s.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{} was never written", path.display());
}

#[tokio::test]
async fn runs_in_the_workspace_root() {
    let dir = tempfile::tempdir().unwrap();
    let r = bash(dir.path(), json!({"command": "echo hello; pwd", "description": "Prints"})).await;
    assert!(!r.is_error, "{}", r.content);
    let root = dir.path().canonicalize().unwrap();
    assert_eq!(r.content, format!("hello\n{}", root.display()));
    let r = bash(dir.path(), json!({"command": "true"})).await;
    assert_eq!(r.content, "(no output)");
    // stdin is closed, so a command reading it ends at once.
    let r = bash(dir.path(), json!({"command": "cat; echo done"})).await;
    assert_eq!(r.content, "done");
}

#[tokio::test]
async fn non_zero_exit_is_an_error_with_its_code() {
    let dir = tempfile::tempdir().unwrap();
    let r = bash(dir.path(), json!({"command": "echo out; echo err >&2; exit 3"})).await;
    assert!(r.is_error);
    assert!(r.content.contains("out\n"), "{}", r.content);
    assert!(r.content.contains("err\n"), "{}", r.content);
    assert!(r.content.ends_with("\nExit code 3"), "{}", r.content);
    let r = bash(dir.path(), json!({"command": "exit 1"})).await;
    assert_eq!(r.content, "Exit code 1");
    let r = bash(dir.path(), json!({"timeout": 5})).await;
    assert!(r.is_error);
    assert!(r.content.contains("command"), "{}", r.content);
}

#[tokio::test]
async fn output_is_streamed_as_it_comes() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let ctx = ToolContext { chunks: Some(tx), ..test_ctx(dir.path()) };
    let input = json!({"command": "echo one; sleep 0.3; echo two >&2; sleep 0.2; printf 'caf\\303'; printf '\\251'"});
    let r = BashTool::default().call(input, &ctx).await;
    assert_eq!(r.content, "one\ntwo\ncafé");
    let mut chunks = Vec::new();
    while let Ok(c) = rx.try_recv() {
        chunks.push(c);
    }
    assert!(chunks.len() >= 2, "{chunks:?}");
    assert_eq!(chunks[0], "one\n");
    assert_eq!(chunks.concat(), "one\ntwo\ncafé");
}

#[tokio::test]
async fn timeout_kills_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let r = bash(dir.path(), json!({"command": "echo started; sleep 30", "timeout": 300})).await;
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(r.is_error);
    assert_eq!(r.content, "started\nCommand timed out after 300 ms");
}

#[tokio::test]
async fn cancel_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = test_ctx(dir.path());
    let cancel = ctx.cancel.clone();
    let command = "sleep 60 & echo $! > bg.pid; echo $$ > shell.pid; sleep 60";
    let run = tokio::spawn(async move { BashTool::default().call(json!({"command": command}), &ctx).await });
    let bg = read_pid(&dir.path().join("bg.pid")).await;
    let shell = read_pid(&dir.path().join("shell.pid")).await;
    assert!(!is_dead(bg) && !is_dead(shell));
    let start = Instant::now();
    cancel.cancel();
    let r = run.await.unwrap();
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(r.is_error);
    assert_eq!(r.content, "Command cancelled");
    assert!(wait_dead(shell).await, "shell {shell} survived");
    assert!(wait_dead(bg).await, "background sleep {bg} survived");
}

#[tokio::test]
async fn dropping_the_call_kills_the_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let c = test_ctx(dir.path());
    let input = json!({"command": "sleep 60 & echo $! > bg.pid; sleep 60"});
    let tool = BashTool::default();
    let call = tool.call(input, &c);
    let pidfile = dir.path().join("bg.pid");
    let abandoned = tokio::time::timeout(Duration::from_secs(10), async {
        tokio::pin!(call);
        tokio::select! {
            _ = &mut call => {}
            pid = read_pid(&pidfile) => return Some(pid),
        }
        None
    })
    .await
    .unwrap();
    let bg = abandoned.unwrap();
    assert!(wait_dead(bg).await, "background sleep {bg} survived");
}

#[tokio::test]
async fn background_processes_holding_the_pipes_do_not_block() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let r = bash(dir.path(), json!({"command": "sleep 30 & echo $! > bg.pid; echo done"})).await;
    assert!(start.elapsed() < Duration::from_secs(10), "{:?}", start.elapsed());
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(r.content, "done");
    let bg = read_pid(&dir.path().join("bg.pid")).await;
    assert!(wait_dead(bg).await, "background sleep {bg} survived");
}

#[tokio::test]
async fn api_keys_are_removed_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), std::env::var_os("PATH").unwrap()),
        ("ANTHROPIC_API_KEY".into(), "sk-ant".into()),
        ("OPENAI_API_KEY".into(), "sk-oai".into()),
        ("FOO_API_KEY".into(), "foo".into()),
        ("ARBOR_VISIBLE".into(), "yes".into()),
    ];
    let command = "env | grep -i api_key; echo visible=$ARBOR_VISIBLE";
    let r = BashTool::default().run(command, 5_000, &test_ctx(dir.path()), env).await;
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(r.content, "visible=yes");
    assert!(is_secret(OsStr::new("ANTHROPIC_API_KEY")));
    assert!(is_secret(OsStr::new("my_api_key")));
    assert!(!is_secret(OsStr::new("API_KEYS_DIR")));
    assert!(!is_secret(OsStr::new("PATH")));
    assert!(is_reach_out(OsStr::new("GH_TOKEN")) && is_reach_out(OsStr::new("AWS_SECRET_ACCESS_KEY")));
    assert!(is_reach_out(OsStr::new("SSH_AUTH_SOCK")) && !is_reach_out(OsStr::new("HOME")));
}

#[tokio::test]
async fn output_is_capped() {
    let dir = tempfile::tempdir().unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let ctx = ToolContext { chunks: Some(tx), ..test_ctx(dir.path()) };
    let tool = BashTool { max_output_chars: 100, ..BashTool::default() };
    let r = tool.call(json!({"command": "seq 1 100000"}), &ctx).await;
    assert!(!r.is_error);
    assert!(r.content.starts_with("1\n2\n3\n"));
    assert!(r.content.contains("[output truncated: 588,795 more characters not shown]"), "{}", r.content);
    let mut streamed = String::new();
    while let Ok(c) = rx.try_recv() {
        streamed.push_str(&c);
    }
    assert!(streamed.len() < 10_000, "{} chars streamed", streamed.len());
    assert!(streamed.contains("output truncated"));
}

#[test]
fn timeouts_are_clamped() {
    let t = BashTool::default();
    assert_eq!(t.timeout_ms(None), 120_000);
    assert_eq!(t.timeout_ms(Some(0.0)), 120_000);
    assert_eq!(t.timeout_ms(Some(-5.0)), 120_000);
    assert_eq!(t.timeout_ms(Some(f64::NAN)), 120_000);
    assert_eq!(t.timeout_ms(Some(5_000.0)), 5_000);
    assert_eq!(t.timeout_ms(Some(10_000_000.0)), 600_000);
}

#[test]
fn decoder_joins_characters_split_across_reads() {
    let mut d = Utf8Decoder::default();
    let bytes = "né".as_bytes();
    assert_eq!(d.decode(&bytes[..2]), "n");
    assert_eq!(d.decode(&bytes[2..]), "é");
    assert_eq!(d.decode(b"a\xffb"), "a\u{fffd}b");
    assert_eq!(d.decode(b"\xe2\x82"), "");
    assert_eq!(d.flush(), "\u{fffd}");
}
