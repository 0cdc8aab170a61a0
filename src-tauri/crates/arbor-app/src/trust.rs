//! Which workspaces may start the MCP servers they name. A checked-out
//! repository can name any command in its `.mcp.json` or in its agent files'
//! `mcpServers`; those servers start only once a person has looked at them and
//! said yes. A decision is kept per workspace and per content (the file's
//! bytes and the agent files' server entries), so an edit asks again; the
//! servers then load from the very text that was trusted. The user's own
//! `mcp.json` and agent files are theirs and always trusted.

use crate::error::{AppError, AppErrorKind};
use arbor_core::definitions::DefinitionSource;
use arbor_core::{AgentDefinition, Clock, SystemClock};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Where the decisions are kept, in the config dir.
pub const TRUST_FILE: &str = "trusted-mcp.json";

/// What of a workspace would start servers, as a person decides on it.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct WorkspaceMcp {
    pub workspace: String,
    /// The `.mcp.json`, or the first agent file that defines a server.
    pub path: String,
    pub servers: Vec<ServerLaunch>,
    /// The hooks its `.claude/settings.json`, `settings.local.json` and agent files define:
    /// commands that run outside the sandbox, so they wait for the same decision.
    pub hooks: Vec<HookLaunch>,
    /// The `permissions.allow` rules of its settings files (`Bash(npm test:*)`, with the
    /// file): they let calls run unasked, so they wait for the decision too.
    pub allows: Vec<AllowRule>,
    /// Trusted as it is now.
    pub trusted: bool,
    /// Trusted once, but changed since.
    pub changed_since_trusted: bool,
    /// What a trust decision names: pass it back to trust exactly what was shown.
    pub sha256: String,
}

/// What starting one server runs, as written (never with `${VAR}` expanded:
/// those may be secrets): the command and arguments, or the URL, and the
/// names of the variables or headers it sets.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ServerLaunch {
    pub name: String,
    /// `.mcp.json`, or `agent type <name>`.
    pub defined_in: String,
    /// `stdio` or `http`.
    pub transport: String,
    pub command: String,
    pub args: Vec<String>,
    pub env_names: Vec<String>,
}

/// One hook a workspace defines, as written.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct HookLaunch {
    /// Claude Code's event name (`PreToolUse`, …).
    pub event: String,
    pub matcher: Option<String>,
    pub command: String,
    /// The settings file, or `agent type <name>`.
    pub defined_in: String,
}

/// A workspace settings file's allow rule, as written.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct AllowRule {
    pub rule: String,
    pub defined_in: String,
}

/// What was trusted, to load from: the `.mcp.json` text and the settings files as hashed.
#[derive(Debug, Clone, PartialEq)]
pub struct Trusted {
    pub mcp_json: Option<String>,
    pub settings: Vec<crate::claude_settings::SettingsText>,
}

#[derive(Debug, Error)]
pub enum TrustError {
    #[error("{} names no MCP servers to trust", .0.display())]
    Nothing(PathBuf),
    #[error("the workspace's MCP servers changed since they were shown; look at them again before trusting them")]
    Changed,
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
    /// SHA-256 of what would start, hex.
    sha256: String,
    trusted_at: i64,
}

/// A workspace's servers as found now, with what to load once trusted.
pub struct Inspected {
    pub info: WorkspaceMcp,
    mcp_json: Option<String>,
    settings: Vec<crate::claude_settings::SettingsText>,
}

impl Inspected {
    /// What to load from, if trusted (or trusted for this once).
    pub fn trusted(&self, once: bool) -> Option<Trusted> {
        (self.info.trusted || once)
            .then(|| Trusted { mcp_json: self.mcp_json.clone(), settings: self.settings.clone() })
    }
}

/// The decisions, in `file` (None: in memory only). Read afresh each time, so
/// the app and the command line see each other's decisions.
pub struct TrustStore {
    file: Option<PathBuf>,
    memory: parking_lot::Mutex<TrustFile>,
}

/// The workspace as decisions name it: canonical, so two spellings are one workspace.
fn canonical(workspace: &Path) -> PathBuf {
    std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf())
}

/// The server entries an agent file defines itself (not names of configured servers).
fn own_servers(def: &AgentDefinition) -> Vec<(&String, &Value)> {
    def.mcp_servers.iter().filter_map(Value::as_object).flat_map(|m| m.iter()).collect()
}

