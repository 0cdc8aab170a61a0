//! One connection to one MCP server: start it (a child process in its own
//! process group, a streamable HTTP session, or a byte stream made by code),
//! initialize, list tools, call tools, and close it so that nothing it started
//! outlives the connection.

use super::McpError;
use super::config::{McpServerConfig, McpTransport};
use crate::process::{Signal, signal_group};
use parking_lot::Mutex;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, JsonObject,
    ProtocolVersion, Tool,
};
use rmcp::service::{RoleClient, RunningService, ServiceError, serve_client};
use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// How much of a server's stderr is kept to explain its failures.
const STDERR_TAIL_BYTES: usize = 2_000;
/// How long a closed server gets to exit on its own before it is signalled.
const EXIT_GRACE: Duration = Duration::from_millis(300);

/// The MCP handshake over `transport`, within `timeout`. It runs as its own task:
/// rmcp's startup future is Send only when spawned on its own (not when nested in
/// another future, where the compiler cannot prove it).
async fn initialize<T, E, A: 'static>(
    transport: T,
    timeout: Duration,
) -> Result<RunningService<RoleClient, ClientConfig>, McpError>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let task = AbortOnDrop(tokio::spawn(serve_client(client_config(), transport)));
    match tokio::time::timeout(timeout, async { (&mut { task }.0).await }).await {
        Ok(Ok(Ok(service))) => Ok(service),
        Ok(Ok(Err(e))) => Err(McpError::Startup { detail: describe(&e), stderr: None }),
        Ok(Err(join)) => Err(McpError::Startup { detail: join.to_string(), stderr: None }),
        Err(_) => Err(McpError::StartTimeout { secs: timeout.as_secs_f32(), stderr: None }),
    }
}

/// An initialized connection.
pub(crate) struct Connection {
    service: RunningService<RoleClient, ClientConfig>,
    process: Option<ServerProcess>,
}

fn client_config() -> ClientConfig {
    ClientConfig::new(ClientCapabilities::default(), Implementation::new("arbor", env!("CARGO_PKG_VERSION")))
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
}

impl Connection {
    /// Starts the server and initializes it within `timeout`.
    pub(crate) async fn open(config: &McpServerConfig, timeout: Duration) -> Result<Self, McpError> {
        match &config.transport {
            McpTransport::Stdio { .. } => {
                let mut process = ServerProcess::spawn(config)?;
                let (Some(stdout), Some(stdin)) = (process.child.stdout.take(), process.child.stdin.take()) else {
                    return Err(McpError::Startup { detail: "its stdio could not be opened".into(), stderr: None });
                };
                match initialize((stdout, stdin), timeout).await {
                    Ok(service) => Ok(Self { service, process: Some(process) }),
                    Err(McpError::Startup { detail, .. }) => {
                        let stderr = process.stderr_after_exit().await;
                        Err(McpError::Startup { detail, stderr })
                    }
                    Err(McpError::StartTimeout { secs, .. }) => {
                        Err(McpError::StartTimeout { secs, stderr: process.stderr() })
                    }
                    Err(e) => Err(e),
                }
            }
            McpTransport::Http { url, headers } => {
                use rmcp::transport::StreamableHttpClientTransport;
                use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
                let mut custom = std::collections::HashMap::new();
                for (k, v) in headers {
                    let name = reqwest::header::HeaderName::from_bytes(k.as_bytes())
                        .map_err(|_| McpError::Config(format!("header name {k:?} is not valid")))?;
                    let value = reqwest::header::HeaderValue::from_str(v)
                        .map_err(|_| McpError::Config(format!("the value of header {k} is not valid")))?;
                    custom.insert(name, value);
                }
                let client =
                    crate::provider::mcp_client().map_err(|detail| McpError::Startup { detail, stderr: None })?;
                let transport = StreamableHttpClientTransport::with_client(
                    client,
                    StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom),
                );
                Self::serve(transport, timeout).await
            }
            McpTransport::Stream(connector) => {
                let stream =
                    (connector.0)().await.map_err(|e| McpError::Startup { detail: e.to_string(), stderr: None })?;
                Self::serve(stream, timeout).await
            }
        }
    }

    async fn serve<T, E, A: 'static>(transport: T, timeout: Duration) -> Result<Self, McpError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
    {
        Ok(Self { service: initialize(transport, timeout).await?, process: None })
    }

    /// The server's process id, for a stdio server.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.process.as_ref().and_then(|p| p.child.id())
    }

    /// Every tool, across pages.
    pub(crate) async fn list_tools(&self, timeout: Duration) -> Result<Vec<Tool>, McpError> {
        let peer = self.service.peer().clone();
        self.request(async move { peer.list_all_tools().await }, timeout).await
    }

    pub(crate) async fn call(
        &self,
        tool: &str,
        args: JsonObject,
        timeout: Duration,
    ) -> Result<CallToolResult, McpError> {
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        let peer = self.service.peer().clone();
        self.request(async move { peer.call_tool(params).await }, timeout).await
    }

    /// Runs a request as its own task (rmcp's request futures are Send only for
    /// owned peers), abandoned (and so cancelled at the server) when the caller
    /// stops waiting.
    async fn request<T: Send + 'static>(
        &self,
        request: impl Future<Output = Result<T, ServiceError>> + Send + 'static,
        timeout: Duration,
    ) -> Result<T, McpError> {
        let task = AbortOnDrop(tokio::spawn(request));
        match tokio::time::timeout(timeout, async { (&mut { task }.0).await }).await {
            Ok(Ok(Ok(value))) => Ok(value),
            Ok(Ok(Err(e))) => Err(self.explain(e)),
            Ok(Err(join)) => Err(McpError::Protocol(format!("the request failed: {join}"))),
            Err(_) => Err(McpError::CallTimeout { secs: timeout.as_secs_f32() }),
        }
    }

    /// True once the transport is gone (the server exited or hung up).
    pub(crate) fn is_closed(&self) -> bool {
        self.service.is_transport_closed()
    }

    fn explain(&self, e: ServiceError) -> McpError {
        match e {
            ServiceError::McpError(data) => McpError::Server { code: data.code.0, message: data.message.to_string() },
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => McpError::Gone {
                stderr: match &self.process {
                    Some(p) => p.stderr(),
                    None => None,
                },
            },
            ServiceError::UnexpectedResponse => McpError::Protocol("it answered with an unexpected response".into()),
            other => McpError::Protocol(other.to_string()),
        }
    }

    /// Closes the session, then makes sure the server's processes are gone:
    /// stdin closed, a moment to exit, then SIGTERM and SIGKILL to its group.
    pub(crate) async fn close(self) {
        let Self { service, process } = self;
        let _ = service.cancel().await;
        if let Some(p) = process {
            p.stop().await;
        }
    }
}

