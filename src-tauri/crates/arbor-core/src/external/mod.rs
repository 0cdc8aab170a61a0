//! An external ACP agent as a node of the tree (an agent type with `acp:`): Claude
//! Code, Codex or Gemini CLI run the loop, and Arbor is their ACP client (the
//! official SDK's). The node is an agent like any other to the rest of Arbor: it
//! is started, stopped and resumed through the door ([`crate::children::run`]),
//! its output is events on its id, its permission requests are approvals in the
//! one inbox, its file changes are attributed to it, and its final message is
//! its result.

mod node;
pub(crate) mod options;
mod process;
mod speaker;
mod terminal;

use crate::agent::lifecycle::{self, EndStep};
use crate::definitions::AcpCommand;
use crate::registry::{AgentSpec, RunStart};
use crate::shared::Shared;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Agent, Client, v1::ConnectionTo};
use arbor_protocol::{AgentFinished, AgentId, AgentStatus, Message, UserBlock};
use node::{Node, TerminalAsk, Turn};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

/// How long a stopped agent has to answer `session/cancel` before its process group is killed.
const CANCEL_GRACE: Duration = Duration::from_secs(3);
/// How long `initialize` and `session/new` may take (an npx download included).
const SETUP_TIMEOUT: Duration = Duration::from_secs(120);

/// Starts a run of the external agent `spec` names, on the session's runtime.
pub(crate) fn launch(shared: &Arc<Shared>, run: RunStart, command: Arc<AcpCommand>) {
    let RunStart { id, spec, history, inbox, cancel } = run;
    shared.save_history(&id, &history);
    let span = tracing::info_span!("external", session_id = %shared.ctx.id, agent_id = %id);
    let run = Run { shared: shared.clone(), id, spec, command, history, inbox, cancel };
    shared.ctx.runtime.spawn(run.run().instrument(span));
}

struct Run {
    shared: Arc<Shared>,
    id: AgentId,
    spec: Arc<AgentSpec>,
    command: Arc<AcpCommand>,
    history: Vec<Message>,
    inbox: mpsc::UnboundedReceiver<crate::registry::Inbound>,
    cancel: CancellationToken,
}

impl Run {
    async fn run(mut self) {
        let started = Instant::now();
        let slot = match &self.spec.scheduled.then(|| self.shared.ctx.slots.clone()) {
            Some(slots) => tokio::select! {
                biased;
                _ = self.cancel.cancelled() => None,
                permit = slots.clone().acquire_owned() => permit.ok().map(Some),
            },
            None => Some(None),
        };
        let mut outcome = match slot {
            Some(_) => {
                self.shared.set_status(&self.id, AgentStatus::Running);
                // Isolated: it works in a worktree of its own, its session started there.
                match crate::agent::ensure_worktree(&self.shared, &self.id, &mut self.spec, &mut self.history).await {
                    Ok(()) => self.converse().await,
                    Err(e) => Outcome::ended(AgentStatus::Failed, Some(e)),
                }
            }
            None => Outcome::ended(AgentStatus::Cancelled, None),
        };
        loop {
            crate::agent::finish_worktree(&self.shared, &self.id, &mut self.spec).await;
            let (status, error, stopped_by) =
                crate::agent::stop_cause(&self.shared, &self.id, outcome.status, outcome.error.take());
            if outcome.turns > 0 || !outcome.result.is_empty() {
                self.history.push(Message::Assistant {
                    content: vec![arbor_protocol::AssistantBlock::Text { text: outcome.result.clone() }],
                });
            }
            let finished = AgentFinished {
                status,
                result: outcome.result.clone(),
                error,
                turns: outcome.turns,
                duration_ms: started.elapsed().as_millis() as u64,
                files_modified: Vec::new(),
                stopped_by,
            };
            match lifecycle::end_run(&self.shared, &self.id, finished, &mut self.inbox, Some(&mut self.history)) {
                EndStep::Finished => break,
                // A message that came while it worked: one more turn, in a new conversation with it.
                EndStep::Continue(blocks) => {
                    let text = blocks_text(&blocks);
                    crate::agent::append_user(&mut self.history, blocks);
                    outcome = self.next_turn(text).await;
                }
                // Children a person delegated under it still run: their results wake it, or a Stop ends it.
                EndStep::Wait => {
                    let woke = tokio::select! {
                        m = self.inbox.recv() => m,
                        _ = self.cancel.cancelled() => None,
                    };
                    outcome = match woke {
                        Some(m) => {
                            if let Some(from) = m.announce {
                                let said = arbor_protocol::UserMessage::new(m.text.clone(), from);
                                self.shared.emit(&self.id, arbor_protocol::EventKind::UserMessage(said));
                            }
                            let mut blocks = vec![UserBlock::Text { text: m.text }];
                            blocks.extend(m.context.map(|text| UserBlock::Text { text }));
                            let text = blocks_text(&blocks);
                            crate::agent::append_user(&mut self.history, blocks);
                            self.next_turn(text).await
                        }
                        None => Outcome::ended(AgentStatus::Cancelled, None),
                    };
                }
            }
        }
        drop(slot);
    }

