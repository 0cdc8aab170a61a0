//! What the runtime says about MCP servers: an agent's connection state (an
//! event), and a configured server with its tools (for settings screens and
//! `arbor mcp`). Never a server's env or header values: they may hold secrets.

use serde::{Deserialize, Serialize};

/// One agent's connection to one MCP server changed state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct McpStatus {
    pub server: String,
    pub state: McpState,
    /// The server's process, for a stdio server that is running.
    pub pid: Option<u32>,
    /// Why it failed, in words for the person.
    pub error: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum McpState {
    /// Started and initialized for this agent (on its first call of one of its tools).
    Connected,
    /// Could not start, list its tools, or went away; its tools answer with the error.
    Failed,
    /// Closed with the agent's run; its process is gone.
    Closed,
}

/// Where a server's configuration came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum McpSource {
    /// The workspace's `.mcp.json`.
    Workspace { path: String },
    /// A file given by the person (settings, `--mcp-config`).
    File { path: String },
    /// Inline in an agent definition's `mcpServers`: for agents of that type only.
    Agent { agent_type: String },
    /// Given by the editor that drives the session over ACP (`session/new`'s `mcpServers`).
    Client { client: String },
}

/// A configured server as a settings screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct McpServerInfo {
    pub name: String,
    pub source: McpSource,
    /// `stdio` or `http`.
    pub transport: String,
    /// The command line (stdio) or the URL (http).
    pub target: String,
    pub state: McpServerState,
    pub error: Option<String>,
    pub tools: Vec<McpToolInfo>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum McpServerState {
    /// Not started yet: its tools are listed when a session first needs them.
    Unchecked,
    Ready,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct McpToolInfo {
    /// As the model sees it: `mcp__<server>__<tool>`.
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    pub description: String,
    /// Annotated readOnlyHint: follows the read-only approval class.
    pub read_only: bool,
}

/// An MCP tool as a person names it: which server, and that server's name for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct McpToolRef {
    pub server: String,
    pub tool: String,
}
