//! `terminal/*` for an external agent: its commands run as Arbor's Bash runs a
//! model's, in the node's sandbox and working tree, without the providers' keys
//! (nor, sandboxed, what reaches outside it); their output is kept to the limit
//! the agent asked (its end, as a terminal scrolls); what they change in the tree
//! is the node's. A stopped node's terminals are killed with it.

use crate::registry::AgentSpec;
use crate::shared::Shared;
use agent_client_protocol::v1::schema as acp;
use arbor_protocol::AgentId;
use std::collections::HashMap;
use std::ffi::OsString;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncReadExt;
use tokio::sync::watch;

/// The most output a terminal keeps (what the agent asks, never more than this).
const DEFAULT_LIMIT: usize = 1024 * 1024;
/// How long what a command started may keep its pipes open after it exits.
const DRAIN_GRACE: std::time::Duration = std::time::Duration::from_secs(2);
/// Released terminals whose output a call's result may still show.
const KEPT_RELEASED: usize = 16;

/// One command's output and end.
pub(super) struct Terminal {
    output: Mutex<Output>,
    exit: watch::Receiver<Option<acp::TerminalExitStatus>>,
    pgid: Option<u32>,
}

struct Output {
    text: String,
    truncated: bool,
    limit: usize,
}

impl Output {
    /// Appends, dropping the oldest text past the limit (on a character boundary).
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        if arbor_protocol::text::keep_last(&mut self.text, self.limit) > 0 {
            self.truncated = true;
        }
    }
}

impl Terminal {
    pub(super) fn output(&self) -> acp::TerminalOutputResponse {
        let o = self.output.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        acp::TerminalOutputResponse::new(o.text.clone(), o.truncated).exit_status(self.exit.borrow().clone())
    }

    pub(super) fn text(&self) -> String {
        self.output.lock().unwrap_or_else(std::sync::PoisonError::into_inner).text.clone()
    }

    /// Waits until the command has ended.
    pub(super) async fn wait(&self) -> acp::TerminalExitStatus {
        let mut exit = self.exit.clone();
        match exit.wait_for(Option::is_some).await {
            Ok(s) => s.clone().unwrap_or_else(acp::TerminalExitStatus::new),
            Err(_) => acp::TerminalExitStatus::new(),
        }
    }

    pub(super) fn kill(&self) {
        crate::process::signal_group(self.pgid, crate::process::Signal::KILL);
    }
}

/// A node's open terminals, by id.
#[derive(Default)]
pub(super) struct Terminals {
    next: u64,
    open: HashMap<String, Arc<Terminal>>,
    /// The last output of the latest released ones (a call may show it after the release).
    released: std::collections::VecDeque<(String, String)>,
}

impl Terminals {
    pub(super) fn get(&self, id: &str) -> Option<Arc<Terminal>> {
        self.open.get(id).cloned()
    }

    pub(super) fn release(&mut self, id: &str) -> Option<Arc<Terminal>> {
        let t = self.open.remove(id)?;
        if self.released.len() >= KEPT_RELEASED {
            self.released.pop_front();
        }
        self.released.push_back((id.to_string(), t.text()));
        Some(t)
    }

    /// A terminal's output, open or released.
    pub(super) fn text_of(&self, id: &str) -> Option<String> {
        match self.open.get(id) {
            Some(t) => Some(t.text()),
            None => self.released.iter().rev().find(|(k, _)| k == id).map(|(_, text)| text.clone()),
        }
    }

    pub(super) fn kill_all(&mut self) {
        for (_, t) in self.open.drain() {
            t.kill();
        }
    }

