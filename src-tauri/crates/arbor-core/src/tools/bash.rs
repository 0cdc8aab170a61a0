//! Bash: runs a shell command in the workspace, streaming its output as it comes.
//!
//! The command runs in the agent's OS sandbox when there is one (see
//! [`crate::sandbox`]); what the sandbox blocked is named in its result. It gets
//! its own process group so that a timeout or a cancel can kill everything it
//! started, not just the shell. API keys are removed from its environment so a
//! model cannot print one into a transcript.

use super::output::CappedText;
use super::{Preview, Tool, ToolClass, ToolContext, ToolResult, parse_input, schema_of};
use arbor_protocol::ApprovalPreview;
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::sync::mpsc;

/// Runs shell commands in the workspace.
#[derive(Debug, Clone)]
pub struct BashTool {
    /// Used when the model gives no timeout.
    pub default_timeout_ms: u64,
    /// Longer requested timeouts are cut to this.
    pub max_timeout_ms: u64,
    /// Characters of output kept (streamed, stored, shown); the rest is dropped with a
    /// note. The model is sent at most its head and tail (`agent::compact::into_context`).
    pub max_output_chars: usize,
}

impl Default for BashTool {
    fn default() -> Self {
        Self { default_timeout_ms: 120_000, max_timeout_ms: 600_000, max_output_chars: 1_000_000 }
    }
}

/// How long output still arriving after the command exits is awaited, before
/// whatever still holds the pipes open (a background process) is killed.
const DRAIN_GRACE: Duration = Duration::from_millis(100);

const DESCRIPTION: &str = "Executes a given bash command and returns its output (stdout and stderr combined).

The working directory is the workspace root for every call; shell state (cd, variables) does not persist between calls. Use paths relative to the workspace root, or `cd dir && command`.

IMPORTANT: Avoid using this tool to run `find`, `grep`, `cat`, `head`, `tail`, `sed`, `awk` or `echo` to read, search or write files. Use the dedicated tools instead: Glob to find files, Grep to search contents, Read to read files, Edit to change files, Write to create files.

Usage notes:
- Always quote file paths that contain spaces with double quotes.
- timeout is in milliseconds, up to 600000 (10 minutes); the default is 120000 (2 minutes). On timeout the command and everything it started are killed.
- Output longer than 30000 characters reaches you as its start and its end, with a note of what was left out.
- Write a clear, concise description of what the command does in 5-10 words.
- Chain dependent commands with '&&'; use ';' only when you don't care if earlier commands fail.
- stdin is closed: interactive commands (editors, `git rebase -i`, prompts) will not work; pass flags that make them non-interactive.
- The call returns when the command exits; background processes that still hold its output are then killed. Redirect a background process's output to a file (and use nohup) if it must keep running.";

#[derive(Deserialize, JsonSchema)]
struct BashInput {
    /// The command to execute
    command: String,
    /// Optional timeout in milliseconds (max 600000)
    timeout: Option<f64>,
    /// Clear, concise description of what this command does in 5-10 words, in active voice. Examples: "Lists files in current directory", "Installs package dependencies", "Shows working tree status"
    description: Option<String>,
}

#[async_trait]
impl Tool for BashTool {
    fn name(&self) -> &str {
        "Bash"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn input_schema(&self) -> Value {
        schema_of::<BashInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::Mutating
    }

    async fn preview(&self, input: &Value, ctx: &ToolContext) -> Option<Preview> {
        let input: BashInput = parse_input(self.name(), input.clone()).ok()?;
        Some(Preview::from(ApprovalPreview::Command {
            command: input.command,
            cwd: ctx.workspace.root().display().to_string(),
            description: input.description.filter(|d| !d.trim().is_empty()),
            sandbox: Some(ctx.sandbox.describe()),
        }))
    }

    fn contained(&self, ctx: &ToolContext) -> bool {
        ctx.sandbox.describe().is_enforced()
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let input: BashInput = match parse_input(self.name(), input) {
            Ok(i) => i,
            Err(r) => return r,
        };
        let timeout_ms = self.timeout_ms(input.timeout);
        tracing::debug!(command = %input.command, description = ?input.description, timeout_ms, "running Bash");
        let env: Vec<_> = std::env::vars_os().collect();
        self.run(&input.command, timeout_ms, ctx, env).await
    }
}

enum Outcome {
    Exited(io::Result<ExitStatus>),
    TimedOut,
    Cancelled,
}

impl BashTool {
    fn timeout_ms(&self, requested: Option<f64>) -> u64 {
        match requested {
            // `as` saturates, and the clamp bounds it anyway.
            Some(t) if t.is_finite() && t >= 1.0 => (t as u64).min(self.max_timeout_ms),
            _ => self.default_timeout_ms,
        }
    }