/// An error and its causes in words: rmcp's transport errors name Rust types,
/// which tell a person nothing, so those links of the chain are left out.
fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if !text.contains("rmcp::") && !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        next = err.source();
    }
    if !parts.is_empty() {
        return parts.join(": ");
    }
    // "Send message error Transport [<types>] error: Client error: <what>, when <doing>"
    let text = e.to_string();
    match text.split_once("] error: ") {
        Some((_, what)) => what.trim_start_matches("Client error: ").replace(", when send ", " (sending the ") + ")",
        None => text,
    }
}

struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A stdio server's process, the leader of its own process group so that what it
/// starts (npx starts node) is stopped with it.
struct ServerProcess {
    child: Child,
    stderr: Arc<Mutex<VecDeque<String>>>,
    reader: Option<tokio::task::JoinHandle<()>>,
}

impl ServerProcess {
    fn spawn(config: &McpServerConfig) -> Result<Self, McpError> {
        let McpTransport::Stdio { command, args, env, cwd } = &config.transport else {
            return Err(McpError::Config("not a stdio server".into()));
        };
        let mut cmd = Command::new(command);
        cmd.args(args)
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().map_err(|e| McpError::Spawn { command: command.clone(), reason: e.to_string() })?;
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let reader = child.stderr.take().map(|pipe| {
            let tail = stderr.clone();
            let server = config.name.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(pipe).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    tracing::debug!(server = %server, "mcp stderr: {line}");
                    let mut tail = tail.lock();
                    tail.push_back(line);
                    while tail.iter().map(String::len).sum::<usize>() > STDERR_TAIL_BYTES && tail.len() > 1 {
                        tail.pop_front();
                    }
                }
            })
        });
        Ok(Self { child, stderr, reader })
    }

    fn stderr(&self) -> Option<String> {
        let tail = self.stderr.lock();
        let text = tail.iter().map(String::as_str).collect::<Vec<_>>().join("\n");
        (!text.trim().is_empty()).then_some(text)
    }

    /// Its stderr once it has exited (briefly waited for), so the reason it gives is complete.
    async fn stderr_after_exit(&mut self) -> Option<String> {
        let _ = tokio::time::timeout(EXIT_GRACE, self.child.wait()).await;
        if let Some(reader) = self.reader.take() {
            let _ = tokio::time::timeout(EXIT_GRACE, reader).await;
        }
        self.stderr()
    }

    fn group(&self) -> Option<u32> {
        self.child.id()
    }

    async fn stop(mut self) {
        let group = self.group();
        if tokio::time::timeout(EXIT_GRACE, self.child.wait()).await.is_err() {
            signal_group(group, Signal::TERM);
            if tokio::time::timeout(EXIT_GRACE, self.child.wait()).await.is_err() {
                signal_group(group, Signal::KILL);
                let _ = self.child.wait().await;
            }
        }
        // The leader is gone; anything it started in its group goes too.
        signal_group(group, Signal::KILL);
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // A connection dropped without close() (its agent's task aborted): no server outlives it.
        if let Ok(None) = self.child.try_wait() {
            signal_group(self.group(), Signal::KILL);
        }
        if let Some(reader) = self.reader.take() {
            reader.abort();
        }
    }
}