/// `def` without the servers it defines itself (those it names stay).
pub fn without_own_servers(def: &AgentDefinition) -> AgentDefinition {
    let mut d = def.clone();
    if d.source != Some(DefinitionSource::User) {
        d.mcp_servers.retain(Value::is_string);
    }
    d
}

/// `def` without its hooks unless it is the person's own file, and its external ACP
/// agent kept from starting: what an untrusted workspace's agent types run as.
pub fn without_workspace_hooks(def: AgentDefinition) -> AgentDefinition {
    if def.source == Some(DefinitionSource::User) {
        return def;
    }
    let acp = def.acp.map(|mut a| {
        a.blocked = Some(format!(
            "it runs `{}` from the workspace's agent file, and the workspace is not trusted yet \
             (trust it in the app, or with `arbor mcp trust`)",
            a.display()
        ));
        a
    });
    AgentDefinition { hooks: Default::default(), acp, ..def }
}

impl TrustStore {
    pub fn new(file: Option<PathBuf>) -> Self {
        Self { file, memory: parking_lot::Mutex::new(TrustFile::default()) }
    }

    fn load(&self) -> TrustFile {
        let Some(file) = &self.file else { return self.memory.lock().clone() };
        let Ok(text) = std::fs::read_to_string(file) else { return TrustFile::default() };
        serde_json::from_str(&text).unwrap_or_else(|e| {
            // Unreadable decisions trust nothing; the file is rewritten on the next decision.
            tracing::warn!("ignoring the MCP trust file {}: {e}", file.display());
            TrustFile::default()
        })
    }

    /// What of `workspace` would start servers: its `.mcp.json` and the servers
    /// its own agent files (`types` from the workspace) define; None when nothing.
    pub fn inspect(&self, workspace: &Path, types: &[AgentDefinition]) -> Option<Inspected> {
        let json_path = workspace.join(crate::mcp::WORKSPACE_FILE);
        let mcp_json = std::fs::read_to_string(&json_path).ok();
        let mut hash = Sha256::new();
        let mut servers = Vec::new();
        let mut path = None;
        if let Some(text) = &mcp_json {
            hash.update(text.as_bytes());
            path = Some(json_path.display().to_string());
            let parsed: Option<Value> = serde_json::from_str(text).ok();
            if let Some(Value::Object(map)) = parsed.as_ref().and_then(|v| v.get("mcpServers")) {
                servers.extend(map.iter().map(|(n, e)| launch_of(n, e, ".mcp.json")));
            }
        }
        for def in types.iter().filter(|d| d.source != Some(DefinitionSource::User)) {
            let own = own_servers(def);
            if own.is_empty() {
                continue;
            }
            hash.update(def.name.as_bytes());
            for (name, entry) in &own {
                hash.update(name.as_bytes());
                hash.update(entry.to_string().as_bytes());
                servers.push(launch_of(name, entry, &format!("agent type {}", def.name)));
            }
            if path.is_none() {
                path = def.file.as_ref().map(|f| f.display().to_string());
            }
        }
        // External ACP agents its agent files start: commands too, keyed the same way.
        for def in types.iter().filter(|d| d.source != Some(DefinitionSource::User)) {
            let Some(acp) = &def.acp else { continue };
            for part in std::iter::once(&def.name).chain([&acp.command]).chain(&acp.args).chain(acp.env.keys()) {
                hash.update(part.as_bytes());
                hash.update([2]);
            }
            servers.push(ServerLaunch {
                name: def.name.clone(),
                defined_in: format!("agent type {}", def.name),
                transport: "acp".into(),
                command: acp.command.clone(),
                args: acp.args.clone(),
                env_names: acp.env.keys().cloned().collect(),
            });
            if path.is_none() {
                path = def.file.as_ref().map(|f| f.display().to_string());
            }
        }
        // Hooks: each one's event, matcher and command (not the rest of the file, whose
        // other settings run nothing).
        let settings = crate::claude_settings::workspace_files(workspace);
        let mut hooks = Vec::new();
        let mut allows = Vec::new();
        for f in &settings {
            let (found, _) = crate::claude_settings::load(std::slice::from_ref(f));
            hooks.extend(found.iter().map(|h| hook_launch(h, &f.path.display().to_string())));
            let listed = crate::claude_settings::section(f, "permissions").ok();
            let allow = listed.as_ref().and_then(|p| p.get("allow")).and_then(Value::as_array);
            allows.extend(
                allow
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(|rule| AllowRule { rule: rule.to_string(), defined_in: f.path.display().to_string() }),
            );
        }
        for a in &allows {
            for part in [a.rule.as_str(), a.defined_in.as_str()] {
                hash.update(part.as_bytes());
                hash.update([1]);
            }
        }
        for def in types.iter().filter(|d| d.source != Some(DefinitionSource::User)) {
            hooks.extend(def.hooks.hooks().map(|h| hook_launch(h, &format!("agent type {}", def.name))));
        }
        for h in &hooks {
            for part in
                [h.event.as_str(), h.matcher.as_deref().unwrap_or("*"), h.command.as_str(), h.defined_in.as_str()]
            {
                hash.update(part.as_bytes());
                hash.update([0]);
            }
            if path.is_none() {
                path = Some(h.defined_in.clone());
            }
        }
        if mcp_json.is_none() && servers.is_empty() && hooks.is_empty() && allows.is_empty() {
            return None;
        }
        if path.is_none() {
            path = allows.first().map(|a| a.defined_in.clone());
        }
        let sha256: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let ws = canonical(workspace);
        let decisions = self.load();
        let known = decisions.workspaces.iter().find(|d| d.workspace == ws);
        let trusted = known.is_some_and(|d| d.sha256 == sha256);
        let info = WorkspaceMcp {
            workspace: workspace.display().to_string(),
            path: path.unwrap_or_else(|| json_path.display().to_string()),
            servers,
            hooks,
            allows,
            trusted,
            changed_since_trusted: known.is_some() && !trusted,
            sha256,
        };
        Some(Inspected { info, mcp_json, settings })
    }

