//! An agent's MCP tools and its own connections: each server is started for the
//! agent when it first calls one of that server's tools, and closed with the
//! agent's run. A server that failed answers every call with why.

use super::McpError;
use super::catalog::{McpServer, McpToolDef};
use super::connection::Connection;
use crate::tools::{MAX_TOOL_OUTPUT_CHARS, Tool, ToolClass, ToolContext, ToolResult, cap_output};
use arbor_protocol::{McpState, McpStatus};
use async_trait::async_trait;
use parking_lot::Mutex;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Connection>>>>;

/// One agent run's connections, by server name.
pub(crate) struct AgentMcp {
    slots: Mutex<BTreeMap<String, Slot>>,
    report: Box<dyn Fn(McpStatus) + Send + Sync>,
}

impl AgentMcp {
    pub(crate) fn new(report: impl Fn(McpStatus) + Send + Sync + 'static) -> Arc<Self> {
        Arc::new(Self { slots: Mutex::new(BTreeMap::new()), report: Box::new(report) })
    }

    /// The tools of `servers` for this agent (their lists from the catalog), and
    /// for each server that could not list its tools, why (not yet reported).
    pub(crate) async fn tools(
        self: &Arc<Self>,
        servers: &[Arc<McpServer>],
    ) -> (Vec<Arc<dyn Tool>>, Vec<(String, McpError)>) {
        let listings: Vec<_> = servers
            .iter()
            .map(|s| {
                let s = s.clone();
                tokio::spawn(async move {
                    let listed = s.tools().await;
                    (s, listed)
                })
            })
            .collect();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut failed = Vec::new();
        for listing in listings {
            let Ok((server, result)) = listing.await else { continue };
            match result {
                Ok(defs) => tools.extend(defs.iter().map(|def| {
                    Arc::new(McpTool { def: def.clone(), server: server.clone(), agent: self.clone() }) as Arc<dyn Tool>
                })),
                Err(e) => failed.push((server.name().to_string(), e)),
            }
        }
        (tools, failed)
    }

    pub(crate) fn report(&self, server: &str, state: McpState, pid: Option<u32>, error: Option<&McpError>) {
        (self.report)(McpStatus { server: server.to_string(), state, pid, error: error.map(|e| e.to_string()) });
    }

    fn slot(&self, server: &str) -> Slot {
        let mut slots = self.slots.lock();
        slots.entry(server.to_string()).or_default().clone()
    }

    /// This agent's connection to `server`, started now if it has none (or its
    /// last one went away).
    async fn connection(&self, server: &McpServer) -> Result<Arc<Connection>, McpError> {
        let slot = self.slot(server.name());
        let mut conn = slot.lock().await;
        if let Some(c) = conn.as_ref()
            && !c.is_closed()
        {
            return Ok(c.clone());
        }
        if let Some(old) = conn.take() {
            self.report(server.name(), McpState::Closed, old.pid(), None);
        }
        match Connection::open(&server.config, server.timeouts.startup).await {
            Ok(c) => {
                let c = Arc::new(c);
                self.report(server.name(), McpState::Connected, c.pid(), None);
                *conn = Some(c.clone());
                Ok(c)
            }
            Err(e) => {
                self.report(server.name(), McpState::Failed, None, Some(&e));
                Err(e)
            }
        }
    }

    async fn call(&self, server: &McpServer, tool: &str, input: Value) -> Result<ToolResult, McpError> {
        let args = match input {
            Value::Object(map) => map,
            Value::Null => serde_json::Map::new(),
            other => {
                return Ok(ToolResult::error(format!("Invalid input: expected an object of arguments, got {other}")));
            }
        };
        let conn = self.connection(server).await?;
        let result = conn.call(tool, args, server.timeouts.call).await;
        if let Err(e @ McpError::Gone { .. }) = &result {
            self.report(server.name(), McpState::Failed, conn.pid(), Some(e));
        }
        result.map(to_tool_result)
    }

    /// Closes every connection of the run; their processes are gone when this returns.
    pub(crate) async fn close(self: &Arc<Self>) {
        let slots = std::mem::take(&mut *self.slots.lock());
        let closes: Vec<_> = slots
            .into_iter()
            .map(|(name, slot)| {
                let agent = self.clone();
                tokio::spawn(async move {
                    let Some(conn) = slot.lock().await.take() else { return };
                    let pid = conn.pid();
                    // A call still holding it (its agent stopped mid-call) drops it later; dropping kills the process.
                    if let Ok(conn) = Arc::try_unwrap(conn) {
                        conn.close().await;
                    }
                    agent.report(&name, McpState::Closed, pid, None);
                })
            })
            .collect();
        for close in closes {
            let _ = close.await;
        }
    }
}

/// One MCP tool bound to one agent's connections.
struct McpTool {
    def: McpToolDef,
    server: Arc<McpServer>,
    agent: Arc<AgentMcp>,
}

#[async_trait]
impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.def.model_name
    }

    fn description(&self) -> &str {
        &self.def.description
    }

    fn input_schema(&self) -> Value {
        self.def.input_schema.clone()
    }

    fn mcp(&self) -> Option<arbor_protocol::McpToolRef> {
        Some(arbor_protocol::McpToolRef { server: self.server.name().to_string(), tool: self.def.tool_name.clone() })
    }

    async fn preview(&self, _input: &Value, _ctx: &ToolContext) -> Option<crate::tools::Preview> {
        let r = self.mcp()?;
        Some(arbor_protocol::ApprovalPreview::Mcp { server: r.server, tool: r.tool }.into())
    }

    fn class(&self) -> ToolClass {
        if self.def.read_only { ToolClass::ReadOnly } else { ToolClass::Mutating }
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let call = self.agent.call(&self.server, &self.def.tool_name, input);
        let result = tokio::select! {
            r = call => r,
            _ = ctx.cancel.cancelled() => return ToolResult::error("Cancelled: the agent was stopped."),
        };
        result.unwrap_or_else(|e| ToolResult::error(format!("MCP server \"{}\" {e}", self.server.name())))
    }
}

/// The model's view of a tool result: its text, with other content described.
fn to_tool_result(r: CallToolResult) -> ToolResult {
    let mut parts: Vec<String> = r
        .content
        .iter()
        .map(|c| match c {
            ContentBlock::Text(t) => t.text.clone(),
            ContentBlock::Image(i) => format!("[image: {}, {} bytes]", i.mime_type, base64_len(&i.data)),
            ContentBlock::Audio(a) => format!("[audio: {}, {} bytes]", a.mime_type, base64_len(&a.data)),
            ContentBlock::Resource(res) => match &res.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => format!("[resource {uri}]\n{text}"),
                ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => format!(
                    "[resource {uri}: {}, {} bytes]",
                    mime_type.as_deref().unwrap_or("binary"),
                    base64_len(blob)
                ),
                _ => "[resource of a kind Arbor does not show]".to_string(),
            },
            ContentBlock::ResourceLink(link) => format!("[resource link: {} ({})]", link.uri, link.name),
            _ => "[content of a kind Arbor does not show]".to_string(),
        })
        .collect();
    if parts.is_empty()
        && let Some(structured) = &r.structured_content
    {
        parts.push(structured.to_string());
    }
    let text = cap_output(&parts.join("\n"), MAX_TOOL_OUTPUT_CHARS);
    ToolResult { content: text, is_error: r.is_error.unwrap_or(false), files_modified: Vec::new() }
}

/// The decoded size of base64 text.
fn base64_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}
