//! The servers a session's agents may use, each with its tool list fetched
//! once (a short-lived probe connection) and shared by every agent: spawning a
//! subagent starts no server. The app keeps one catalog per workspace across
//! sessions, so a server is probed once, not once per session.

use super::config::{self, EnvLookup, McpServerConfig};
use super::connection::Connection;
use super::{McpError, model_tool_name};
use crate::definitions::AgentDefinition;
use arbor_protocol::{McpServerInfo, McpServerState, McpSource, McpToolInfo};
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// How long a server may take to start and initialize, and to answer one request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McpTimeouts {
    pub startup: Duration,
    pub call: Duration,
}

impl Default for McpTimeouts {
    fn default() -> Self {
        Self { startup: Duration::from_secs(30), call: Duration::from_secs(120) }
    }
}

/// One tool of a server, as offered to models.
#[derive(Debug, Clone, PartialEq)]
pub struct McpToolDef {
    /// `mcp__<server>__<tool>`.
    pub model_name: String,
    /// The server's own name for it.
    pub tool_name: String,
    pub description: String,
    pub input_schema: Value,
    /// Annotated readOnlyHint: approved like Read; the rest ask by default.
    pub read_only: bool,
}

#[derive(Debug, Clone)]
enum Listing {
    Unchecked,
    Ready(Arc<[McpToolDef]>),
    Failed(McpError),
}

/// A configured server and what is known of its tools.
pub struct McpServer {
    pub config: McpServerConfig,
    pub source: McpSource,
    pub timeouts: McpTimeouts,
    /// One probe at a time; the others wait for its answer.
    probe: tokio::sync::Mutex<()>,
    listing: Mutex<Listing>,
}

impl McpServer {
    pub fn new(config: McpServerConfig, source: McpSource, timeouts: McpTimeouts) -> Self {
        Self { config, source, timeouts, probe: tokio::sync::Mutex::new(()), listing: Mutex::new(Listing::Unchecked) }
    }

    pub fn name(&self) -> &str {
        &self.config.name
    }

    fn listing(&self) -> Listing {
        self.listing.lock().clone()
    }

    fn set_listing(&self, l: Listing) {
        *self.listing.lock() = l;
    }

    /// Its tools: fetched on first need (starting the server once, then closing
    /// it), afterwards from memory. A failure is remembered until [`Self::forget`].
    pub async fn tools(&self) -> Result<Arc<[McpToolDef]>, McpError> {
        if let Some(known) = Self::known(self.listing()) {
            return known;
        }
        let _probe = self.probe.lock().await;
        if let Some(known) = Self::known(self.listing()) {
            return known;
        }
        let result = self.probe_tools().await;
        self.set_listing(match &result {
            Ok(tools) => Listing::Ready(tools.clone()),
            Err(e) => Listing::Failed(e.clone()),
        });
        result
    }

    fn known(l: Listing) -> Option<Result<Arc<[McpToolDef]>, McpError>> {
        match l {
            Listing::Unchecked => None,
            Listing::Ready(t) => Some(Ok(t)),
            Listing::Failed(e) => Some(Err(e)),
        }
    }

    /// Asks again next time (the person fixed the server, or asked to check).
    pub fn forget(&self) {
        self.set_listing(Listing::Unchecked);
    }

    async fn probe_tools(&self) -> Result<Arc<[McpToolDef]>, McpError> {
        let started = std::time::Instant::now();
        let conn = Connection::open(&self.config, self.timeouts.startup).await?;
        let listed = conn.list_tools(self.timeouts.call).await;
        conn.close().await;
        let mut defs: Vec<McpToolDef> = Vec::new();
        for t in listed? {
            let model_name = model_tool_name(&self.config.name, &t.name);
            if defs.iter().any(|d| d.model_name == model_name) {
                tracing::warn!(server = %self.config.name, tool = %t.name, "two tools share one name after cleaning; the second is left out");
                continue;
            }
            defs.push(McpToolDef {
                model_name,
                tool_name: t.name.to_string(),
                description: t.description.as_deref().or(t.title.as_deref()).unwrap_or_default().to_string(),
                input_schema: Value::Object((*t.input_schema).clone()),
                read_only: t.annotations.as_ref().and_then(|a| a.read_only_hint).unwrap_or(false),
            });
        }
        tracing::info!(server = %self.config.name, tools = defs.len(), ms = started.elapsed().as_millis() as u64, "mcp tools listed");
        Ok(defs.into())
    }

    pub fn info(&self) -> McpServerInfo {
        let (state, error, tools) = match self.listing() {
            Listing::Unchecked => (McpServerState::Unchecked, None, Vec::new()),
            Listing::Failed(e) => (McpServerState::Failed, Some(e.to_string()), Vec::new()),
            Listing::Ready(tools) => (
                McpServerState::Ready,
                None,
                tools
                    .iter()
                    .map(|t| McpToolInfo {
                        name: t.model_name.clone(),
                        tool: t.tool_name.clone(),
                        description: t.description.clone(),
                        read_only: t.read_only,
                    })
                    .collect(),
            ),
        };
        McpServerInfo {
            name: self.config.name.clone(),
            source: self.source.clone(),
            transport: self.config.transport_name().to_string(),
            target: self.config.target(),
            state,
            error,
            tools,
        }
    }
}

/// The servers of a workspace: those every agent gets, and those an agent type adds.
#[derive(Default)]
pub struct McpCatalog {
    shared: Vec<Arc<McpServer>>,
    by_type: BTreeMap<String, Vec<Arc<McpServer>>>,
    problems: Vec<String>,
    timeouts: McpTimeouts,
}

