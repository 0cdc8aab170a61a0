//! Agent lifecycle statuses and approval scopes.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    Queued,
    Running,
    WaitingApproval,
    Completed,
    Failed,
    Cancelled,
    MaxTurns,
    /// Was running when the process died; set when a store is reopened.
    Interrupted,
}

impl AgentStatus {
    /// Whether the agent will do no more work in this status.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled | Self::MaxTurns | Self::Interrupted)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::WaitingApproval => "waiting_approval",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::MaxTurns => "max_turns",
            Self::Interrupted => "interrupted",
        }
    }
}

/// How far an approval answer reaches beyond the request it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalScope {
    /// This request only.
    #[default]
    Once,
    /// Every call of this tool by this agent.
    Agent,
    /// Every call of this tool by this agent and its descendants.
    Subtree,
    /// Every call of this tool in the session.
    Session,
}
