//! One agent's loop: turns of (streamed model response, then its tool calls run
//! concurrently), until the model answers without tool calls, the turn limit,
//! an error, or cancellation.

pub(crate) mod ask;
mod calls;
mod compact;
mod decide;
pub(crate) mod hooked;
mod isolation;
pub(crate) use calls::emit_changes;
pub(crate) use isolation::{back_in_parent, ensure as ensure_worktree, finish as finish_worktree};
mod launch;
pub(crate) use launch::launch;
pub(crate) mod lifecycle;
mod pieces;
mod turn;
mod unanswered;
pub(crate) use unanswered::{Unanswered, find as find_unanswered, first_open_call};

use crate::mcp::{self, AgentMcp, McpError};
use crate::provider::{StopReason, ToolSpec};
use crate::registry::{AgentSpec, Inbound};
use crate::shared::Shared;
use crate::tools::ToolRegistry;
use arbor_protocol::{
    AgentFinished, AgentId, AgentStatus, AssistantBlock, EventKind, McpState, Message, StoppedBy, UserBlock,
    UserMessage,
};
use lifecycle::EndStep;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, info, info_span, warn};

/// Everything one run of an agent needs.
pub(crate) struct AgentRun {
    pub id: AgentId,
    pub spec: Arc<AgentSpec>,
    pub tools: ToolRegistry,
    /// At the depth limit: the subagent tools are not offered.
    pub depth_limited: bool,
    /// The scheduler's slots, for a subagent; it runs only while it holds one.
    pub slots: Option<Arc<Semaphore>>,
    pub slot: Option<OwnedSemaphorePermit>,
    pub history: Vec<Message>,
    pub inbox: mpsc::UnboundedReceiver<Inbound>,
    pub cancel: CancellationToken,
    /// The MCP servers that could not list their tools for this run, and why.
    pub mcp_failed: Vec<(String, McpError)>,
    /// What its last response cost in budget tokens, and how long the history it
    /// answered was: the next request's estimate starts from them.
    pub last_cost: Option<(u64, usize)>,
    /// Calls its last run left without results: settled before its first turn.
    pub unanswered: Vec<Unanswered>,
}

impl AgentRun {
    /// Runs to the end, emitting every step, and reports `agent_finished`. The
    /// history goes back to the registry, for a later run.
    pub(crate) async fn run(mut self, shared: Arc<Shared>) {
        let span = info_span!("agent", agent_id = %self.id, model = %self.spec.model);
        async move {
            let started = Instant::now();
            let mut turns = 0u32;
            let mut outcome = if self.take_slot().await {
                shared.set_status(&self.id, AgentStatus::Running);
                None
            } else {
                Some((AgentStatus::Cancelled, None))
            };
            if outcome.is_none()
                && let Err(e) = isolation::ensure(&shared, &self.id, &mut self.spec, &mut self.history).await
            {
                warn!(error = %e, "no worktree");
                outcome = Some((AgentStatus::Failed, Some(e)));
            }
            let mcp = if outcome.is_none() { self.add_mcp_tools(&shared).await } else { None };
            let specs = shared.tool_specs(&self.tools);
            if outcome.is_none() {
                self.subagent_start(&shared).await;
            }
            loop {
                let (status, error) = match outcome.take() {
                    Some(o) => o,
                    None => self.turns(&shared, &specs, &mut turns).await,
                };
                let (status, error) = crate::budget::explain(&shared, &self.id, status, error);
                let (status, error, stopped_by) = stop_cause(&shared, &self.id, status, error);
                if status != AgentStatus::Completed {
                    lifecycle::stop_children(&shared, &self.id).await;
                }
                isolation::finish(&shared, &self.id, &mut self.spec).await;
                // Calls its last run left open and this run never reached (it ended before its
                // first turn): they stay with the agent, for the run after.
                if !self.unanswered.is_empty()
                    && let Some(r) = shared.registry().get_mut(&self.id)
                {
                    r.unanswered = std::mem::take(&mut self.unanswered);
                }
                let finished = AgentFinished {
                    status,
                    result: last_text(&self.history),
                    error,
                    turns,
                    duration_ms: started.elapsed().as_millis() as u64,
                    files_modified: Vec::new(),
                    stopped_by,
                };
                match lifecycle::end_run(&shared, &self.id, finished, &mut self.inbox, Some(&mut self.history)) {
                    EndStep::Finished => {
                        info!(status = status.as_str(), turns, "agent finished");
                        break;
                    }
                    EndStep::Continue(texts) => {
                        append_user(&mut self.history, texts);
                        if let Err(e) = isolation::ensure(&shared, &self.id, &mut self.spec, &mut self.history).await {
                            outcome = Some((AgentStatus::Failed, Some(e)));
                        }
                    }
                    EndStep::Wait => {
                        // Waiting on children costs nothing: give the slot to someone else meanwhile.
                        let had_slot = self.slot.take().is_some();
                        tokio::select! {
                            text = self.inbox.recv() => match text {
                                Some(m) => {
                                    let blocks = taken(m, |m| {
                                        shared.emit(&self.id, EventKind::UserMessage(m));
                                    });
                                    append_user(&mut self.history, blocks);
                                }
                                // The registry holds the sender while the agent runs; gone means torn down.
                                None => self.cancel.cancel(),
                            },
                            _ = self.cancel.cancelled() => {}
                        }
                        if had_slot && !self.take_slot().await {
                            outcome = Some((AgentStatus::Cancelled, None));
                        }
                    }
                }
            }
            // The slot goes back now, not when the last handle to this run is dropped,
            // nor after its servers have stopped: queued agents need not wait for that.
            drop(self.slot.take());
            // No server outlives the run that started it.
            if let Some(mcp) = mcp {
                mcp.close().await;
            }
        }
        .instrument(span)
        .await
    }

