//! Which workspaces' `.mcp.json` a person trusts to start the commands it
//! names. A checked-out repository can name any command there; its servers
//! start only once a person has looked at them and said yes. A decision is kept
//! per workspace and per content of the file, so an edited file asks again.
//! The user's own `mcp.json` is theirs and always trusted.

use crate::error::{AppError, AppErrorKind};
use arbor_core::mcp::{self, McpServerConfig, McpTransport};
use arbor_core::{Clock, SystemClock};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Where the decisions are kept, in the config dir.
pub const TRUST_FILE: &str = "trusted-mcp.json";

/// A workspace's `.mcp.json` as a person decides on it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct WorkspaceMcp {
    pub workspace: String,
    /// The file.
    pub path: String,
    pub servers: Vec<ServerLaunch>,
    /// Trusted as the file is now.
    pub trusted: bool,
    /// Trusted once, but the file changed since.
    pub changed_since_trusted: bool,
}

/// What starting one server runs: the command and arguments, or the URL; the
/// names of the variables it sets (not their values: they may be secrets).
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ServerLaunch {
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    pub command: String,
    pub args: Vec<String>,
    pub env_names: Vec<String>,
}

#[derive(Debug, Error)]
pub enum TrustError {
    #[error("{} has no .mcp.json to trust", .0.display())]
    NoFile(PathBuf),
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot save the trust decision in {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct TrustFile {
    #[serde(default)]
    workspaces: Vec<Decision>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Decision {
    workspace: PathBuf,
    /// SHA-256 of the file's bytes, hex.
    sha256: String,
    trusted_at: i64,
}

/// The decisions, read from and saved to `file` (None: kept in memory only).
pub struct TrustStore {
    file: Option<PathBuf>,
    memory: parking_lot::Mutex<TrustFile>,
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The workspace as decisions name it: canonical, so two spellings are one workspace.
fn canonical(workspace: &Path) -> PathBuf {
    std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf())
}

impl TrustStore {
    pub fn new(file: Option<PathBuf>) -> Self {
        let loaded = file
            .as_deref()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|text| match serde_json::from_str::<TrustFile>(&text) {
                Ok(t) => Some(t),
                Err(e) => {
                    // Unreadable decisions trust nothing; the file is rewritten on the next decision.
                    tracing::warn!("ignoring the MCP trust file: {e}");
                    None
                }
            })
            .unwrap_or_default();
        Self { file, memory: parking_lot::Mutex::new(loaded) }
    }

    /// The workspace's `.mcp.json` and whether it is trusted as it is now; None when it has none.
    pub fn inspect(&self, workspace: &Path, env: mcp::config::EnvLookup<'_>) -> Option<WorkspaceMcp> {
        let path = workspace.join(crate::mcp::WORKSPACE_FILE);
        let bytes = std::fs::read(&path).ok()?;
        let servers = match mcp::config::load_file(&path, true, env) {
            Ok(file) => file.servers.iter().map(launch_of).collect(),
            // The catalog reports the problem; nothing of it can start anyway.
            Err(_) => Vec::new(),
        };
        let sha = digest(&bytes);
        let ws = canonical(workspace);
        let memory = self.memory.lock();
        let known = memory.workspaces.iter().find(|d| d.workspace == ws);
        let trusted = known.is_some_and(|d| d.sha256 == sha);
        Some(WorkspaceMcp {
            workspace: workspace.display().to_string(),
            path: path.display().to_string(),
            servers,
            trusted,
            changed_since_trusted: known.is_some() && !trusted,
        })
    }

    /// Trusts the workspace's `.mcp.json` as it is now.
    pub fn trust(&self, workspace: &Path, now_ms: i64) -> Result<(), TrustError> {
        let path = workspace.join(crate::mcp::WORKSPACE_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(TrustError::NoFile(workspace.into())),
            Err(source) => return Err(TrustError::Read { path, source }),
        };
        let ws = canonical(workspace);
        let mut memory = self.memory.lock();
        memory.workspaces.retain(|d| d.workspace != ws);
        memory.workspaces.push(Decision { workspace: ws, sha256: digest(&bytes), trusted_at: now_ms });
        self.save(&memory)
    }

    /// Forgets the decision on the workspace; true if there was one.
    pub fn untrust(&self, workspace: &Path) -> Result<bool, TrustError> {
        let ws = canonical(workspace);
        let mut memory = self.memory.lock();
        let before = memory.workspaces.len();
        memory.workspaces.retain(|d| d.workspace != ws);
        let had = memory.workspaces.len() != before;
        if had {
            self.save(&memory)?;
        }
        Ok(had)
    }

    fn save(&self, decisions: &TrustFile) -> Result<(), TrustError> {
        let Some(file) = &self.file else { return Ok(()) };
        let write = || -> std::io::Result<()> {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let text = serde_json::to_string_pretty(decisions).map_err(std::io::Error::other)?;
            // Written whole, then moved over the old file: a crash leaves one or the other.
            let tmp = file.with_extension("json.tmp");
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, file)
        };
        write().map_err(|source| TrustError::Write { path: file.clone(), source })
    }
}

impl crate::Host {
    /// The workspace's `.mcp.json` and whether it is trusted; None when it has none.
    pub fn workspace_mcp(&self, workspace: &Path) -> Option<WorkspaceMcp> {
        let env = |name: &str| self.config.env.raw(name);
        self.trust.inspect(workspace, &env)
    }

