//! Arbor's agent runtime: the agent loop, model providers, built-in tools,
//! approvals and the session that ties them into one ordered event stream.
//!
//! No Tauri and no SQL here: the desktop shell, the CLI and the store are clients
//! of [`Session`] (design.md §1). No hidden inputs: clock, workspace, providers
//! and keys arrive in [`SessionConfig`].

mod agent;
pub mod approval;
pub mod budget;
pub mod changes;
mod children;
pub mod clock;
pub mod config;
pub mod definitions;
mod delegation;
mod error;
mod events;
mod external;
#[cfg(test)]
mod fuzz;
pub mod hooks;
pub mod journal;
pub mod mcp;
pub mod permissions;
mod process;
pub mod prompt;
pub mod provider;
pub mod registry;
mod results;
pub mod resume;
pub mod sandbox;
mod session;
mod shared;
pub mod tools;
pub mod workspace;
pub mod worktree;

pub use approval::{ApprovalPolicy, Decision};
pub use clock::{Clock, SystemClock};
pub use config::{ContextConfig, Limits, MainAgentConfig, Providers, SessionConfig, ToolFilter};
pub use definitions::AgentDefinition;
pub use delegation::choosable_tools as subagents_tools;
pub use error::{SessionError, SpawnError};
pub use events::EventStream;
/// How an ACP permission option reads as an Arbor answer, both ways (external agents, `arbor acp`).
pub use external::options::{answer_of_kind, kind_of_answer};
pub use journal::Journal;
pub use results::describe as describe_task;
pub use resume::{ResumeState, ResumedAgent};
pub use sandbox::{Jail, SandboxPolicy, Sandboxing};
pub use session::{BudgetProbe, Session};