    /// Trusts `workspace`'s servers as `seen` showed them; refused when they changed since.
    pub fn trust(&self, workspace: &Path, now: Option<&Inspected>, seen: &str, now_ms: i64) -> Result<(), TrustError> {
        let Some(now) = now else { return Err(TrustError::Nothing(workspace.into())) };
        if now.info.sha256 != seen {
            return Err(TrustError::Changed);
        }
        let ws = canonical(workspace);
        self.change(|d| {
            d.workspaces.retain(|x| x.workspace != ws);
            d.workspaces.push(Decision { workspace: ws.clone(), sha256: seen.to_string(), trusted_at: now_ms });
        })
        .map(|_| ())
    }

    /// Forgets the decision on the workspace; true if there was one.
    pub fn untrust(&self, workspace: &Path) -> Result<bool, TrustError> {
        let ws = canonical(workspace);
        self.change(|d| {
            let before = d.workspaces.len();
            d.workspaces.retain(|x| x.workspace != ws);
            d.workspaces.len() != before
        })
    }

    /// Reads the decisions, changes them and writes them back, under the lock.
    fn change<T>(&self, f: impl FnOnce(&mut TrustFile) -> T) -> Result<T, TrustError> {
        let mut memory = self.memory.lock();
        let Some(file) = &self.file else { return Ok(f(&mut memory)) };
        let mut decisions = self.load();
        let out = f(&mut decisions);
        let write = || -> std::io::Result<()> {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let text = serde_json::to_string_pretty(&decisions).map_err(std::io::Error::other)?;
            // Written whole under a name of this process's, then moved over the old file.
            let tmp = file.with_extension(format!("json.{}.tmp", std::process::id()));
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, file)
        };
        write().map_err(|source| TrustError::Write { path: file.clone(), source })?;
        Ok(out)
    }
}

impl crate::Host {
    fn inspect_workspace(&self, workspace: &Path) -> Option<Inspected> {
        let types = self.agent_types(workspace).definitions;
        self.trust.inspect(workspace, &types)
    }

    /// What of the workspace would start MCP servers, and whether it is trusted; None when nothing.
    pub fn workspace_mcp(&self, workspace: &Path) -> Option<WorkspaceMcp> {
        self.inspect_workspace(workspace).map(|i| i.info)
    }

