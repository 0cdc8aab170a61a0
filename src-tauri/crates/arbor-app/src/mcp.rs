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
    /// The workspace's `.mcp.json` may start its servers (see [`crate::trust`]).
    pub workspace_trusted: bool,
}

impl McpSources<'_> {
    /// The files in the order they are read (a later one wins on a name clash):
    /// each with whether it may be missing and what its servers are labelled.
    fn sources(&self) -> Vec<(PathBuf, bool, McpSource)> {
        let user = self.config_dir.as_ref().map(|d| d.join(USER_FILE));
        let workspace = self.workspace.filter(|_| self.workspace_trusted).map(|w| w.join(WORKSPACE_FILE));
        let label = |p: &Path| p.display().to_string();
        user.into_iter()
            .map(|p| {
                let source = McpSource::File { path: label(&p) };
                (p, true, source)
            })
            .chain(workspace.map(|p| {
                let source = McpSource::Workspace { path: label(&p) };
                (p, true, source)
            }))
            .chain(self.files.iter().map(|p| (p.clone(), false, McpSource::File { path: label(p) })))
            .collect()
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
        for (path, optional, source) in self.sources() {
            match mcp::config::load_file(&path, optional, &env) {
                Ok(file) => {
                    servers.extend(file.servers.into_iter().map(|s| (s, source.clone())));
                    problems.extend(file.problems);
                }
                Err(e) => problems.push(e.to_string()),
            }
        }
        let mut catalog = McpCatalog::new(servers, McpTimeouts::default());
        catalog.add_agent_types(self.agent_types, &env);
        problems.extend(catalog.problems().iter().cloned());
        for p in &problems {
            tracing::warn!("mcp config: {p}");
        }
        (catalog, problems)
    }
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
