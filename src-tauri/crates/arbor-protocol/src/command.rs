//! Commands into a session: the inbound half of the runtime's queue pair.

use crate::{AgentId, ApprovalScope, PermissionMode, SpawnEdit};
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
    /// Withdraw a standing rule: the next call it covered asks again.
    RevokeRule { rule_id: String },
    /// Start a subagent under any agent, as the person rather than a model asks
    /// (the UI's "Delegate…"). Its result reaches that parent as a task notification.
    Delegate(DelegateRequest),
    /// Start a new run of an agent that is not running (it finished, was stopped, or
    /// was interrupted when its process died), its history continued with `text`,
    /// or with a request to carry on when absent.
    Resume {
        agent_id: AgentId,
        #[serde(default)]
        text: Option<String>,
    },
    /// Change an agent's budget: the limits given replace its own. A running agent goes
    /// on within the new limits; one its budget stopped resumes when the new ones leave room.
    SetBudget { agent_id: AgentId, budget: crate::Budget },
    /// Compact an agent's conversation (older results cleared, the rest summarized)
    /// before its next request: at once when it runs, else when it next runs.
    Compact { agent_id: AgentId },
}

/// The agent type of a subagent whose Task call or delegation names none: it
/// inherits its parent's model, provider, system prompt and tools.
pub const GENERAL_PURPOSE: &str = "general-purpose";

/// The `provider` of an agent that is an external ACP agent (its `model` is the command
/// it was started as): another program runs its loop, and Arbor is that program's client.
pub const ACP_PROVIDER: &str = "acp";

/// The tool through which a model starts a subagent (Claude Code's name), and
/// through which the UI links a call to its child.
pub const TASK_TOOL: &str = "Task";

/// A subagent the person starts under `parent_id`; the fields mirror the Task tool's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct DelegateRequest {
    pub parent_id: AgentId,
    pub prompt: String,
    /// The 3–5 word label shown in the tree; derived from the prompt when absent.
    #[serde(default)]
    pub description: Option<String>,
    /// A loaded agent definition's name; absent means general-purpose.
    #[serde(default)]
    pub subagent_type: Option<String>,
    /// Overrides the definition's model.
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub max_turns: Option<u32>,
    /// Only these of the tools it would have (narrowing, never widening).
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    /// A stricter approval mode than its parent's (`plan`: read-only; `dontAsk`:
    /// what would ask is refused). Looser modes are ignored.
    #[serde(default)]
    pub permission_mode: Option<PermissionMode>,
    /// The child's sandbox, as the person chooses it (it may loosen the parent's:
    /// the person decides, not a model).
    #[serde(default)]
    pub sandbox: Option<crate::SandboxRequest>,
    /// `worktree`: the child works in a git worktree of its own. Absent: as its type says.
    #[serde(default)]
    pub isolation: Option<crate::Isolation>,
    /// The child's budget (covering its subtree), within what its parent has left. Absent: as its type says.
    #[serde(default)]
    pub budget: Option<crate::Budget>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ApprovalAnswer {
    pub request_id: String,
    pub approved: bool,
    #[serde(default)]
    pub scope: ApprovalScope,
    /// Given to the agent with a denial, so it can change course.
    #[serde(default)]
    pub reason: Option<String>,
    /// For a spawn: what the child gets instead of what the Task call asked.
    #[serde(default)]
    pub edit: Option<SpawnEdit>,
}

impl ApprovalAnswer {
    /// An answer without a reason or edits.
    pub fn new(request_id: impl Into<String>, approved: bool, scope: ApprovalScope) -> Self {
        Self { request_id: request_id.into(), approved, scope, reason: None, edit: None }
    }
}

/// What a command created: the one answer to every command, so no client
/// special-cases one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CommandReply {
    /// Accepted; its effects arrive as events.
    Done,
    /// A subagent started under the parent the delegation named.
    Delegated { agent_id: AgentId },
    /// A new run of this agent started.
    Resumed { agent_id: AgentId },
}

impl CommandReply {
    /// The agent the command created or started a run of.
    pub fn agent_id(&self) -> Option<&AgentId> {
        match self {
            Self::Done => None,
            Self::Delegated { agent_id } | Self::Resumed { agent_id } => Some(agent_id),
        }
    }
}