    /// Trusts the workspace's `.mcp.json` as it is now: its servers may start.
    pub fn trust_workspace_mcp(&self, workspace: &Path) -> Result<WorkspaceMcp, AppError> {
        let kind = |e: &TrustError| match e {
            TrustError::NoFile(_) => AppErrorKind::Workspace,
            _ => AppErrorKind::Settings,
        };
        self.trust.trust(workspace, SystemClock.now_ms()).map_err(|e| AppError::new(kind(&e), e.to_string()))?;
        tracing::info!(workspace = %workspace.display(), "workspace MCP servers trusted");
        self.workspace_mcp(workspace)
            .ok_or_else(|| AppError::new(AppErrorKind::Workspace, TrustError::NoFile(workspace.into()).to_string()))
    }

    /// Forgets the trust decision on the workspace; true if there was one.
    pub fn untrust_workspace_mcp(&self, workspace: &Path) -> Result<bool, AppError> {
        self.trust.untrust(workspace).map_err(|e| AppError::new(AppErrorKind::Settings, e.to_string()))
    }
}

/// The line a front end shows when a workspace's servers were left out.
pub fn untrusted_warning(w: &WorkspaceMcp) -> String {
    let names: Vec<&str> = w.servers.iter().map(|s| s.name.as_str()).collect();
    let what = if w.changed_since_trusted { "changed since it was trusted" } else { "is not trusted" };
    format!(
        "{} {what}: its servers ({}) were not started",
        w.path,
        if names.is_empty() { "none usable".to_string() } else { names.join(", ") }
    )
}

fn launch_of(s: &McpServerConfig) -> ServerLaunch {
    let (transport, command, args, env_names) = match &s.transport {
        McpTransport::Stdio { command, args, env, .. } => {
            ("stdio", command.clone(), args.clone(), env.keys().cloned().collect())
        }
        McpTransport::Http { url, headers } => ("http", url.clone(), Vec::new(), headers.keys().cloned().collect()),
        McpTransport::Stream(_) => ("stream", String::new(), Vec::new(), Vec::new()),
    };
    ServerLaunch { name: s.name.clone(), transport: transport.to_string(), command, args, env_names }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_decision_holds_for_the_file_as_it_was_and_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let store_file = dir.path().join("config").join(TRUST_FILE);
        let store = TrustStore::new(Some(store_file.clone()));
        assert_eq!(store.inspect(&ws, &no_env), None, "no file, nothing to decide");
        std::fs::write(
            ws.join(".mcp.json"),
            r#"{"mcpServers":{"tools":{"command":"node","args":["x.js"],"env":{"TOKEN":"secret"}}}}"#,
        )
        .unwrap();
        let seen = store.inspect(&ws, &no_env).unwrap();
        assert!(!seen.trusted && !seen.changed_since_trusted);
        assert_eq!(seen.servers[0].command, "node");
        assert_eq!(seen.servers[0].args, vec!["x.js".to_string()]);
        assert_eq!(seen.servers[0].env_names, vec!["TOKEN".to_string()], "names, never values");

        store.trust(&ws, 1).unwrap();
        assert!(store.inspect(&ws, &no_env).unwrap().trusted);
        assert!(!std::fs::read_to_string(&store_file).unwrap().contains("secret"));
        let reopened = TrustStore::new(Some(store_file.clone()));
        assert!(reopened.inspect(&ws, &no_env).unwrap().trusted, "kept in the file");

        std::fs::write(ws.join(".mcp.json"), r#"{"mcpServers":{"tools":{"command":"curl"}}}"#).unwrap();
        let edited = reopened.inspect(&ws, &no_env).unwrap();
        assert!(!edited.trusted && edited.changed_since_trusted, "an edited file asks again");

        assert!(reopened.untrust(&ws).unwrap());
        assert!(!reopened.untrust(&ws).unwrap());
        assert!(!TrustStore::new(Some(store_file)).inspect(&ws, &no_env).unwrap().changed_since_trusted);
        assert!(matches!(reopened.trust(&dir.path().join("none"), 2), Err(TrustError::NoFile(_))));
    }
}