    /// Runs `command` with `env` (minus secrets) as its environment.
    async fn run(
        &self,
        command: &str,
        timeout_ms: u64,
        ctx: &ToolContext,
        env: Vec<(OsString, OsString)>,
    ) -> ToolResult {
        let root = ctx.workspace.root();
        let sandbox = ctx.sandbox.describe();
        let sandboxed = sandbox.is_enforced();
        let env = command_env(env, sandboxed);
        let spawned = match spawn(shell(), command, root, &env, ctx) {
            Err(e) if e.kind() == io::ErrorKind::NotFound && !sandbox.is_enforced() => {
                spawn("sh", command, root, &env, ctx)
            }
            other => other,
        };
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => return ToolResult::error(format!("Cannot start the shell: {e}")),
        };
        // process_group(0) made the child the leader of a group whose id is its pid.
        let pgid = child.id();
        let mut guard = crate::process::GroupGuard { pgid, armed: true };
        let (tx, mut rx) = mpsc::channel::<(usize, Vec<u8>)>(64);
        let mut readers = Vec::new();
        if let Some(out) = child.stdout.take() {
            readers.push(tokio::spawn(pump(out, 0, tx.clone())));
        }
        if let Some(err) = child.stderr.take() {
            readers.push(tokio::spawn(pump(err, 1, tx.clone())));
        }
        drop(tx);

        let mut sink = OutputSink::new(self.max_output_chars);
        let deadline = tokio::time::sleep(Duration::from_millis(timeout_ms));
        tokio::pin!(deadline);
        let mut pipes_open = true;
        let outcome = loop {
            tokio::select! {
                _ = ctx.cancel.cancelled() => break Outcome::Cancelled,
                _ = &mut deadline => break Outcome::TimedOut,
                msg = rx.recv(), if pipes_open => match msg {
                    Some((stream, bytes)) => sink.take(stream, &bytes, ctx),
                    None => pipes_open = false,
                },
                status = child.wait() => break Outcome::Exited(status),
            }
        };
        if !matches!(outcome, Outcome::Exited(_)) {
            kill_group(pgid);
            // SIGKILL cannot be ignored; the bound only guards against a process stuck in the kernel.
            let _ = tokio::time::timeout(Duration::from_secs(5), child.wait()).await;
        }
        if pipes_open && !drain(&mut rx, &mut sink, ctx).await {
            kill_group(pgid);
            drain(&mut rx, &mut sink, ctx).await;
        }
        for r in readers {
            r.abort();
        }
        guard.armed = false;
        sink.flush(ctx);
        let mut output = sink.text.finish();
        let failed = !matches!(&outcome, Outcome::Exited(Ok(s)) if s.success());
        if let Some(note) = crate::sandbox::blocked_note(&output, &sandbox, failed) {
            ctx.send_chunk(format!("\n{note}\n"));
            output = format!("{}\n{note}", output.trim_end_matches('\n'));
        }
        self.result(outcome, output, timeout_ms)
    }

    fn result(&self, outcome: Outcome, output: String, timeout_ms: u64) -> ToolResult {
        let output = output.trim_end_matches('\n');
        let with = |note: String| {
            if output.is_empty() { note } else { format!("{output}\n{note}") }
        };
        match outcome {
            Outcome::Exited(Ok(status)) if status.success() => {
                ToolResult::ok(if output.is_empty() { "(no output)" } else { output })
            }
            Outcome::Exited(Ok(status)) => ToolResult::error(with(match (status.code(), status.signal()) {
                (Some(code), _) => format!("Exit code {code}"),
                (None, Some(sig)) => format!("Killed by signal {sig}"),
                (None, None) => format!("Exited abnormally ({status})"),
            })),
            Outcome::Exited(Err(e)) => ToolResult::error(with(format!("Cannot wait for the command: {e}"))),
            Outcome::TimedOut => ToolResult::error(with(format!("Command timed out after {timeout_ms} ms"))),
            Outcome::Cancelled => ToolResult::error(with("Command cancelled".to_string())),
        }
    }
}

/// What of `env` a command may see: never an API key, and, inside the sandbox, nothing
/// that reaches outside it (credentials, agents' and buses' addresses). Shared with an
/// external agent's terminals, which run as Bash does.
pub(crate) fn command_env(env: Vec<(OsString, OsString)>, sandboxed: bool) -> Vec<(OsString, OsString)> {
    env.into_iter().filter(|(k, _)| !(is_secret(k) || (sandboxed && is_reach_out(k)))).collect()
}

