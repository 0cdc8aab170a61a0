//! A scripted model server on 127.0.0.1 that speaks the real streaming wire
//! formats of the Anthropic Messages API and the OpenAI Chat Completions API.
//!
//! It plays model turns from a JSON [`Scenario`]: each request is routed to a
//! [`Rule`] by its content (never by arrival order, so parallel subagents work),
//! and the turn played is the number of assistant messages in the request.
//! Used by scenario tests, CLI tests, `arbor demo` and UI end-to-end tests.

mod anthropic;
pub mod cache;
pub mod contract;
pub mod events;
pub mod fuzz;
mod git;
mod openai;
mod play;
mod request;
mod respond;
mod route;
pub mod scenario;
mod server;
mod validate;

pub use contract::{Violation, violations};
pub use events::{WaitError, collect_until, wait_for_event};
pub use git::git;
pub use scenario::{ErrorEvent, FailFirst, Match, Rule, Scenario, ToolCallSpec, Turn, UsageSpec};
pub use server::ScriptedServer;

use std::path::PathBuf;

/// Which wire format a request used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Anthropic,
    OpenAi,
}

/// One request the server received, whatever became of it.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub api: Api,
    pub path: String,
    /// Names lowercased.
    pub headers: Vec<(String, String)>,
    /// The parsed body; the raw text as a JSON string when it was not JSON.
    pub body: serde_json::Value,
    /// The index of the rule that matched, if any.
    pub rule: Option<usize>,
    /// The number of assistant messages in the request.
    pub turn: usize,
    /// The HTTP status answered (200 for streams, even ones cut short).
    pub status: u16,
    pub first_user_text: String,
    pub system_text: String,
}

impl RecordedRequest {
    /// The first header with this name, case-insensitively.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TestkitError {
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("invalid scenario JSON in {file}: {source}")]
    Json { file: String, source: serde_json::Error },
    #[error("invalid scenario in {file}: {message}")]
    Scenario { file: String, message: String },
    #[error("cannot bind the scripted server to 127.0.0.1: {0}")]
    Bind(std::io::Error),
}