    /// What to load of the workspace's servers (`types`: its agent types, as
    /// the catalog will use them): trusted, or trusted for this `once`.
    pub(crate) fn trusted_workspace(
        &self,
        workspace: &Path,
        types: &[AgentDefinition],
        once: bool,
    ) -> (Option<Trusted>, Option<WorkspaceMcp>) {
        match self.trust.inspect(workspace, types) {
            None => (Some(Trusted { mcp_json: None, settings: Vec::new() }), None),
            Some(i) => (i.trusted(once), Some(i.info)),
        }
    }

    /// Trusts the workspace's servers as `seen` (a [`WorkspaceMcp::sha256`]) showed them.
    pub fn trust_workspace_mcp(&self, workspace: &Path, seen: &str) -> Result<WorkspaceMcp, AppError> {
        let now = self.inspect_workspace(workspace);
        let kind = |e: &TrustError| match e {
            TrustError::Nothing(_) | TrustError::Changed => AppErrorKind::Workspace,
            TrustError::Write { .. } => AppErrorKind::Settings,
        };
        self.trust
            .trust(workspace, now.as_ref(), seen, SystemClock.now_ms())
            .map_err(|e| AppError::new(kind(&e), e.to_string()))?;
        tracing::info!(workspace = %workspace.display(), "workspace MCP servers trusted");
        self.workspace_mcp(workspace)
            .ok_or_else(|| AppError::new(AppErrorKind::Workspace, TrustError::Nothing(workspace.into()).to_string()))
    }

    /// Forgets the trust decision on the workspace; true if there was one.
    pub fn untrust_workspace_mcp(&self, workspace: &Path) -> Result<bool, AppError> {
        self.trust.untrust(workspace).map_err(|e| AppError::new(AppErrorKind::Settings, e.to_string()))
    }
}

/// The line a front end shows when a workspace's servers and hooks were left out.
pub fn untrusted_warning(w: &WorkspaceMcp) -> String {
    let names: Vec<&str> = w.servers.iter().map(|s| s.name.as_str()).collect();
    let what = if w.changed_since_trusted { "changed since it was trusted" } else { "is not trusted" };
    let servers = (!names.is_empty() || (w.hooks.is_empty() && w.allows.is_empty())).then(|| {
        format!(
            "its servers ({}) were not started",
            if names.is_empty() { "none usable".to_string() } else { names.join(", ") }
        )
    });
    let hooks = left_out(w.hooks.len(), "hook", "run");
    let allows = left_out(w.allows.len(), "allow rule", "applied");
    let left: Vec<String> = servers.into_iter().chain(hooks).chain(allows).collect();
    format!("{} {what}: {}", w.path, left.join("; "))
}

/// "its 2 hooks are not run"; None for none.
fn left_out(n: usize, noun: &str, done: &str) -> Option<String> {
    let (s, are) = if n == 1 { ("", "is") } else { ("s", "are") };
    (n > 0).then(|| format!("its {n} {noun}{s} {are} not {done}"))
}

fn hook_launch(h: &arbor_core::hooks::Hook, defined_in: &str) -> HookLaunch {
    HookLaunch {
        event: h.event.as_str().to_string(),
        matcher: h.matcher.clone(),
        command: h.command.clone(),
        defined_in: defined_in.to_string(),
    }
}