    /// Turns until the model stops calling tools, the turn limit, an error or cancellation.
    async fn turns(
        &mut self,
        shared: &Arc<Shared>,
        specs: &[ToolSpec],
        turns: &mut u32,
    ) -> (AgentStatus, Option<String>) {
        if !self.unanswered.is_empty() && !unanswered::settle(shared, self).await {
            return (AgentStatus::Cancelled, None);
        }
        // Whether the request about to be sent again was compacted for it.
        let mut compacted = false;
        // How many times in a row a Stop hook kept it going.
        let mut stop_blocks = 0u32;
        // What the last compaction at the threshold left (compact::at_threshold).
        let mut floor = None;
        compact::announce_window(shared, self).await;
        loop {
            self.take_steering(shared, None);
            if self.cancel.is_cancelled() {
                return (AgentStatus::Cancelled, None);
            }
            if *turns >= self.spec.max_turns {
                return (AgentStatus::MaxTurns, None);
            }
            if let Err(why) = self.check_budget(shared, specs) {
                return (AgentStatus::BudgetExhausted, Some(why));
            }
            // Asked by a person, or near its window: compacted before the request rather than refused after it.
            let due = match compact::if_asked(shared, self, specs).await {
                Ok(true) => Ok(true),
                Ok(false) => compact::at_threshold(shared, self, specs, &mut floor).await,
                Err(e) => Err(e),
            };
            match due {
                Ok(_) => {}
                Err(compact::CompactError::Cancelled) => return (AgentStatus::Cancelled, None),
                // The request goes as it is; a refusal gets the reactive path.
                Err(why) => warn!(?why, "could not compact at the threshold"),
            }
            let asked_with = self.history.len();
            let response = match turn::model_turn(shared, self, specs, *turns + 1).await {
                Ok(r) => r,
                Err(turn::TurnError::Cancelled) => return (AgentStatus::Cancelled, None),
                // Too long for the model's window: compacted, and the same turn asked again, once.
                Err(turn::TurnError::Provider(e)) if e.is_context_overflow() => {
                    if compacted {
                        warn!(error = %e, "still too long after compaction");
                        return (AgentStatus::Failed, Some(compact::still_too_long(&e)));
                    }
                    match compact::on_overflow(shared, self, specs, &e).await {
                        Ok(()) => {
                            compacted = true;
                            continue;
                        }
                        Err(compact::CompactError::Cancelled) => return (AgentStatus::Cancelled, None),
                        Err(why) => {
                            warn!(error = %e, "could not compact");
                            return (AgentStatus::Failed, Some(why.explain(&e)));
                        }
                    }
                }
                Err(turn::TurnError::Provider(e)) => {
                    warn!(error = %e, "model turn failed");
                    return (AgentStatus::Failed, Some(e.to_string()));
                }
            };
            compacted = false;
            *turns += 1;
            let u = &response.usage;
            self.last_cost = Some((u.input_tokens + u.output_tokens + u.cache_write_tokens, asked_with));
            let cut = response.stop_reason == StopReason::MaxTokens;
            let mut calls: Vec<calls::Call> = response
                .content
                .iter()
                .filter_map(|b| match b {
                    AssistantBlock::ToolUse { id, name, input } => Some(calls::Call {
                        id: id.clone(),
                        name: name.clone(),
                        input: input.clone(),
                        seq: None,
                        invalid: response.invalid_tool_inputs.iter().find(|(i, _)| i == id).map(|(_, reason)| {
                            format!(
                                "Invalid arguments for {name}: {reason}. Call it again with a JSON object that \
                                 matches its input schema."
                            )
                        }),
                    }),
                    _ => None,
                })
                .collect();
            // The output limit struck mid-response: the last call's input may be cut short, so it
            // never runs; the model is told and may go on. A cut final answer ends the agent, marked.
            if cut && let Some(last) = calls.last_mut() {
                last.invalid =
                    Some(format!("{} was not run: {}", last.name, output_limit_message(shared.ctx.max_tokens)));
            }
            self.history.push(Message::Assistant { content: response.content });
            shared.save_history(&self.id, &self.history);
            if calls.is_empty() {
                if cut {
                    warn!(max_tokens = shared.ctx.max_tokens, "the final answer was cut off at the output limit");
                    let why = format!("the answer was cut off at the output limit ({} tokens)", shared.ctx.max_tokens);
                    return (AgentStatus::Truncated, Some(why));
                }
                if let Some(reason) = self.stop_hooks(shared, &mut stop_blocks).await {
                    append_user(&mut self.history, vec![UserBlock::Text { text: reason }]);
                    shared.save_history(&self.id, &self.history);
                    continue;
                }
                return (AgentStatus::Completed, None);
            }
            // An agent that waits on its children lends its slot to them, or nesting could deadlock.
            let lend = self.slot.is_some() && calls.iter().any(|c| crate::delegation::waits_on_agents(&c.name));
            if lend {
                self.slot = None;
            }
            let Some(mut content) = calls::run_calls(shared, self, calls).await else {
                // The session closed with calls still open: they stay so, for its next run.
                return (AgentStatus::Cancelled, None);
            };
            if lend && !self.take_slot().await {
                return (AgentStatus::Cancelled, None);
            }
            self.take_steering(shared, Some(&mut content));
            self.history.push(Message::User { content });
            shared.save_history(&self.id, &self.history);
            if self.cancel.is_cancelled() {
                return (AgentStatus::Cancelled, None);
            }
            if *turns >= self.spec.max_turns {
                return (AgentStatus::MaxTurns, None);
            }
        }
    }

