//! Why a command or a session start was refused. Typed so the UI never matches strings.

use arbor_protocol::AgentId;
use std::path::PathBuf;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SessionError {
    #[error("workspace {path} is not usable: {reason}")]
    Workspace { path: PathBuf, reason: String },
    #[error("provider {0:?} is not configured")]
    UnknownProvider(String),
    #[error("no agent {0} in this session")]
    UnknownAgent(AgentId),
    #[error("agent {0} is not running, so it cannot take a message")]
    AgentNotRunning(AgentId),
    #[error("agent {0} is running: send it a message instead")]
    AgentRunning(AgentId),
    #[error("no pending approval {0}: it was answered, cancelled, or never asked")]
    UnknownApproval(String),
    #[error("no rule {0} is in force: it was revoked already, or never set")]
    UnknownRule(String),
    #[error("an edited subagent is approved for this call only: answer it with the scope `once`")]
    EditedScope,
    #[error("a delegation may only narrow its agent's approvals: permission mode `{0}` would loosen them")]
    LooserMode(&'static str),
    #[error("no agent type {name:?} to run the main agent as (the types here: {known})")]
    UnknownAgentType { name: String, known: String },
    #[error("a message must not be empty")]
    EmptyMessage,
    #[error("a budget's {0} must be above 0 (leave it out for no limit)")]
    InvalidBudget(&'static str),
    #[error("cannot start the subagent: {0}")]
    Spawn(#[from] SpawnError),
    #[error("the session was shut down")]
    Closed,
    #[error("agent {0} runs inside its parent's program, which alone gives it work: message its parent")]
    Hosted(AgentId),
    #[error("a session must be started inside a Tokio runtime (its agents run on it)")]
    NoRuntime,
    #[error("agent {0} has no worktree waiting for a decision (none was made, or it was merged, kept or discarded)")]
    NoWorktree(AgentId),
    #[error("agent {0} is still working in its worktree: stop it or wait until it finishes")]
    WorktreeBusy(AgentId),
    #[error("{0}")]
    Worktree(#[from] crate::worktree::WorktreeError),
}

/// Why no child was started. The text is what the calling model reads.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SpawnError {
    #[error("prompt is missing or blank: say what the subagent should do")]
    EmptyPrompt,
    #[error("Unknown agent type \"{name}\". Available: {available}")]
    UnknownType { name: String, available: String },
    #[error("{}", crate::delegation::DEPTH_LIMIT_MESSAGE)]
    DepthLimit,
    #[error(
        "subagent limit reached: this session has started {max} subagents, the most it may; do this subtask yourself"
    )]
    SubagentLimit { max: u32 },
    #[error("agent type \"{agent_type}\" runs on provider \"{provider}\", which is not configured")]
    UnknownProvider { agent_type: String, provider: String },
    #[error("agent type \"{0}\" runs on another provider than its parent but names no model: add `model:` to its file")]
    NoModel(String),
    #[error("no agent {0} in this session")]
    UnknownParent(AgentId),
    #[error(
        "a fork is a copy of you, on your model and with your tools: leave {0} out, or start a fresh subagent without fork"
    )]
    ForkChanges(&'static str),
    #[error("the session was shut down")]
    Closed,
    #[error("agent type \"{agent_type}\" cannot start: {why}")]
    External { agent_type: String, why: String },
    #[error("{0}")]
    Worktree(#[from] crate::worktree::WorktreeError),
    #[error("no subagent started: {0}. Do this subtask yourself, or give your answer with what you have")]
    Budget(String),
    #[error(
        "no subagent started: the spawn-rate guard allows {max} new subagents a minute in this session, and that \
         many started in the last minute. Wait for their results (TaskOutput) or do this subtask yourself"
    )]
    SpawnRate { max: u32 },
}
