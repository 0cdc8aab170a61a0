//! A main agent of any type (the seed's main agent override, Claude Code's
//! `--agent`): the type's prompt, tools, disallowed tools, model, provider,
//! permission mode, MCP servers, budget, context and hooks apply to the
//! top-level conversation, made by the same door as a subagent of that type
//! (`children::child_spec`), at depth 0 and in the session's own tree.

use super::{MainAgent, SessionError};
use crate::children::{self, SpawnRequest};
use crate::registry::AgentSpec;
use crate::shared::Shared;
use std::sync::Arc;

impl MainAgent {
    /// This main agent as an agent of type `name` (one of the session's types).
    pub(super) fn of_type(mut self, shared: &Shared, name: &str) -> Result<MainAgent, SessionError> {
        let types = shared.ctx.agent_types();
        let Some(def) = types.get(name) else {
            let known: Vec<&str> = types.keys().map(String::as_str).collect();
            return Err(SessionError::UnknownAgentType { name: name.to_string(), known: known.join(", ") });
        };
        let req = SpawnRequest {
            parent: self.id.clone(),
            parent_call_id: None,
            parent_call_seq: None,
            prompt: String::new(),
            description: None,
            subagent_type: Some(name.to_string()),
            model: None,
            max_turns: None,
            background: false,
            by_user: true,
            // The main agent works in the session's workspace, whatever the type says of subagents.
            isolation: Some(arbor_protocol::Isolation::Shared),
            budget: None,
            fork: None,
        };
        let (spec, provider_name) =
            children::child_spec(&shared.ctx, &self.spec, &self.provider_name, Some(def), &req, 0)?;
        self.spec = Arc::new(AgentSpec {
            depth: 0,
            scheduled: false,
            max_turns: def.max_turns.unwrap_or(self.spec.max_turns),
            changes: self.spec.changes.clone(),
            ..spec
        });
        self.provider_name = provider_name;
        // The session's own limits (the command line's, Settings') over the type's.
        self.budget = def.budget.changed_by(&self.budget);
        self.agent_type = Some(name.to_string());
        Ok(self)
    }
}