impl McpCatalog {
    /// Servers every agent gets; on a name clash the later one wins (settings
    /// before the workspace's `.mcp.json`, as Claude Code orders its scopes).
    pub fn new(servers: Vec<(McpServerConfig, McpSource)>, timeouts: McpTimeouts) -> Self {
        let mut shared: Vec<Arc<McpServer>> = Vec::new();
        for (config, source) in servers {
            shared.retain(|s| s.config.name != config.name);
            shared.push(Arc::new(McpServer::new(config, source, timeouts)));
        }
        Self { shared, by_type: BTreeMap::new(), problems: Vec::new(), timeouts }
    }

    /// Adds the servers agent definitions declare in `mcpServers`: an inline
    /// `{name: config}` is that type's own; a name must be a configured server
    /// (every agent has those already). What cannot be used is a problem.
    pub fn add_agent_types(&mut self, defs: &[AgentDefinition], env: EnvLookup<'_>) {
        for def in defs {
            let mut own = Vec::new();
            for entry in &def.mcp_servers {
                match entry {
                    Value::String(name) if self.shared.iter().any(|s| &s.config.name == name) => {}
                    Value::String(name) => self.problems.push(format!(
                        "agent type \"{}\": mcpServers names \"{name}\", which is not configured",
                        def.name
                    )),
                    Value::Object(map) => {
                        for (name, entry) in map {
                            match config::parse_server(name, entry, env) {
                                Ok(c) => match self.unique(&def.name, c) {
                                    Ok(server) => own.push(server),
                                    Err(problem) => self.problems.push(problem),
                                },
                                Err(e) => self
                                    .problems
                                    .push(format!("agent type \"{}\": mcpServers \"{name}\": {e}; skipped", def.name)),
                            }
                        }
                    }
                    other => self.problems.push(format!(
                        "agent type \"{}\": mcpServers entry {other} is neither a name nor a server",
                        def.name
                    )),
                }
            }
            if !own.is_empty() {
                self.by_type.insert(def.name.clone(), own);
            }
        }
    }

    /// The server for an agent type's inline `config`: one already declared the
    /// same way by another type is shared. A server name stands for one server in
    /// a workspace (tool names are built from it, and cached by name), so a name
    /// that is configured, or declared differently elsewhere, is refused.
    fn unique(&self, agent_type: &str, config: McpServerConfig) -> Result<Arc<McpServer>, String> {
        let name = config.name.clone();
        if self.shared.iter().any(|s| s.config.name == name) {
            return Err(format!(
                "agent type \"{agent_type}\": mcpServers declares \"{name}\", which is already configured; \
                 list it by name instead; skipped"
            ));
        }
        match self.by_type.values().flatten().find(|s| s.config.name == name) {
            Some(s) if s.config == config => Ok(s.clone()),
            Some(s) => Err(format!(
                "agent type \"{agent_type}\": mcpServers declares \"{name}\" differently from {}; \
                 give one another name; skipped",
                match &s.source {
                    McpSource::Agent { agent_type } => format!("agent type \"{agent_type}\""),
                    _ => "elsewhere".to_string(),
                }
            )),
            None => Ok(Arc::new(McpServer::new(
                config,
                McpSource::Agent { agent_type: agent_type.to_string() },
                self.timeouts,
            ))),
        }
    }

    /// Takes over `previous`'s servers whose configuration is unchanged, with
    /// what is known of their tools, so a new session does not probe them again.
    pub fn reuse(mut self, previous: &McpCatalog) -> Self {
        let old: Vec<&Arc<McpServer>> = previous.all().collect();
        let keep = |s: &mut Arc<McpServer>| {
            if let Some(o) = old.iter().find(|o| o.config == s.config && o.source == s.source) {
                *s = Arc::clone(o);
            }
        };
        self.shared.iter_mut().for_each(keep);
        self.by_type.values_mut().flatten().for_each(keep);
        self
    }

    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    pub fn is_empty(&self) -> bool {
        self.shared.is_empty() && self.by_type.is_empty()
    }

    /// The servers an agent of `agent_type` (None: the main agent) may use.
    pub fn servers_for(&self, agent_type: Option<&str>) -> Vec<Arc<McpServer>> {
        let own = agent_type.and_then(|t| self.by_type.get(t)).map(Vec::as_slice).unwrap_or_default();
        self.shared.iter().chain(own).cloned().collect()
    }

    /// Every server once (one declared alike by two agent types is one server).
    pub fn all(&self) -> impl Iterator<Item = &Arc<McpServer>> {
        let mut seen: Vec<*const McpServer> = Vec::new();
        self.shared.iter().chain(self.by_type.values().flatten()).filter(move |s| {
            let p = Arc::as_ptr(s);
            let first = !seen.contains(&p);
            seen.push(p);
            first
        })
    }

    /// Lists every server's tools at once (forgetting what was known first when `fresh`).
    pub async fn check(&self, fresh: bool) {
        let checks: Vec<_> = self
            .all()
            .map(|s| {
                let s = s.clone();
                tokio::spawn(async move {
                    if fresh {
                        s.forget();
                    }
                    let _ = s.tools().await;
                })
            })
            .collect();
        for check in checks {
            let _ = check.await;
        }
    }

    pub fn describe(&self) -> Vec<McpServerInfo> {
        self.all().map(|s| s.info()).collect()
    }
}
