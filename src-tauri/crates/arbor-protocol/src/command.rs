//! Commands into a session: the inbound half of the runtime's queue pair.

use crate::{AgentId, ApprovalScope};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// A user message. To the main agent when `agent_id` is absent: it starts the
    /// main agent, or continues it when it has finished. To a running agent it is
    /// steering, added to its history before its next turn.
    SendMessage {
        #[serde(default)]
        agent_id: Option<AgentId>,
        text: String,
    },
    /// The answer to an `approval_request`.
    ResolveApproval(ApprovalAnswer),
    /// Stop an agent and its whole subtree.
    Cancel { agent_id: AgentId },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ApprovalAnswer {
    pub request_id: String,
    pub approved: bool,
    #[serde(default)]
    pub scope: ApprovalScope,
}