    /// Runs the SubagentStart hooks as a subagent's first run starts; what they add
    /// goes with its task.
    async fn subagent_start(&mut self, shared: &Shared) {
        use arbor_protocol::HookEvent;
        if self.spec.depth == 0 || !hooked::wanted(&self.spec, HookEvent::SubagentStart) {
            return;
        }
        let fresh = shared.registry().get(&self.id).is_some_and(|r| r.state.turns == 0 && r.state.ended_at.is_none());
        if !fresh {
            return;
        }
        let kind = hooked::agent_type(shared, &self.id);
        hooked::write_transcript(shared, &self.id, &self.history);
        let firing = hooked::Firing::new(HookEvent::SubagentStart, Some(&kind));
        let c = hooked::fire(shared, &self.id, &self.spec, &self.cancel, firing).await;
        if let Some(context) = c.context() {
            append_user(&mut self.history, vec![UserBlock::Text { text: format!("[Context from hooks]\n{context}") }]);
        }
    }

    /// Runs the Stop hooks (SubagentStop for a subagent) as the model ends its turn
    /// without calls: Some(what the model reads) when one blocks the end, so the agent
    /// goes on; after [`hooked::MAX_STOP_BLOCKS`] blocks in a row, a block is not applied.
    async fn stop_hooks(&mut self, shared: &Shared, blocks: &mut u32) -> Option<String> {
        use arbor_protocol::{HookDecision, HookEvent};
        let event = if self.spec.depth == 0 { HookEvent::Stop } else { HookEvent::SubagentStop };
        if !hooked::wanted(&self.spec, event) {
            return None;
        }
        let kind = hooked::agent_type(shared, &self.id);
        let transcript = hooked::write_transcript(shared, &self.id, &self.history);
        let mut firing = hooked::Firing::new(event, (self.spec.depth > 0).then_some(kind.as_str()))
            .field("stop_hook_active", *blocks > 0)
            .field("last_assistant_message", last_text(&self.history))
            .field("background_tasks", hooked::background_tasks(shared, &self.id))
            // Arbor has no scheduled prompts: Claude Code's list, empty.
            .field("session_crons", serde_json::Value::Array(Vec::new()));
        if self.spec.depth > 0 {
            let path = transcript.map(|p| p.display().to_string()).unwrap_or_default();
            firing = firing.field("agent_transcript_path", path);
        }
        if *blocks >= hooked::MAX_STOP_BLOCKS {
            firing.block_not_applied = Some(format!(
                "blocked the end {} times in a row: not applied this time, so the agent ends",
                hooked::MAX_STOP_BLOCKS
            ));
        }
        let c = hooked::fire(shared, &self.id, &self.spec, &self.cancel, firing).await;
        if !c.is(HookDecision::Block) {
            return None;
        }
        *blocks += 1;
        Some(format!("[{} hook] {}", event.as_str(), c.reason()))
    }

