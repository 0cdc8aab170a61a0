//! What Arbor's two front ends share: where data and settings live, the
//! settings file, API keys in the OS keyring, building providers, the subagent
//! types found for a workspace, the scripted demo, and [`host::Host`], the
//! desktop's command API. No Tauri here: `src-tauri` wraps [`host::Host`] in
//! thin commands, and the CLI uses the pieces directly.

pub mod batch;
pub mod catalog;
pub mod demo;
pub mod error;
pub mod host;
pub mod keys;
pub mod mcp;
pub mod paths;
pub mod providers;
pub mod record;
pub mod settings;
pub mod transcripts;

pub use error::{AppError, AppErrorKind};
pub use providers::ProviderKind;
