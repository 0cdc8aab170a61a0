//! The MCP servers of a workspace: the user's `<config dir>/mcp.json`, the
//! workspace's `.mcp.json` (it wins on a name clash, as the more specific), any
//! files given on the command line, and agent types' own servers. Both files use
//! the `mcpServers` format Claude Code and Claude Desktop users already have.
//! The app keeps one catalog per workspace across sessions, so a server's tool
//! list is fetched once, not once per session.

use crate::env::Environment;
use arbor_core::AgentDefinition;
use arbor_core::mcp::{self, McpCatalog, McpTimeouts};
use arbor_protocol::{McpServerInfo, McpSource};
use parking_lot::Mutex;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The user's servers, in the config dir.
pub const USER_FILE: &str = "mcp.json";
/// A workspace's servers, at its root (Claude Code's project scope).
pub const WORKSPACE_FILE: &str = ".mcp.json";

/// The configured servers with their state and tools, and what could not be used.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct McpReport {
    pub servers: Vec<McpServerInfo>,
    pub problems: Vec<String>,
    /// The files read (or looked for), so the person knows where to edit.
    pub files: Vec<String>,
    /// The workspace's `.mcp.json`, when it has one: its servers are listed
    /// above only once it is trusted; until then nothing of it was started.
    pub workspace: Option<crate::trust::WorkspaceMcp>,
}

/// How to list a workspace's servers.
#[derive(Debug, Clone, Copy, Default)]
pub struct McpListing {
    /// List every server's tools again, not only those not listed yet.
    pub fresh: bool,
    /// Start the workspace's `.mcp.json` servers for this listing even if it is not trusted.
    pub trust_workspace: bool,
}

/// Where a workspace's servers come from.
pub struct McpSources<'a> {
    pub config_dir: Option<PathBuf>,
    pub workspace: Option<&'a Path>,
    /// `--mcp-config` files: they must exist.
    pub files: &'a [PathBuf],
    pub agent_types: &'a [AgentDefinition],
    /// For `${VAR}` in the files.
    pub env: &'a Environment,
    /// What of the workspace may start servers, as a person trusted it (see
    /// [`crate::trust`]); None: nothing of it (its `.mcp.json` and the servers
    /// its agent files define are left out).
    pub trusted: Option<crate::trust::Trusted>,
    /// Servers an ACP client gave with the session (the person's editor chose them,
    /// as a `--mcp-config` file would): read last, so they win on a name clash.
    pub client: Option<&'a ClientServers>,
}

/// The MCP servers the editor driving a session over ACP passed with it.
#[derive(Debug, Clone, Default)]
pub struct ClientServers {
    /// The client's name as it introduced itself (`clientInfo.name`).
    pub client: String,
    pub servers: Vec<mcp::McpServerConfig>,
}

impl McpSources<'_> {
    /// The files in the order they are read (a later one wins on a name clash):
    /// each with how it is read and what its servers are labelled.
    fn sources(&self) -> Vec<(PathBuf, Read<'_>, McpSource)> {
        let label = |p: &Path| p.display().to_string();
        let user = self.config_dir.as_ref().map(|d| d.join(USER_FILE)).map(|p| {
            let source = McpSource::File { path: label(&p) };
            (p, Read::Optional, source)
        });
        // The workspace's file is parsed from the very text that was trusted, or not at all.
        let workspace = self.workspace.map(|w| w.join(WORKSPACE_FILE)).map(|p| {
            let text = self.trusted.as_ref().and_then(|t| t.mcp_json.as_deref());
            let source = McpSource::Workspace { path: label(&p) };
            (p, text.map_or(Read::Skip, Read::Text), source)
        });
        let files = self.files.iter().map(|p| (p.clone(), Read::Required, McpSource::File { path: label(p) }));
        user.into_iter().chain(workspace).chain(files).collect()
    }

    /// The files in the order they are read.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.sources().into_iter().map(|(p, _, _)| p).collect()
    }

    /// A catalog of every server, and the problems met on the way (a bad file
    /// or entry is skipped, the rest load). `${VAR}` comes from the environment.
    pub fn build(&self) -> (McpCatalog, Vec<String>) {
        let env = |name: &str| self.env.raw(name);
        let mut servers = Vec::new();
        let mut problems = Vec::new();
        for (path, read, source) in self.sources() {
            let loaded = match read {
                Read::Optional => mcp::config::load_file(&path, true, &env),
                Read::Required => mcp::config::load_file(&path, false, &env),
                Read::Text(text) => mcp::config::parse_file(&path, text, &env),
                Read::Skip => continue,
            };
            match loaded {
                Ok(file) => {
                    servers.extend(file.servers.into_iter().map(|s| (s, source.clone())));
                    problems.extend(file.problems);
                }
                Err(e) => problems.push(e.to_string()),
            }
        }
        if let Some(given) = self.client {
            let source = McpSource::Client { client: given.client.clone() };
            servers.extend(given.servers.iter().cloned().map(|s| (s, source.clone())));
        }
        let mut catalog = McpCatalog::new(servers, McpTimeouts::default());
        // Servers a workspace's agent file defines run commands too: only once trusted.
        let types: Vec<AgentDefinition> = match &self.trusted {
            Some(_) => self.agent_types.to_vec(),
            None => self.agent_types.iter().map(crate::trust::without_own_servers).collect(),
        };
        catalog.add_agent_types(&types, &env);
        problems.extend(catalog.problems().iter().cloned());
        for p in &problems {
            tracing::warn!("mcp config: {p}");
        }
        (catalog, problems)
    }
}

/// How one config file is read.
enum Read<'a> {
    /// It may be missing.
    Optional,
    /// It must exist (`--mcp-config`).
    Required,
    /// Already read (and trusted as this text).
    Text(&'a str),
    /// Not trusted: not read at all.
    Skip,
}

/// The app's latest catalog, kept across sessions and workspaces.
#[derive(Default)]
pub struct McpCatalogs {
    current: Mutex<Option<Arc<McpCatalog>>>,
}

impl McpCatalogs {
    /// The catalog for `sources`, built afresh from the files (they may have been
    /// edited) but keeping the known tool lists of servers whose config is unchanged.
    pub fn get(&self, sources: &McpSources<'_>) -> (Arc<McpCatalog>, Vec<String>) {
        let (fresh, problems) = sources.build();
        let mut current = self.current.lock();
        let catalog = Arc::new(match current.as_ref() {
            Some(previous) => fresh.reuse(previous),
            None => fresh,
        });
        *current = Some(catalog.clone());
        (catalog, problems)
    }
}