    /// Checks the budgets above it before a request; a wrap-up notice due goes
    /// into the history first, for the model to read. Err: a budget ran out.
    fn check_budget(&mut self, shared: &Shared, specs: &[ToolSpec]) -> Result<(), String> {
        let (last, from) = match self.last_cost {
            Some((cost, len)) => (Some(cost), len.min(self.history.len())),
            None => (None, 0),
        };
        let fixed = if last.is_none() { compact::fixed_chars(self, specs) } else { 0 };
        let next = crate::budget::next_request_tokens(last, &self.history[from..], fixed);
        if let Some(notice) = crate::budget::before_request(shared, &self.id, next)? {
            append_user(&mut self.history, vec![UserBlock::Text { text: notice }]);
        }
        Ok(())
    }

    /// Adds the tools of its MCP servers (lists fetched once per workspace, so
    /// usually at once), bound to connections of this run's own.
    async fn add_mcp_tools(&mut self, shared: &Arc<Shared>) -> Option<Arc<AgentMcp>> {
        if self.spec.mcp.is_empty() {
            return None;
        }
        let weak = Arc::downgrade(shared);
        let id = self.id.clone();
        let agent = AgentMcp::new(move |status| {
            if let Some(shared) = weak.upgrade() {
                shared.emit(&id, EventKind::McpStatus(status));
            }
        });
        let (tools, failed) = tokio::select! {
            listed = agent.tools(&self.spec.mcp) => listed,
            _ = self.cancel.cancelled() => Default::default(),
        };
        for tool in tools {
            if self.spec.tools.admits(tool.name()) {
                self.tools.insert(tool);
            }
        }
        for (server, error) in &failed {
            // A server the agent may not use anyway is not its concern.
            let wanted =
                self.spec.tools.allow.as_ref().is_none_or(|a| a.iter().any(|n| mcp::server_of(n) == Some(server)));
            if wanted {
                agent.report(server, McpState::Failed, None, Some(error));
            }
        }
        self.mcp_failed = failed;
        Some(agent)
    }