    /// Starts `r`'s command for the node `id` of `spec`; its id, or why it could not start.
    pub(super) async fn create(
        &mut self,
        shared: &Arc<Shared>,
        id: &AgentId,
        spec: &Arc<AgentSpec>,
        r: &acp::CreateTerminalRequest,
    ) -> Result<String, agent_client_protocol::Error> {
        let invalid = |why: String| agent_client_protocol::Error::invalid_params().data(why);
        let cwd = match &r.cwd {
            Some(c) => spec.workspace.resolve(&c.to_string_lossy()).map_err(|e| invalid(e.to_string()))?,
            None => spec.workspace.root().to_path_buf(),
        };
        // A command with no arguments is a shell line (`ls -la | wc`); else each word is quoted.
        let line = if r.args.is_empty() {
            r.command.clone()
        } else {
            std::iter::once(r.command.as_str())
                .chain(r.args.iter().map(String::as_str))
                .map(quoted)
                .collect::<Vec<_>>()
                .join(" ")
        };
        let sandboxed = spec.sandbox.describe().is_enforced();
        let mut env: Vec<(OsString, OsString)> =
            shared.ctx.hook_env.iter().map(|(k, v)| (k.into(), v.into())).collect();
        env.extend(r.env.iter().map(|v| (OsString::from(&v.name), OsString::from(&v.value))));
        let env = crate::tools::command_env(env, sandboxed);
        let mut command = spec.sandbox.command(crate::tools::shell(), &line, &cwd).map_err(&invalid)?;
        // What it changes is watched from before it starts until it ends.
        let (watch_changes, found) = spec.changes.begin(id, None, None).await;
        crate::agent::emit_changes(shared, found);
        let spawned = command
            .env_clear()
            .envs(env)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                let found = spec.changes.end(watch_changes).await;
                crate::agent::emit_changes(shared, found);
                return Err(invalid(format!("cannot run `{}`: {e}", arbor_protocol::text::quote(&line, 200))));
            }
        };
        let limit =
            r.output_byte_limit.and_then(|l| usize::try_from(l).ok()).unwrap_or(DEFAULT_LIMIT).clamp(1, DEFAULT_LIMIT);
        let (tx, rx) = watch::channel(None);
        let terminal = Arc::new(Terminal {
            output: Mutex::new(Output { text: String::new(), truncated: false, limit }),
            exit: rx,
            pgid: child.id(),
        });
        let readers: Vec<_> = [
            child.stdout.take().map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
            child.stderr.take().map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
        ]
        .into_iter()
        .flatten()
        .map(|mut pipe| {
            let t = terminal.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                while let Ok(n) = pipe.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let text = String::from_utf8_lossy(&buf[..n]).into_owned();
                    t.output.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(&text);
                }
            })
        })
        .collect();
        let (shared, spec, pgid) = (shared.clone(), spec.clone(), terminal.pgid);
        tokio::spawn(async move {
            let status = child.wait().await;
            // Its end is known as it exits, whatever it started that still holds its pipes.
            let exit = match status {
                Ok(s) => {
                    use std::os::unix::process::ExitStatusExt;
                    acp::TerminalExitStatus::new()
                        .exit_code(s.code().and_then(|c| u32::try_from(c).ok()))
                        .signal(s.signal().map(|n| format!("signal {n}")))
                }
                Err(_) => acp::TerminalExitStatus::new(),
            };
            let _ = tx.send(Some(exit));
            let drained = tokio::time::timeout(DRAIN_GRACE, futures::future::join_all(readers)).await;
            if drained.is_err() {
                crate::process::signal_group(pgid, crate::process::Signal::KILL);
            }
            let found = spec.changes.end(watch_changes).await;
            crate::agent::emit_changes(&shared, found);
        });
        self.next += 1;
        let tid = format!("term-{}", self.next);
        self.open.insert(tid.clone(), terminal);
        Ok(tid)
    }
}

/// One word of a command line, quoted for the shell when it needs it.
pub(super) fn quoted(word: &str) -> String {
    let plain = !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain { word.to_string() } else { format!("'{}'", word.replace('\'', "'\\''")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_they_need_it() {
        assert_eq!(quoted("ls"), "ls");
        assert_eq!(quoted("a b"), "'a b'");
        assert_eq!(quoted("it's"), "'it'\\''s'");
        assert_eq!(quoted(""), "''");
        assert_eq!(quoted("$(rm -rf ~)"), "'$(rm -rf ~)'");
    }

    #[test]
    fn output_keeps_its_end_within_the_limit() {
        let mut o = Output { text: String::new(), truncated: false, limit: 5 };
        o.push("abc");
        o.push("défg");
        assert!(o.text.len() <= 5 && o.text.ends_with("fg") && o.truncated, "{:?}", o.text);
    }
}
