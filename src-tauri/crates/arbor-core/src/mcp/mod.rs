//! MCP tool servers (rmcp on the client side): their configuration, the
//! session's catalog of servers with their tool lists, and each agent's own
//! connections.
//!
//! A server's tool list is fetched once and reused by every agent (spawning a
//! subagent starts no server); an agent connects to a server when it first
//! calls one of its tools, and its connections close when its run ends. Every
//! failure is a tool result the model reads, plus an `mcp_status` event.
//! Resources, prompts and sampling are left out: agents use tools only.

mod catalog;
pub mod config;
mod connection;
mod tool;

pub use catalog::{McpCatalog, McpServer, McpTimeouts, McpToolDef};
pub use config::{McpConfigError, McpFile, McpServerConfig, McpTransport, StreamConnector};
pub(crate) use tool::AgentMcp;

use thiserror::Error;

/// Why a server could not do what was asked. Shown to the model after
/// `MCP server "<name>" `, and to the person in the tree and settings.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum McpError {
    #[error("could not be started: `{command}`: {reason}")]
    Spawn { command: String, reason: String },
    #[error("failed to start: {detail}{}", stderr_note(.stderr))]
    Startup { detail: String, stderr: Option<String> },
    #[error("did not finish starting within {secs} s{}", stderr_note(.stderr))]
    StartTimeout { secs: f32, stderr: Option<String> },
    #[error("did not answer within {secs} s")]
    CallTimeout { secs: f32 },
    #[error("exited or hung up{}", stderr_note(.stderr))]
    Gone { stderr: Option<String> },
    #[error("answered with an error ({code}): {message}")]
    Server { code: i32, message: String },
    #[error("answered with something that is not MCP: {0}")]
    Protocol(String),
    #[error("is not configured usably: {0}")]
    Config(String),
}

fn stderr_note(stderr: &Option<String>) -> String {
    match stderr {
        Some(s) => format!(". Its last output on stderr:\n{s}"),
        None => String::new(),
    }
}

/// The name the model sees: `mcp__<server>__<tool>`, each part reduced to the
/// characters providers accept in tool names, at most 64 characters in all.
pub fn model_tool_name(server: &str, tool: &str) -> String {
    let mut name = format!("{}__{}", server_entry(server), clean(tool));
    name.truncate(64);
    name
}

/// `mcp__<server>`: in a tools list, every tool of that server.
pub fn server_entry(server: &str) -> String {
    format!("mcp__{}", clean(server))
}

fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// The server part of an MCP tool name, if `name` is one.
pub fn server_of(name: &str) -> Option<&str> {
    name.strip_prefix("mcp__").map(|rest| rest.split_once("__").map_or(rest, |(s, _)| s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_what_providers_accept() {
        assert_eq!(model_tool_name("everything", "echo"), "mcp__everything__echo");
        assert_eq!(model_tool_name("my server", "get.item"), "mcp__my_server__get_item");
        assert_eq!(model_tool_name("s", &"x".repeat(100)).len(), 64);
        assert_eq!(server_of("mcp__everything__echo"), Some("everything"));
        assert_eq!(server_of("mcp__github"), Some("github"));
        assert_eq!(server_of("Read"), None);
    }

    #[test]
    fn errors_quote_the_servers_stderr() {
        let e = McpError::Startup { detail: "connection closed".into(), stderr: Some("Error: no such dir".into()) };
        assert_eq!(e.to_string(), "failed to start: connection closed. Its last output on stderr:\nError: no such dir");
    }
}