    /// Waits for a scheduler slot if this agent needs one; false when cancelled first.
    async fn take_slot(&mut self) -> bool {
        let Some(slots) = self.slots.clone() else { return true };
        if self.slot.is_some() {
            return true;
        }
        tokio::select! {
            biased;
            _ = self.cancel.cancelled() => false,
            permit = slots.acquire_owned() => {
                self.slot = permit.ok();
                true
            }
        }
    }

    /// What to tell a model that called a tool it was not offered.
    pub(crate) fn missing_tool_reason(&self, name: &str) -> String {
        if self.depth_limited && crate::delegation::is_subagent_tool(name) {
            return crate::delegation::DEPTH_LIMIT_MESSAGE.to_string();
        }
        if let Some((server, error)) = self.mcp_failed.iter().find(|(s, _)| mcp::server_of(name) == Some(s.as_str())) {
            return format!("MCP server \"{server}\" {error}");
        }
        let names = self.tools.names().collect::<Vec<_>>().join(", ");
        format!("Unknown tool: {name}. Available tools: {names}.")
    }

    /// Moves waiting steering messages into the history: into `content` (after
    /// tool results) when given, else as a user message. True if there were any.
    fn take_steering(&mut self, shared: &Shared, content: Option<&mut Vec<UserBlock>>) -> bool {
        let texts = take_inbox(&mut self.inbox, |m| {
            shared.emit(&self.id, EventKind::UserMessage(m));
        });
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

/// What a model reads for a tool call its output limit cut short.
fn output_limit_message(max_tokens: u32) -> String {
    format!(
        "your response reached the output limit ({max_tokens} tokens) while writing this call, so its \
         input may be incomplete and it was not run. Call it again with a smaller input (a shorter file, \
         several Edits instead of one Write)"
    )
}

/// The agent's last non-empty response text: its result.
pub(crate) fn last_text(history: &[Message]) -> String {
    history
        .iter()
        .rev()
        .filter(|m| matches!(m, Message::Assistant { .. }))
        .map(Message::assistant_text)
        .find(|t| !t.is_empty())
        .unwrap_or_default()
}

/// Takes what waits in the inbox as user blocks, announcing each written message.
pub(crate) fn take_inbox(
    inbox: &mut mpsc::UnboundedReceiver<Inbound>,
    mut announce: impl FnMut(UserMessage),
) -> Vec<UserBlock> {
    let mut blocks = Vec::new();
    while let Ok(m) = inbox.try_recv() {
        blocks.extend(taken(m, &mut announce));
    }
    blocks
}

/// One inbox message as the agent takes it: its text, then what hooks added to it.
pub(crate) fn taken(m: Inbound, mut announce: impl FnMut(UserMessage)) -> Vec<UserBlock> {
    if let Some(from) = m.announce {
        announce(UserMessage::new(m.text.clone(), from));
    }
    let mut blocks = vec![UserBlock::Text { text: m.text }];
    blocks.extend(m.context.map(|text| UserBlock::Text { text }));
    blocks
}

/// Adds user blocks at the end, merged into a trailing user message so roles alternate.
pub(crate) fn append_user(history: &mut Vec<Message>, blocks: Vec<UserBlock>) {
    match history.last_mut() {
        Some(Message::User { content }) => content.extend(blocks),
        _ => history.push(Message::User { content: blocks }),
    }
}

/// Who stopped a run that ended `cancelled`. A session that closes stops
/// nobody: its agents are interrupted, unless a person had stopped them first.
pub(crate) fn stop_cause(
    shared: &Shared,
    id: &AgentId,
    status: AgentStatus,
    error: Option<String>,
) -> (AgentStatus, Option<String>, Option<StoppedBy>) {
    if status != AgentStatus::Cancelled {
        return (status, error, None);
    }
    if shared.interrupting(id) {
        return (AgentStatus::Interrupted, None, None);
    }
    let by = shared.registry().get(id).and_then(|r| r.stopped_by);
    match by {
        Some(b) => (status, Some(b.describe().to_string()), by),
        None => (status, error, None),
    }
}
