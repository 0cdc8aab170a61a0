//! The external agent's process: started as the leader of its own process group
//! (what it starts, npx's node and the CLI under it, stops with it), spoken to in
//! JSON lines on stdin/stdout, its stderr kept (the tail) to explain a failure,
//! and stopped for good when its run ends.

use crate::definitions::AcpCommand;
use crate::process::{Signal, signal_group};
use futures::{Sink, Stream};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// The longest line taken from the agent: one JSON-RPC message.
const MAX_LINE: u64 = 16 * 1024 * 1024;
/// How much of its stderr is kept to explain a failure.
const STDERR_TAIL: usize = 4096;
/// How long it has to exit once its stdin is closed, before its group is killed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

pub(super) struct Process {
    child: Child,
    pgid: Option<u32>,
    stdio: Option<(ChildStdin, ChildStdout)>,
    stderr: Arc<Mutex<String>>,
}

/// Starts `command` in `cwd`, with `base` (the front end's environment, less the providers'
/// keys) and the command's own variables over it.
pub(super) fn spawn(
    command: &AcpCommand,
    cwd: &Path,
    base: &[(String, String)],
    jail: &crate::sandbox::Jail,
) -> Result<Process, String> {
    let mut cmd = if command.sandboxed {
        // In the agent's sandbox, as its file asked: the shell replaces itself with the program.
        let line = std::iter::once(command.command.as_str())
            .chain(command.args.iter().map(String::as_str))
            .map(super::terminal::quoted)
            .collect::<Vec<_>>()
            .join(" ");
        jail.command(crate::tools::shell(), &format!("exec {line}"), cwd)?
    } else {
        let mut c = tokio::process::Command::new(&command.command);
        c.args(&command.args).current_dir(cwd);
        c
    };
    cmd.env_clear()
        .envs(base.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .envs(&command.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|e| format!("cannot start `{}`: {e}", command.display()))?;
    let pgid = child.id();
    let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(format!("`{}` started without its standard streams", command.display()));
    };
    let tail = Arc::new(Mutex::new(String::new()));
    let kept = tail.clone();
    tokio::spawn(async move {
        // Lines of any bytes, each cut at the tail's size: a progress bar never ends its line.
        let mut reader = BufReader::new(stderr);
        loop {
            let mut line = Vec::new();
            match (&mut reader).take(STDERR_TAIL as u64).read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&line).into_owned();
            tracing::debug!(target: "arbor_core::external", "stderr: {}", line.trim_end());
            let mut t = kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            t.push_str(&line);
            arbor_protocol::text::keep_last(&mut t, STDERR_TAIL);
        }
    });
    Ok(Process { child, pgid, stdio: Some((stdin, stdout)), stderr: tail })
}

impl Process {
    /// The SDK's line transport over its stdin and stdout (taken once).
    pub(super) fn transport(
        &mut self,
    ) -> agent_client_protocol::Lines<
        impl Sink<String, Error = std::io::Error> + Send + 'static,
        impl Stream<Item = std::io::Result<String>> + Send + 'static,
    > {
        let (stdin, stdout) = match self.stdio.take() {
            Some(s) => (Some(s.0), Some(s.1)),
            None => (None, None),
        };
        let outgoing = futures::sink::unfold(stdin, async |w: Option<ChildStdin>, line: String| {
            let mut w = w.ok_or_else(|| std::io::Error::other("the agent's stdin is closed"))?;
            w.write_all(line.as_bytes()).await?;
            w.write_all(b"\n").await?;
            w.flush().await?;
            Ok::<_, std::io::Error>(Some(w))
        });
        let incoming = futures::stream::unfold(stdout.map(BufReader::new), async |r| {
            let mut r = r?;
            let mut line = Vec::new();
            let read = (&mut r).take(MAX_LINE).read_until(b'\n', &mut line).await;
            match read {
                Ok(0) => None,
                Ok(_) if line.last() != Some(&b'\n') && line.len() as u64 >= MAX_LINE => Some((
                    Err(std::io::Error::other(format!("the agent sent a line of more than {MAX_LINE} bytes"))),
                    None,
                )),
                Ok(_) => {
                    let text = String::from_utf8_lossy(&line).trim_end_matches(['\n', '\r']).to_string();
                    Some((Ok(text), Some(r)))
                }
                Err(e) => Some((Err(e), None)),
            }
        });
        agent_client_protocol::Lines::new(outgoing, incoming)
    }

    /// Ends it: a moment to exit on its own, then its whole group killed. Returns what
    /// explains an exit that was not asked for (its code and the tail of its stderr).
    pub(super) async fn stop(mut self) -> Option<String> {
        let exited = match self.child.try_wait() {
            Ok(Some(status)) => Some(status),
            _ => tokio::time::timeout(EXIT_GRACE, self.child.wait()).await.ok().and_then(Result::ok),
        };
        signal_group(self.pgid, Signal::KILL);
        let _ = self.child.kill().await;
        let tail = self.stderr.lock().unwrap_or_else(std::sync::PoisonError::into_inner).trim().to_string();
        let status = exited.map(|s| match s.code() {
            Some(c) => format!("it exited with code {c}"),
            None => "it was killed by a signal".to_string(),
        })?;
        Some(match tail.is_empty() {
            true => status,
            false => format!("{status}; its last words: {}", arbor_protocol::text::quote(&tail, 600)),
        })
    }
}