    /// Another turn in the same run: in its worktree again when it is isolated (the last one's
    /// may have been removed, having changed nothing).
    async fn next_turn(&mut self, text: String) -> Outcome {
        match crate::agent::ensure_worktree(&self.shared, &self.id, &mut self.spec, &mut self.history).await {
            Ok(()) => self.converse_with(text).await,
            Err(e) => Outcome::ended(AgentStatus::Failed, Some(e)),
        }
    }

    /// One run: the process started, `initialize`, `session/new`, the task as a prompt.
    async fn converse(&mut self) -> Outcome {
        let task = last_user_text(&self.history);
        self.converse_with(task).await
    }

    async fn converse_with(&mut self, message: String) -> Outcome {
        // Each run starts the program and a session anew: what was said before goes with it.
        let task = with_earlier(&self.history, message);
        let root = self.spec.workspace.root().to_path_buf();
        let mut child = match process::spawn(&self.command, &root, &self.shared.ctx.hook_env, &self.spec.sandbox) {
            Ok(c) => c,
            Err(e) => return Outcome::ended(AgentStatus::Failed, Some(e)),
        };
        let node = Node::new(self.shared.clone(), self.id.clone(), self.spec.clone(), self.cancel.clone());
        let transport = child.transport();
        let cancel = self.cancel.clone();
        let handlers = node.clone();
        let on = node.clone();
        let conversation = Client
            .v1()
            .name("arbor")
            .on_receive_notification(
                {
                    let node = on.clone();
                    async move |n: acp::SessionNotification, _cx| {
                        node.update(n);
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_request(
                {
                    let node = on.clone();
                    async move |r: acp::RequestPermissionRequest, responder, _cx| {
                        node.permission(r, responder);
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                {
                    let node = on.clone();
                    async move |r: acp::ReadTextFileRequest, responder, _cx| {
                        node.read_file(r, responder);
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                {
                    let node = on.clone();
                    async move |r: acp::WriteTextFileRequest, responder, _cx| {
                        node.write_file(r, responder);
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                {
                    let node = on.clone();
                    async move |r: acp::CreateTerminalRequest, responder, _cx| {
                        node.terminal(TerminalAsk::Create(r, responder));
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                {
                    let node = on.clone();
                    async move |r: acp::TerminalOutputRequest, responder, _cx| {
                        node.terminal(TerminalAsk::Output(r, responder));
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                {
                    let node = on.clone();
                    async move |r: acp::WaitForTerminalExitRequest, responder, _cx| {
                        node.terminal(TerminalAsk::Wait(r, responder));
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                {
                    let node = on.clone();
                    async move |r: acp::KillTerminalRequest, responder, _cx| {
                        node.terminal(TerminalAsk::Kill(r, responder));
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                {
                    let node = on.clone();
                    async move |r: acp::ReleaseTerminalRequest, responder, _cx| {
                        node.terminal(TerminalAsk::Release(r, responder));
                        Ok(())
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                Ok(drive(cx, &root, task, &cancel, &handlers).await)
            })
            .await;
        let ended = match conversation {
            Ok(Ok(turn)) => Ok(turn),
            Ok(Err(e)) => Err(e),
            Err(e) => Err(format!("the connection to the agent failed: {e}")),
        };
        // Every update it sent is applied (and the last message known) before the run ends.
        let result = node.finish().await;
        let exit = child.stop().await;
        match ended {
            Ok(turn) => Outcome { status: turn.status(), error: turn.error(), result, turns: 1 },
            Err(_) if self.cancel.is_cancelled() => {
                Outcome { status: AgentStatus::Cancelled, error: None, result, turns: 1 }
            }
            Err(e) => {
                let why = match exit {
                    Some(said) => format!("{e}; {said}"),
                    None => e,
                };
                Outcome { status: AgentStatus::Failed, error: Some(why), result, turns: 1 }
            }
        }
    }
}

/// `initialize`, `session/new` in the node's working tree, and the prompt; a Stop sends
/// `session/cancel` and waits a moment for the turn to end as cancelled.
async fn drive(
    cx: ConnectionTo<Agent>,
    root: &std::path::Path,
    task: String,
    cancel: &CancellationToken,
    node: &Node,
) -> Result<Turn, String> {
    let answered = |r: acp::PromptResponse| {
        if let Some(u) = r.usage.clone() {
            node.turn_usage(u);
        }
        Turn::from(r)
    };
    let setup = async {
        let capabilities = acp::ClientCapabilities::new()
            .fs(acp::FileSystemCapabilities::new().read_text_file(true).write_text_file(true))
            .terminal(true)
            // Its subagent sessions are nodes under it (`subagent_update`).
            .subagents(acp::SubagentCapabilities::new());
        let init = acp::InitializeRequest::new(agent_client_protocol::schema::ProtocolVersion::V1)
            .client_capabilities(capabilities)
            .client_info(acp::Implementation::new("arbor", env!("CARGO_PKG_VERSION")));
        cx.send_request(init).block_task().await.map_err(|e| format!("initialize: {e}"))?;
        let session = cx
            .send_request(acp::NewSessionRequest::new(root.to_path_buf()))
            .block_task()
            .await
            .map_err(|e| format!("session/new: {e}"))?;
        node.session(cx.clone(), &session.session_id);
        Ok::<_, String>(session.session_id)
    };
    let session = tokio::select! {
        s = tokio::time::timeout(SETUP_TIMEOUT, setup) => s.map_err(|_| "the agent did not start in time".to_string())??,
        _ = cancel.cancelled() => return Ok(Turn::cancelled()),
    };
    let prompt = acp::PromptRequest::new(session.clone(), vec![acp::ContentBlock::Text(acp::TextContent::new(task))]);
    let answer = cx.send_request(prompt).block_task();
    tokio::pin!(answer);
    tokio::select! {
        r = &mut answer => r.map(answered).map_err(|e| format!("session/prompt: {e}")),
        _ = cancel.cancelled() => {
            let _ = cx.send_notification(acp::CancelNotification::new(session));
            match tokio::time::timeout(CANCEL_GRACE, answer).await {
                Ok(Ok(r)) => Ok(answered(r)),
                _ => Ok(Turn::cancelled()),
            }
        }
    }
}

/// How a run ended, before the registry hears of it.
struct Outcome {
    status: AgentStatus,
    error: Option<String>,
    result: String,
    turns: u32,
}

impl Outcome {
    fn ended(status: AgentStatus, error: Option<String>) -> Self {
        Self { status, error, result: String::new(), turns: 0 }
    }
}

/// How much of its earlier conversations a new session of the agent is given (its end kept).
const MAX_EARLIER: usize = 64 * 1024;

/// The prompt a new session of the agent starts from: `message`, after what was said in its
/// earlier sessions of this task (its task, its answers, a person's messages), when there were
/// any. Without it, a message to the node or a resume would reach an agent that knows nothing.
fn with_earlier(history: &[Message], message: String) -> String {
    let last_user = history.iter().rposition(|m| matches!(m, Message::User { .. })).unwrap_or(0);
    let said: Vec<String> = history[..last_user]
        .iter()
        .filter_map(|m| match m {
            Message::User { content } => Some(format!("[Told to you]\n{}", blocks_text(content))),
            Message::Assistant { content } => {
                let text: Vec<&str> = content
                    .iter()
                    .filter_map(|b| match b {
                        arbor_protocol::AssistantBlock::Text { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                (!text.is_empty()).then(|| format!("[Your answer]\n{}", text.join("\n")))
            }
        })
        .collect();
    if said.is_empty() {
        return message;
    }
    let mut earlier = said.join("\n\n");
    let dropped = arbor_protocol::text::keep_last(&mut earlier, MAX_EARLIER);
    let cut = if dropped > 0 { format!("[{dropped} earlier bytes left out]\n") } else { String::new() };
    format!(
        "This continues your earlier work on this task in a new session. What was said before:\n\n{cut}{earlier}\n\n---\n\n{message}"
    )
}

fn last_user_text(history: &[Message]) -> String {
    history
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::User { content } => Some(blocks_text(content)),
            Message::Assistant { .. } => None,
        })
        .unwrap_or_default()
}

fn blocks_text(blocks: &[UserBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text { text } => Some(text.as_str()),
            UserBlock::ToolResult { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::AssistantBlock;

    fn user(text: &str) -> Message {
        Message::User { content: vec![UserBlock::Text { text: text.into() }] }
    }

    fn answer(text: &str) -> Message {
        Message::Assistant { content: vec![AssistantBlock::Text { text: text.into() }] }
    }

    #[test]
    fn a_new_session_of_the_agent_is_told_what_was_said_before() {
        // Its first run: the task alone.
        assert_eq!(with_earlier(&[user("write out.md")], "write out.md".into()), "write out.md");
        // A person's message after it answered: its task and answer come first.
        let history = [user("write out.md"), answer("wrote it"), user("now add a title")];
        let prompt = with_earlier(&history, "now add a title".into());
        let (before, now) = prompt.split_once("\n\n---\n\n").expect("the earlier part, then the message");
        assert!(
            before.contains("[Told to you]\nwrite out.md") && before.contains("[Your answer]\nwrote it"),
            "{before}"
        );
        assert!(!before.contains("now add a title"), "the message itself is not repeated: {before}");
        assert_eq!(now, "now add a title");
        // A long past keeps its end, and says how much was left out.
        let long = [user(&"x".repeat(200_000)), answer("the end"), user("go on")];
        let prompt = with_earlier(&long, "go on".into());
        assert!(prompt.len() < MAX_EARLIER + 1_000, "{}", prompt.len());
        assert!(prompt.contains("earlier bytes left out") && prompt.contains("the end"));
    }
}
