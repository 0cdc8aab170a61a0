//! One agent's loop: turns of (streamed model response, then its tool calls run
//! concurrently), until the model answers without tool calls, the turn limit,
//! an error, or cancellation.

mod calls;
mod turn;

use crate::provider::{Provider, ToolSpec};
use crate::session::Shared;
use crate::tools::ToolRegistry;
use arbor_protocol::{AgentFinished, AgentId, AgentStatus, AssistantBlock, Message, UserBlock};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, info, info_span, warn};

/// Everything one run of an agent needs.
pub(crate) struct AgentRun {
    pub id: AgentId,
    pub system: String,
    pub model: String,
    pub provider: Arc<dyn Provider>,
    pub tools: ToolRegistry,
    pub max_turns: u32,
    pub history: Vec<Message>,
    pub inbox: mpsc::UnboundedReceiver<String>,
    pub cancel: CancellationToken,
}

impl AgentRun {
    /// Runs to the end, emitting every step, and reports `agent_finished`. The
    /// history goes back to the registry, for a later run.
    pub(crate) async fn run(mut self, shared: Arc<Shared>) {
        let span = info_span!("agent", agent_id = %self.id, model = %self.model);
        async move {
            let started = Instant::now();
            shared.set_status(&self.id, AgentStatus::Running);
            let specs: Vec<ToolSpec> = self
                .tools
                .iter()
                .map(|t| ToolSpec {
                    name: t.name().to_string(),
                    description: t.description().to_string(),
                    input_schema: t.input_schema(),
                })
                .collect();
            let mut turns = 0u32;
            let (status, error) = loop {
                self.take_steering(None);
                if self.cancel.is_cancelled() {
                    break (AgentStatus::Cancelled, None);
                }
                let response = match turn::model_turn(&shared, &self, &specs, turns + 1).await {
                    Ok(r) => r,
                    Err(turn::TurnError::Cancelled) => break (AgentStatus::Cancelled, None),
                    Err(turn::TurnError::Provider(e)) => {
                        warn!(error = %e, "model turn failed");
                        break (AgentStatus::Failed, Some(e.to_string()));
                    }
                };
                turns += 1;
                shared.add_turn(&self.id, &response.usage);
                let calls: Vec<calls::Call> = response
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        AssistantBlock::ToolUse { id, name, input } => Some(calls::Call {
                            id: id.clone(),
                            name: name.clone(),
                            input: input.clone(),
                            invalid: response.invalid_tool_inputs.iter().find(|(i, _)| i == id).map(|(_, r)| r.clone()),
                        }),
                        _ => None,
                    })
                    .collect();
                self.history.push(Message::Assistant { content: response.content });
                if calls.is_empty() {
                    // Steering that arrived while the model answered deserves a reply of its own.
                    if self.take_steering(None) {
                        continue;
                    }
                    break (AgentStatus::Completed, None);
                }
                let results = calls::run_calls(&shared, &self, calls).await;
                let mut content: Vec<UserBlock> = results;
                self.take_steering(Some(&mut content));
                self.history.push(Message::User { content });
                if self.cancel.is_cancelled() {
                    break (AgentStatus::Cancelled, None);
                }
                if turns >= self.max_turns {
                    break (AgentStatus::MaxTurns, None);
                }
            };
            let result = self.history.last().map(Message::assistant_text).unwrap_or_default();
            info!(status = status.as_str(), turns, "agent finished");
            let finished = AgentFinished {
                status,
                result,
                error,
                turns,
                duration_ms: started.elapsed().as_millis() as u64,
                files_modified: Vec::new(),
            };
            shared.finish_agent(&self.id, finished, &mut self.inbox, self.history);
        }
        .instrument(span)
        .await
    }

    /// The offered tools' names, for a model that called one that does not exist.
    pub(crate) fn tool_names(&self) -> String {
        self.tools.names().collect::<Vec<_>>().join(", ")
    }

    /// Moves waiting steering messages into the history: into `content` (after
    /// tool results) when given, else as a user message. True if there were any.
    fn take_steering(&mut self, content: Option<&mut Vec<UserBlock>>) -> bool {
        let texts = drain_texts(&mut self.inbox);
        if texts.is_empty() {
            return false;
        }
        match content {
            Some(c) => c.extend(texts),
            None => append_user(&mut self.history, texts),
        }
        true
    }
}

pub(crate) fn drain_texts(inbox: &mut mpsc::UnboundedReceiver<String>) -> Vec<UserBlock> {
    let mut texts = Vec::new();
    while let Ok(text) = inbox.try_recv() {
        texts.push(UserBlock::Text { text });
    }
    texts
}

/// Adds user blocks at the end, merged into a trailing user message so roles alternate.
pub(crate) fn append_user(history: &mut Vec<Message>, blocks: Vec<UserBlock>) {
    match history.last_mut() {
        Some(Message::User { content }) => content.extend(blocks),
        _ => history.push(Message::User { content: blocks }),
    }
}