/// One server entry as written.
fn launch_of(name: &str, entry: &Value, defined_in: &str) -> ServerLaunch {
    let text = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
    let keys =
        |k: &str| entry.get(k).and_then(Value::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default();
    let (transport, command, env_names) = match entry.get("url") {
        Some(_) => ("http", text("url"), keys("headers")),
        None => ("stdio", text("command"), keys("env")),
    };
    let args = entry
        .get("args")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).collect())
        .unwrap_or_default();
    ServerLaunch {
        name: name.to_string(),
        defined_in: defined_in.to_string(),
        transport: transport.into(),
        command,
        args,
        env_names,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_holds_for_what_was_shown_and_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(&ws).unwrap();
        let store_file = dir.path().join("config").join(TRUST_FILE);
        let store = TrustStore::new(Some(store_file.clone()));
        assert!(store.inspect(&ws, &[]).is_none(), "nothing to decide");
        std::fs::write(
            ws.join(".mcp.json"),
            r#"{"mcpServers":{"tools":{"command":"node","args":["x.js","${TOKEN}"],"env":{"TOKEN":"secret"}}}}"#,
        )
        .unwrap();
        let seen = store.inspect(&ws, &[]).unwrap().info;
        assert!(!seen.trusted && !seen.changed_since_trusted);
        assert_eq!(seen.servers[0].command, "node");
        assert_eq!(seen.servers[0].args, vec!["x.js".to_string(), "${TOKEN}".to_string()], "as written");
        assert_eq!(seen.servers[0].env_names, vec!["TOKEN".to_string()], "names, never values");

        // Changed between being shown and being trusted: refused.
        std::fs::write(ws.join(".mcp.json"), r#"{"mcpServers":{"tools":{"command":"curl"}}}"#).unwrap();
        let now = store.inspect(&ws, &[]);
        assert!(matches!(store.trust(&ws, now.as_ref(), &seen.sha256, 1), Err(TrustError::Changed)));
        let shown = now.unwrap().info;
        store.trust(&ws, store.inspect(&ws, &[]).as_ref(), &shown.sha256, 1).unwrap();
        let trusted = store.inspect(&ws, &[]).unwrap();
        assert!(trusted.info.trusted);
        assert_eq!(
            trusted.trusted(false).and_then(|t| t.mcp_json),
            Some(r#"{"mcpServers":{"tools":{"command":"curl"}}}"#.into())
        );
        assert!(!std::fs::read_to_string(&store_file).unwrap().contains("secret"));

        // Another process sees it, and its untrust is seen here.
        let other = TrustStore::new(Some(store_file.clone()));
        assert!(other.inspect(&ws, &[]).unwrap().info.trusted, "kept in the file");
        assert!(other.untrust(&ws).unwrap());
        assert!(!store.inspect(&ws, &[]).unwrap().info.trusted, "read afresh");
        assert!(!other.untrust(&ws).unwrap());

        std::fs::write(ws.join(".mcp.json"), r#"{"mcpServers":{"tools":{"command":"sh"}}}"#).unwrap();
        store.trust(&ws, store.inspect(&ws, &[]).as_ref(), &store.inspect(&ws, &[]).unwrap().info.sha256, 2).unwrap();
        std::fs::write(ws.join(".mcp.json"), r#"{"mcpServers":{"tools":{"command":"rm"}}}"#).unwrap();
        let edited = store.inspect(&ws, &[]).unwrap();
        assert!(!edited.info.trusted && edited.info.changed_since_trusted, "an edited file asks again");
        assert!(edited.trusted(false).is_none() && edited.trusted(true).is_some(), "--trust-mcp: this once");
        assert!(matches!(store.trust(&dir.path().join("none"), None, "x", 3), Err(TrustError::Nothing(_))));
    }

    #[test]
    fn servers_a_workspace_agent_file_defines_need_trust_too() {
        let dir = tempfile::tempdir().unwrap();
        let store = TrustStore::new(None);
        let def = |source| AgentDefinition {
            name: "reviewer".into(),
            description: "d".into(),
            system_prompt: String::new(),
            tools: arbor_core::ToolFilter::default(),
            model: None,
            provider: None,
            max_turns: None,
            permission_mode: arbor_core::definitions::PermissionMode::Default,
            mcp_servers: vec![serde_json::json!("shared"), serde_json::json!({"own": {"command": "evil"}})],
            color: None,
            approve_spawn: false,
            sandbox: None,
            isolation: Default::default(),
            budget: Default::default(),
            context: Default::default(),
            hooks: Default::default(),
            acp: None,
            file: Some(dir.path().join(".claude/agents/reviewer.md")),
            source: Some(source),
        };
        let seen = store.inspect(dir.path(), &[def(DefinitionSource::ClaudeProject)]).unwrap().info;
        assert_eq!(seen.servers.len(), 1);
        assert_eq!(
            (seen.servers[0].command.as_str(), seen.servers[0].defined_in.as_str()),
            ("evil", "agent type reviewer")
        );
        assert!(seen.path.ends_with("reviewer.md"));
        assert!(store.inspect(dir.path(), &[def(DefinitionSource::User)]).is_none(), "the user's own types are theirs");
        let stripped = without_own_servers(&def(DefinitionSource::ClaudeProject));
        assert_eq!(stripped.mcp_servers, vec![serde_json::json!("shared")], "names of configured servers stay");
        assert_eq!(without_own_servers(&def(DefinitionSource::User)).mcp_servers.len(), 2);
    }
}
