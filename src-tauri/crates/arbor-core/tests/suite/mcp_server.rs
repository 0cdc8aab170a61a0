//! The tests' own MCP servers, in memory over `tokio::io::duplex`, for what the
//! reference servers never do: hang, die mid-call, fail, and answer garbage.

use arbor_core::mcp::{McpServerConfig, McpTransport, StreamConnector};
use rmcp::ErrorData;
use rmcp::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer, ServiceExt};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

/// A well-behaved server with tools that misbehave on purpose:
/// `echo {text}` (read-only), `note {text}` (may change things), `hang`, `crash`, `fail`.
#[derive(Clone, Default)]
pub struct Tiny {
    /// Told when `crash` is called: the connection is cut.
    cut: Arc<Notify>,
}

fn tool(name: &'static str, description: &'static str, read_only: bool) -> Tool {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    let Value::Object(schema) = schema else { unreachable!() };
    Tool::new(name, description, schema).with_annotations(ToolAnnotations::new().read_only(read_only))
}

impl ServerHandler for Tiny {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            tool("echo", "Echoes its text", true),
            tool("note", "Writes a note", false),
            tool("hang", "Never answers", true),
            tool("crash", "Cuts the connection mid-call", true),
            tool("fail", "Answers with a JSON-RPC error", true),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = request.arguments.as_ref().and_then(|a| a.get("text")).and_then(Value::as_str).unwrap_or("");
        match request.name.as_ref() {
            "echo" | "note" => Ok(CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(
                format!("tiny {}: {text}", request.name),
            )]))),
            "hang" => std::future::pending().await,
            "crash" => {
                self.cut.notify_one();
                std::future::pending().await
            }
            _ => Err(ErrorData::internal_error("the tool broke", None)),
        }
    }
}

/// How many connections a connector has opened.
#[derive(Clone, Default)]
pub struct Opened(Arc<AtomicUsize>);

impl Opened {
    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// A server named `name` running [`Tiny`] anew for every connection.
pub fn tiny(name: &str) -> (McpServerConfig, Opened) {
    let opened = Opened::default();
    let counter = opened.clone();
    let connector = StreamConnector(Arc::new(move || {
        counter.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            let (client, server) = tokio::io::duplex(64 * 1024);
            let handler = Tiny::default();
            let cut = handler.cut.clone();
            tokio::spawn(async move {
                let Ok(running) = handler.serve(tokio::io::split(server)).await else { return };
                tokio::select! {
                    _ = running.waiting() => {}
                    // Dropping the service closes its half of the stream: the client sees the server go away.
                    _ = cut.notified() => {}
                }
            });
            let (read, write) = tokio::io::split(client);
            Ok((Box::new(read) as _, Box::new(write) as _))
        })
    }));
    (McpServerConfig { name: name.to_string(), transport: McpTransport::Stream(connector) }, opened)
}

/// A server that initializes and lists `garble` and `misshape`, then answers a
/// call of `garble` with a line that is not JSON and of `misshape` with a
/// result of the wrong shape.
pub fn garbage(name: &str) -> McpServerConfig {
    let connector = StreamConnector(Arc::new(|| {
        Box::pin(async {
            let (client, server) = tokio::io::duplex(64 * 1024);
            tokio::spawn(async move {
                let (read, mut write) = tokio::io::split(server);
                let mut lines = BufReader::new(read).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
                    let id = msg["id"].clone();
                    let reply = match msg["method"].as_str() {
                        Some("initialize") => json!({"jsonrpc": "2.0", "id": id, "result": {
                            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                            "serverInfo": {"name": "garbage", "version": "0"}}})
                        .to_string(),
                        Some("tools/list") => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                            {"name": "garble", "inputSchema": {"type": "object"}},
                            {"name": "misshape", "inputSchema": {"type": "object"}}]}})
                        .to_string(),
                        Some("tools/call") if msg["params"]["name"] == "garble" => "}}} this is not JSON {{{".into(),
                        Some("tools/call") => {
                            json!({"jsonrpc": "2.0", "id": id, "result": {"content": 42}}).to_string()
                        }
                        _ => continue,
                    };
                    if write.write_all(format!("{reply}\n").as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
            let (read, write) = tokio::io::split(client);
            Ok((Box::new(read) as _, Box::new(write) as _))
        })
    }));
    McpServerConfig { name: name.to_string(), transport: McpTransport::Stream(connector) }
}
