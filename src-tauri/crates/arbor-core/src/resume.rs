//! Continuing a stored session: its agents come back into the registry as they
//! were left (finished, stopped, or interrupted when their process died), each
//! with its model history, so the main agent can be given a new prompt and any
//! subagent a new run. The store reads them; this module only rebuilds them.

use crate::definitions::GENERAL_PURPOSE;
use crate::registry::{AgentRecord, AgentSpec};
use crate::shared::{Context, Shared};
use crate::subagents::{self, SpawnRequest};
use arbor_protocol::{AgentFinished, AgentId, AgentStatus, Message, StoredAgent, UserBlock};
use std::collections::HashMap;
use std::sync::Arc;
use tokio::sync::watch;

/// What a resumed session starts from.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumeState {
    pub session_id: arbor_protocol::SessionId,
    pub main_agent_id: AgentId,
    /// The last stored event's `seq`: the resumed session's events go on from here.
    pub last_seq: u64,
    /// Every agent, parents before their children.
    pub agents: Vec<ResumedAgent>,
}

/// One stored agent: as its events left it, and its model history.
#[derive(Debug, Clone, PartialEq)]
pub struct ResumedAgent {
    /// An agent that was still active is taken as interrupted.
    pub state: StoredAgent,
    pub history: Vec<Message>,
}

/// What a resumed agent is told when the person gives no text.
pub(crate) const CARRY_ON: &str =
    "Your previous run was stopped before it finished. Continue the task where you left off.";

/// What a tool call that never finished reads to the model that made it.
const UNFINISHED_CALL: &str =
    "interrupted: this tool call did not finish (the run was stopped); its effects are unknown";

/// Puts the stored agents back into the registry, none running.
pub(crate) fn restore(shared: &Shared, main_id: &AgentId, main_spec: &Arc<AgentSpec>, agents: Vec<ResumedAgent>) {
    let mut specs: HashMap<AgentId, (Arc<AgentSpec>, String)> = HashMap::new();
    let mut subagents = 0u32;
    // The Task calls whose child the run left unfinished, by (parent, call): resumed with the session.
    let unfinished_children: HashMap<(AgentId, String), AgentId> = agents
        .iter()
        .filter(|a| a.state.status == AgentStatus::Interrupted || !a.state.status.is_terminal())
        .filter_map(|a| Some(((a.state.parent_id.clone()?, a.state.parent_call_id.clone()?), a.state.id.clone())))
        .collect();
    let mut st = shared.lock();
    for ResumedAgent { state, mut history } in agents {
        let a = state.resumed();
        let spec = if a.id == *main_id {
            main_spec.clone()
        } else {
            let Some((parent, parent_provider)) = a.parent_id.as_ref().and_then(|p| specs.get(p)) else {
                tracing::warn!(agent_id = %a.id, "a stored agent's parent is missing; it is not restored");
                continue;
            };
            subagents += 1;
            Arc::new(restored_spec(&shared.ctx, parent, parent_provider, &a))
        };
        specs.insert(a.id.clone(), (spec.clone(), a.provider.clone()));
        let stored = history.len();
        close_unfinished_calls(&mut history, |call| unfinished_children.get(&(a.id.clone(), call.to_string())));
        let finished = AgentFinished {
            status: a.status,
            result: a.result.clone().unwrap_or_default(),
            error: a.error.clone(),
            turns: a.turns,
            duration_ms: a.duration_ms.unwrap_or(0),
            files_modified: a.files_modified.clone(),
        };
        let notifies_parent = a.parent_id.is_some();
        let mut record = AgentRecord::queued(
            a.id.clone(),
            &a.started(),
            spec,
            a.started_at,
            shared.ctx.root_cancel.child_token(),
            None,
            notifies_parent,
        );
        record.files = a.files_modified.clone();
        record.state = a;
        record.history = history;
        record.journaled = stored;
        record.outcome = watch::Sender::new(Some(finished));
        // Whatever it returned before was delivered then; only later runs notify.
        record.collected = true;
        st.registry.insert(record);
    }
    st.spawned = subagents;
    st.registry.recount();
}