/// Whether an environment variable holds an API key the command must not see.
fn is_secret(name: &OsStr) -> bool {
    name.to_string_lossy().to_ascii_uppercase().ends_with("_API_KEY")
}

/// What a sandboxed command must not get either: credentials by the usual
/// names, and the addresses of agents and buses that act outside the sandbox.
fn is_reach_out(name: &OsStr) -> bool {
    let n = name.to_string_lossy().to_ascii_uppercase();
    ["SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "GPG_AGENT_INFO", "DOCKER_HOST"].contains(&n.as_str())
        || ["_TOKEN", "_SECRET", "_SECRET_ACCESS_KEY", "_PASSWORD"].iter().any(|s| n.ends_with(s))
}

/// bash where there is one (inside the sandbox too: it sees the same /usr), else sh.
pub(crate) fn shell() -> &'static str {
    ["/bin/bash", "/usr/bin/bash"].into_iter().find(|p| Path::new(p).exists()).unwrap_or("bash")
}

fn spawn(shell: &str, command: &str, cwd: &Path, env: &[(OsString, OsString)], ctx: &ToolContext) -> io::Result<Child> {
    ctx.sandbox
        .command(shell, command, cwd)
        .map_err(io::Error::other)?
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
}

/// Forwards what one pipe yields, tagged with `stream`, until it closes.
async fn pump(mut pipe: impl AsyncRead + Unpin, stream: usize, tx: mpsc::Sender<(usize, Vec<u8>)>) {
    let mut buf = vec![0u8; 8192];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 || tx.send((stream, buf[..n].to_vec())).await.is_err() {
            break;
        }
    }
}

/// Takes output until both pipes close or the grace period ends; true if they closed.
async fn drain(rx: &mut mpsc::Receiver<(usize, Vec<u8>)>, sink: &mut OutputSink, ctx: &ToolContext) -> bool {
    let grace = tokio::time::sleep(DRAIN_GRACE);
    tokio::pin!(grace);
    loop {
        tokio::select! {
            _ = &mut grace => return false,
            msg = rx.recv() => match msg {
                Some((stream, bytes)) => sink.take(stream, &bytes, ctx),
                None => return true,
            },
        }
    }
}

fn kill_group(pgid: Option<u32>) {
    crate::process::signal_group(pgid, crate::process::Signal::KILL);
}

/// Decodes both streams and keeps and streams the combined text, up to the cap.
struct OutputSink {
    decoders: [Utf8Decoder; 2],
    text: CappedText,
    told_truncated: bool,
}

impl OutputSink {
    fn new(max_chars: usize) -> Self {
        Self {
            decoders: [Utf8Decoder::default(), Utf8Decoder::default()],
            text: CappedText::new(max_chars),
            told_truncated: false,
        }
    }

    fn take(&mut self, stream: usize, bytes: &[u8], ctx: &ToolContext) {
        let Some(decoder) = self.decoders.get_mut(stream) else {
            return;
        };
        let s = decoder.decode(bytes);
        self.push(&s, ctx);
    }

    fn flush(&mut self, ctx: &ToolContext) {
        for i in 0..self.decoders.len() {
            let s = self.decoders[i].flush();
            self.push(&s, ctx);
        }
    }

    fn push(&mut self, s: &str, ctx: &ToolContext) {
        if s.is_empty() {
            return;
        }
        // Streaming stops at the same cap: the UI keeps every chunk, and `yes` never ends.
        if !self.text.is_full() {
            ctx.send_chunk(s);
        } else if !self.told_truncated {
            self.told_truncated = true;
            ctx.send_chunk("\n… [output truncated; the rest is not shown]\n");
        }
        self.text.push(s);
    }
}

/// Decodes a byte stream as UTF-8 without splitting a character across two reads.
#[derive(Default)]
struct Utf8Decoder {
    pending: Vec<u8>,
}

impl Utf8Decoder {
    fn decode(&mut self, bytes: &[u8]) -> String {
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(bytes);
        let mut out = String::with_capacity(data.len());
        let mut rest = data.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(s);
                    return out;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    out.push_str(&String::from_utf8_lossy(valid));
                    match e.error_len() {
                        Some(bad) => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[bad..];
                        }
                        // An incomplete character at the end: its other bytes are still to come.
                        None => {
                            self.pending = after.to_vec();
                            return out;
                        }
                    }
                }
            }
        }
    }

    fn flush(&mut self) -> String {
        String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned()
    }
}

#[cfg(test)]
mod tests;
