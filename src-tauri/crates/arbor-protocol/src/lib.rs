//! Arbor's wire types, shared by the runtime, the CLI, the store and the UI.
//!
//! Types only: no I/O, no async runtime. Everything here derives serde and
//! `specta::Type` so the UI's TypeScript bindings are generated from these very
//! definitions (design.md §3.1).

pub mod approval;
pub mod budget;
pub mod change;
pub mod command;
pub mod context;
pub mod event;
pub mod history;
pub mod hook;
pub mod ids;
pub mod mcp;
pub mod plan;
pub mod provider;
pub mod sandbox;
pub mod state;
pub mod status;
pub mod stored;
pub mod text;
pub mod time;
pub mod timeline;
pub mod wire;
pub mod worktree;

pub use approval::{
    ActiveRules, AgentOption, ApprovalPreview, ApprovalRequest, ApprovalResolved, ApprovalRule, ApprovalStale,
    DecidedBy, RuleRevoked, SpawnEdit, SpawnPlan,
};
pub use budget::{Budget, BudgetKind, BudgetOrigin, BudgetSet, BudgetStanding, BudgetUse, BudgetWarning};
pub use change::{ChangeKind, FileChanged, Kept, RevertConflict, RevertOutcome};
pub use command::{ACP_PROVIDER, ApprovalAnswer, Command, CommandReply, DelegateRequest, GENERAL_PURPOSE, TASK_TOOL};
pub use context::{CHARS_PER_TOKEN, CompactTrigger, ContextCompacted, ContextWindow, WindowSource, estimated_tokens};
pub use event::*;
pub use history::{AssistantBlock, Message, UserBlock};
pub use hook::{HookDecision, HookEvent, HookOrigin, HookRan};
pub use ids::{AgentId, SessionId};
pub use mcp::{McpServerInfo, McpServerState, McpSource, McpState, McpStatus, McpToolInfo, McpToolRef};
pub use plan::{Plan, PlanEntry, PlanPriority, PlanStatus};
pub use provider::{ApprovalChoice, ProviderKind};
pub use sandbox::{CommandSandbox, SandboxMode, SandboxRequest};
pub use state::{AgentStates, AgentUsage, UsageFigures, UsageUpdate};
pub use status::{AgentStatus, ApprovalOutcome, ApprovalScope, PermissionMode, ToolClass};
pub use stored::*;
pub use timeline::{
    Lane, LiveWait, Segment, SegmentKind, SegmentUpdate, Step, Timeline, TimelineBuilder, TimelineUpdate,
};
pub use worktree::{Isolation, WorktreeAction, WorktreeFile, WorktreeState, WorktreeUpdate};