/// How a stored subagent runs again: as its type says now, on the model it
/// ran on; its parent's way when the type or its provider is gone.
fn restored_spec(ctx: &Context, parent: &AgentSpec, parent_provider: &str, a: &StoredAgent) -> AgentSpec {
    let type_name = a.subagent_type.as_deref().unwrap_or(GENERAL_PURPOSE);
    let types = ctx.agent_types();
    let def = types.get(type_name);
    let req = SpawnRequest {
        parent: a.parent_id.clone().unwrap_or_else(|| a.id.clone()),
        parent_call_id: None,
        prompt: String::new(),
        description: None,
        subagent_type: None,
        model: Some(a.model.clone()),
        max_turns: None,
        background: true,
        by_user: true,
        isolation: Some(arbor_protocol::Isolation::Shared),
        budget: None,
    };
    match subagents::child_spec(ctx, parent, parent_provider, def, &req, a.depth) {
        Ok((spec, _)) => spec,
        Err(e) => {
            tracing::warn!(agent_id = %a.id, error = %e, "a stored agent runs as its parent does");
            AgentSpec {
                system: parent.system.clone(),
                model: a.model.clone(),
                provider: parent.provider.clone(),
                tools: parent.tools.clone(),
                max_turns: ctx.limits.subagent_max_turns,
                policy: parent.policy.clone(),
                depth: a.depth,
                scheduled: true,
                mcp: parent.mcp.clone(),
                workspace: parent.workspace.clone(),
                sandbox: parent.sandbox.clone(),
                changes: parent.changes.clone(),
                isolation: arbor_protocol::Isolation::Shared,
                worktree: None,
            }
        }
    }
}

/// A history that ends in tool calls without results (the process died while
/// they ran) gets results saying so: a provider refuses a tool call left unanswered.
fn close_unfinished_calls<'a>(history: &mut Vec<Message>, child_of: impl Fn(&str) -> Option<&'a AgentId>) {
    let Some(Message::Assistant { content }) = history.last() else { return };
    let results: Vec<UserBlock> = content
        .iter()
        .filter_map(|b| match b {
            arbor_protocol::AssistantBlock::ToolUse { id, .. } => Some(UserBlock::ToolResult {
                call_id: id.clone(),
                content: match child_of(id) {
                    Some(child) => format!(
                        "interrupted: subagent {child} was stopped with the run. Continuing the session resumes it, \
                         and its result reaches you as a task notification: do not start it again."
                    ),
                    None => UNFINISHED_CALL.to_string(),
                },
                is_error: true,
            }),
            _ => None,
        })
        .collect();
    if !results.is_empty() {
        history.push(Message::User { content: results });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::AssistantBlock;
    use serde_json::json;

    #[test]
    fn unanswered_tool_calls_get_interrupted_results() {
        let mut h = vec![
            Message::user_text("go"),
            Message::Assistant {
                content: vec![
                    AssistantBlock::Text { text: "reading".into() },
                    AssistantBlock::ToolUse { id: "c1".into(), name: "Read".into(), input: json!({}) },
                    AssistantBlock::ToolUse { id: "c2".into(), name: "Bash".into(), input: json!({}) },
                    AssistantBlock::ToolUse { id: "c3".into(), name: "Task".into(), input: json!({}) },
                ],
            },
        ];
        let child = AgentId("agent-0000c3".into());
        close_unfinished_calls(&mut h, |call| (call == "c3").then_some(&child));
        let Some(Message::User { content }) = h.last() else { panic!("a user message with results") };
        let ids: Vec<&str> = content
            .iter()
            .filter_map(|b| match b {
                UserBlock::ToolResult { call_id, is_error: true, .. } => Some(call_id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["c1", "c2", "c3"]);
        let texts: Vec<&str> = content
            .iter()
            .filter_map(|b| match b {
                UserBlock::ToolResult { content, .. } => Some(content.as_str()),
                _ => None,
            })
            .collect();
        assert!(texts[0].contains("its effects are unknown"), "{texts:?}");
        assert!(texts[2].contains("subagent agent-0000c3") && texts[2].contains("do not start it again"), "{texts:?}");
        // A history that ends on a user message or plain text is left as it is.
        let before = h.clone();
        close_unfinished_calls(&mut h, |_| None);
        assert_eq!(h, before);
    }
}
