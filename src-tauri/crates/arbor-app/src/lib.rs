//! The one API both of Arbor's front ends call ([`host::Host`]), organised by
//! noun: sessions (launch, send, stop), history (transcripts), settings, keys,
//! providers, MCP servers, agent types, and the scripted demo. No Tauri and no
//! terminal here: `src-tauri` wraps it in thin commands, the CLI in thin
//! subcommands, and neither builds a session, a provider or a recorder itself.

pub mod acp_agents;
pub mod batch;
mod blocking;
pub mod catalog;
pub mod changes;
pub mod claude_settings;
mod configure;
pub mod demo;
pub mod env;
pub mod error;
pub mod host;
pub mod import;
pub mod instance;
pub mod keys;
pub mod live;
pub mod mcp;
pub mod paths;
pub mod priority;
pub mod providers;
pub mod record;
pub mod sessions;
pub mod settings;
pub mod transcripts;
pub mod trust;
pub mod worktrees;

pub use blocking::off_worker;
pub use env::Environment;
pub use error::{AppError, AppErrorKind};
pub use host::{Host, HostConfig};
pub use providers::ProviderKind;
pub use sessions::{ApprovalMode, LaunchSpec, Launched, Seed, SessionEvents, SessionInfo, Start, Tuning};
