//! Continuing a stored session: its agents come back into the registry as they
//! were left (finished, stopped, or interrupted when their process died), each
//! with its model history, so the main agent can be given a new prompt and any
//! subagent a new run. The store reads them; this module only rebuilds them.

use crate::children::{self, SpawnRequest};
use crate::definitions::GENERAL_PURPOSE;
use crate::registry::{AgentRecord, AgentSpec};
use crate::shared::{Context, Shared};
use arbor_protocol::{AgentFinished, AgentId, AgentStatus, Message, StoredAgent};
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
    /// How the calls its history leaves without results went, as stored: its
    /// `tool_call`, `tool_output` and approval events from the first such call on
    /// ([`ResumedAgent::first_open_call`]). Its next run settles them: one that was
    /// waiting for a person is asked again.
    pub calls: Vec<arbor_protocol::AgentEvent>,
}

impl ResumedAgent {
    /// The first call the history leaves without a result, whose events [`ResumedAgent::calls`] wants.
    pub fn first_open_call(history: &[Message]) -> Option<String> {
        crate::agent::first_open_call(history)
    }
}

/// What a resumed agent is told when the person gives no text.
pub(crate) const CARRY_ON: &str =
    "Your previous run was stopped before it finished. Continue the task where you left off.";

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
    for ResumedAgent { state, history, calls } in agents {
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
        let unanswered = crate::agent::find_unanswered(&history, &calls, |call| {
            unfinished_children.get(&(a.id.clone(), call.to_string()))
        });
        let finished = AgentFinished {
            status: a.status,
            result: a.result.clone().unwrap_or_default(),
            error: a.error.clone(),
            turns: a.turns,
            duration_ms: a.duration_ms.unwrap_or(0),
            files_modified: a.files_modified.clone(),
            stopped_by: None,
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
        record.unanswered = unanswered;
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
        parent_call_seq: None,
        prompt: String::new(),
        description: None,
        subagent_type: None,
        model: Some(a.model.clone()),
        max_turns: None,
        background: true,
        by_user: true,
        isolation: Some(arbor_protocol::Isolation::Shared),
        budget: None,
        fork: None,
    };
    // A subagent an external agent announced: its program ran it, and only that program can again.
    if a.provider == arbor_protocol::ACP_PROVIDER && a.subagent_type.is_none() && a.parent_id.is_some() {
        return AgentSpec {
            hosted: true,
            external: None,
            ..children::as_parent(parent, a.depth, ctx.limits.subagent_max_turns)
        };
    }
    if let Some(fork) = a.fork {
        return children::fork_spec(parent, a.depth, ctx.limits.subagent_max_turns, fork);
    }
    match children::child_spec(ctx, parent, parent_provider, def, &req, a.depth) {
        Ok((spec, _)) => spec,
        Err(e) => {
            tracing::warn!(agent_id = %a.id, error = %e, "a stored agent runs as its parent does");
            AgentSpec { model: a.model.clone(), ..children::as_parent(parent, a.depth, ctx.limits.subagent_max_turns) }
        }
    }
}
