//! Runs one hook command as Claude Code does: `sh -c` in the workspace,
//! outside the agents' sandbox (hooks are the person's own commands, trusted
//! like their shell), the event's JSON on stdin, killed with everything it
//! started when it outlives its timeout or its agent is cancelled.

use super::Hook;
use crate::process::{GroupGuard, Signal, signal_group};
use parking_lot::Mutex;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// The most of each of a hook's stdout and stderr that is kept: the rest is read and dropped.
const MAX_OUTPUT: usize = 64 * 1024;

/// How one command ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Exit {
    Code(i32),
    /// Ended by a signal, or with no code to read.
    Signalled,
    /// Still running at its timeout, and killed.
    TimedOut,
    /// Its agent was stopped meanwhile, and it was killed.
    Cancelled,
    /// It could not start (in words).
    NotStarted(String),
}

#[derive(Debug, Clone)]
pub(crate) struct Ran {
    pub exit: Exit,
    pub stdout: String,
    pub stderr: String,
    pub duration: Duration,
}

/// Runs `hook` with `input` on its stdin, in `cwd`, with exactly `env` (the front end's
/// environment less the providers' keys, and the hook's own variables).
pub(crate) async fn run(
    hook: &Hook,
    input: &[u8],
    cwd: &Path,
    env: &[(String, String)],
    cancel: &CancellationToken,
) -> Ran {
    let started = Instant::now();
    let mut cmd = tokio::process::Command::new("/bin/sh");
    cmd.arg("-c").arg(&hook.command).current_dir(cwd);
    cmd.env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Ran {
                exit: Exit::NotStarted(e.to_string()),
                stdout: String::new(),
                stderr: String::new(),
                duration: started.elapsed(),
            };
        }
    };
    let pgid = child.id();
    let mut guard = GroupGuard { pgid, armed: true };
    let stdin = child.stdin.take();
    let input = input.to_vec();
    // A hook that never reads its stdin must not hold the write (or the agent) up.
    let feed = tokio::spawn(async move {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        }
    });
    let (out_kept, err_kept) = (Arc::new(Mutex::new(Kept::default())), Arc::new(Mutex::new(Kept::default())));
    let out = tokio::spawn(drain(child.stdout.take(), out_kept.clone()));
    let err = tokio::spawn(drain(child.stderr.take(), err_kept.clone()));
    let exit = tokio::select! {
        status = child.wait() => match status.ok().and_then(|s| s.code()) {
            Some(code) => Exit::Code(code),
            None => Exit::Signalled,
        },
        _ = tokio::time::sleep(hook.timeout) => Exit::TimedOut,
        _ = cancel.cancelled() => Exit::Cancelled,
    };
    if matches!(exit, Exit::TimedOut | Exit::Cancelled) {
        signal_group(pgid, Signal::KILL);
        let _ = child.wait().await;
    } else {
        // It ended: what it left running in the background (a notifier) is its own
        // business, and holds its pipes at most PIPE_GRACE.
        guard.armed = false;
    }
    feed.abort();
    let stdout = finish(out, &out_kept).await;
    let stderr = finish(err, &err_kept).await;
    Ran { exit, stdout, stderr, duration: started.elapsed() }
}

/// How long a hook's pipes may stay open after it ended (held by what it left running).
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// What a pipe has yielded so far: the first [`MAX_OUTPUT`] bytes, and how many more.
#[derive(Default)]
struct Kept {
    bytes: Vec<u8>,
    dropped: usize,
}

/// Reads a pipe to its end into `kept` (shared, so what came is there even when the
/// reading is given up on).
async fn drain(pipe: Option<impl AsyncRead + Unpin>, kept: Arc<Mutex<Kept>>) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let mut k = kept.lock();
        let room = MAX_OUTPUT.saturating_sub(k.bytes.len()).min(n);
        k.bytes.extend_from_slice(&buf[..room]);
        k.dropped += n - room;
    }
}

/// Waits for a pipe's reader at most `PIPE_GRACE`, then gives its text.
async fn finish(reader: tokio::task::JoinHandle<()>, kept: &Mutex<Kept>) -> String {
    let abort = reader.abort_handle();
    if tokio::time::timeout(PIPE_GRACE, reader).await.is_err() {
        abort.abort();
    }
    let k = kept.lock();
    let mut text = String::from_utf8_lossy(&k.bytes).into_owned();
    if k.dropped > 0 {
        text.push_str(&format!("\n… [{} more bytes]", k.dropped));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{HookEvent, HookOrigin};

    fn hook(command: &str, timeout: Duration) -> Hook {
        let (mut hooks, _) = super::super::parse(
            &serde_json::json!({"Stop": [{"hooks": [{"type": "command", "command": command}]}]}),
            Path::new("/s.json"),
            HookOrigin::User,
        );
        let mut h = hooks.remove(0);
        h.timeout = timeout;
        assert_eq!(h.event, HookEvent::Stop);
        h
    }

    #[tokio::test]
    async fn stdin_goes_in_and_the_exit_code_stdout_and_stderr_come_back() {
        let dir = tempfile::tempdir().unwrap();
        let h = hook("cat; echo oops >&2; echo \"$X\"; exit 2", Duration::from_secs(10));
        let ran = run(&h, b"{\"a\":1}", dir.path(), &[("X".into(), "y".into())], &CancellationToken::new()).await;
        assert_eq!(ran.exit, Exit::Code(2));
        assert_eq!(ran.stdout, "{\"a\":1}y\n");
        assert_eq!(ran.stderr, "oops\n");
    }

    #[tokio::test]
    async fn a_hook_that_hangs_is_killed_at_its_timeout_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("late");
        let h = hook(&format!("(sleep 3; touch {}) & sleep 30", marker.display()), Duration::from_millis(300));
        let t = Instant::now();
        let ran = run(&h, b"", dir.path(), &[], &CancellationToken::new()).await;
        assert_eq!(ran.exit, Exit::TimedOut);
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert!(!marker.exists(), "its background child was killed with it");
    }

    #[tokio::test]
    async fn huge_output_is_kept_bounded_and_a_missing_shell_command_is_an_exit_code() {
        let dir = tempfile::tempdir().unwrap();
        let h = hook("head -c 1000000 /dev/zero | tr '\\0' x", Duration::from_secs(10));
        let ran = run(&h, b"", dir.path(), &[], &CancellationToken::new()).await;
        assert!(ran.stdout.len() < MAX_OUTPUT + 100 && ran.stdout.ends_with("more bytes]"));
        let h = hook("no-such-command-xyz", Duration::from_secs(10));
        let ran = run(&h, b"", dir.path(), &[], &CancellationToken::new()).await;
        assert_eq!(ran.exit, Exit::Code(127));
    }
}
