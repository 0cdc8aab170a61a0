//! [`Host`]: the one API both front ends call, organised by noun across this
//! crate's modules: sessions ([`crate::sessions`]: launch, send, stop), history
//! ([`crate::transcripts`]), settings, keys and providers (here), MCP servers
//! and agent types. Transport-neutral: the Tauri commands and the CLI are thin
//! clients of it, and a socket server would be a third.

use crate::catalog::{self, CatalogReport};
use crate::env::Environment;
use crate::error::{AppError, AppErrorKind};
use crate::keys::{self, KeySource, SecretStore};
use crate::live::LiveSessions;
use crate::mcp::{McpCatalogs, McpListing, McpReport, McpSources};
use crate::providers::{self, ProviderKind};
use crate::record::Problem;
use crate::sessions::SessionInfo;
use crate::settings::{ApprovalChoice, Settings};
use crate::trust::TrustStore;
use arbor_core::provider::Timeouts;
use arbor_core::tools::{ToolClass, ToolRegistry};
use arbor_core::{ApprovalPolicy, Clock, Providers, Sandboxing, SystemClock};
use arbor_store::Store;
use parking_lot::Mutex;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the UI needs to draw its first screen.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AppState {
    /// Where this answer stands among the host's: each is numbered before anything in it
    /// is read, so it holds every change made before then, and a change answers with one
    /// numbered after it. The commands that answer one run side by side (a keyring or a
    /// file may keep one waiting), so they may arrive out of order; the page keeps the
    /// highest it has.
    pub taken: u64,
    pub settings: Settings,
    /// A settings file that could not be read (the app runs on defaults, the file is left alone).
    pub settings_problem: Option<String>,
    pub providers: Vec<ProviderState>,
    pub keyring: KeyringState,
    /// The sessions running in this process, in the order they started.
    pub sessions: Vec<SessionInfo>,
    pub default_workspace: String,
    /// The tools whose approval can be chosen in settings.
    pub tools: Vec<ToolInfo>,
    pub transcripts: TranscriptState,
    pub sandbox: SandboxAvailability,
    /// Sessions that were still at work when the process writing them died, found at
    /// start-up: the app offers to continue them. Empty once continued or dismissed.
    pub interrupted: Vec<arbor_protocol::SessionSummary>,
    /// The folder Import reads when none is chosen (Claude Code's projects), if known.
    pub claude_code_dir: Option<String>,
}

/// Whether this machine can sandbox commands, for Settings to say before any session runs.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SandboxAvailability {
    /// What enforces it, e.g. `bubblewrap 0.8.0`; None when nothing can.
    pub mechanism: Option<String>,
    /// Why commands cannot be sandboxed here.
    pub problem: Option<String>,
}

/// Where sessions are kept, and why they are not when they cannot be.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TranscriptState {
    /// The store's file; None when no data dir was given.
    pub path: Option<String>,
    /// The file could not be opened (locked, damaged, newer) or a write failed.
    pub problem: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ProviderState {
    pub kind: ProviderKind,
    pub label: String,
    pub key_source: KeySource,
    /// The environment variable a key may come from.
    pub key_var: String,
    pub base_url: String,
    pub default_model: String,
    /// A session can start on it.
    pub ready: bool,
    pub problem: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct KeyringState {
    pub available: bool,
    pub problem: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ToolInfo {
    pub name: String,
    pub class: ToolClass,
    /// What applies when settings do not name the tool.
    pub default: ApprovalChoice,
}

pub struct HostConfig {
    /// The process environment, captured by the binary (keys, base URLs, `${VAR}` in MCP files).
    pub env: Environment,
    /// Where settings are read and saved; None: the defaults, nothing saved (the command line).
    pub settings_file: Option<PathBuf>,
    /// The user's config dir: their `mcp.json` and `agents/`.
    pub config_dir: Option<PathBuf>,
    pub secrets: Box<dyn SecretStore>,
    /// The workspace offered first when settings name none.
    pub default_workspace: PathBuf,
    /// Where demo projects are written.
    pub scratch_dir: PathBuf,
    /// Where the transcript store lives; None keeps no transcripts.
    pub data_dir: Option<PathBuf>,
}

pub struct Host {
    pub(crate) config: HostConfig,
    settings: Mutex<(Settings, Option<String>)>,
    /// The sessions this process runs now, side by side.
    pub(crate) live: LiveSessions,
    /// The open store, or why it could not be opened.
    store: Option<Result<Arc<Store>, String>>,
    /// A write that failed since (shown, not fatal).
    pub(crate) store_problem: Problem,
    /// MCP servers with their known tool lists, kept across sessions.
    mcp: McpCatalogs,
    /// Which workspaces' `.mcp.json` may start servers.
    pub(crate) trust: TrustStore,
    /// What this machine can sandbox commands with, probed at first need.
    sandboxing: std::sync::OnceLock<Arc<Sandboxing>>,
    /// The sessions start-up found interrupted, not yet continued or dismissed.
    pub(crate) interrupted: Mutex<Vec<arbor_protocol::SessionId>>,
    /// The number the last [`AppState`] was given.
    states_taken: std::sync::atomic::AtomicU64,
    /// Held while the settings are written ([`Host::update_settings`]).
    settings_writes: Mutex<()>,
}

/// The sessions the last quit closed with agents at work, in the data dir: offered at the next start.
const CLOSED_BUSY_FILE: &str = "closed-at-work.json";

pub(crate) fn err(kind: AppErrorKind, e: impl std::fmt::Display) -> AppError {
    AppError::new(kind, e.to_string())
}

impl Host {
    pub fn new(config: HostConfig) -> Host {
        let loaded = match config.settings_file.as_deref().map(Settings::load) {
            Some(Ok(s)) => (s, None),
            Some(Err(e)) => {
                tracing::warn!("{e}");
                (Settings::default(), Some(e.to_string()))
            }
            None => (Settings::default(), None),
        };
        let mut interrupted = Vec::new();
        let store = config.data_dir.as_deref().map(|dir| {
            let path = dir.join(Store::FILE_NAME);
            // The store's own thread (the WAL's copy into the file) yields as its writers do.
            let options =
                arbor_store::OpenOptions { background: Some(crate::priority::lower_this_thread), ..Default::default() };
            let store = Store::open_with(&path, options).map_err(|e| {
                tracing::error!(error = %e, "the transcript store cannot be opened");
                e.to_string()
            })?;
            // Sessions of a process that died: what was running is marked interrupted.
            match store.recover(SystemClock.now_ms()) {
                Ok(ids) => {
                    if !ids.is_empty() {
                        tracing::info!(sessions = ids.len(), "marked interrupted sessions");
                    }
                    interrupted = ids;
                }
                Err(e) => tracing::warn!(error = %e, "could not mark interrupted sessions"),
            }
            Ok(Arc::new(store))
        });
        let trust = TrustStore::new(config.config_dir.as_ref().map(|d| d.join(crate::trust::TRUST_FILE)));
        Host {
            config,
            settings: Mutex::new(loaded),
            live: LiveSessions::default(),
            store,
            store_problem: Problem::default(),
            mcp: McpCatalogs::default(),
            trust,
            sandboxing: std::sync::OnceLock::new(),
            interrupted: Mutex::new(interrupted),
            states_taken: std::sync::atomic::AtomicU64::new(0),
            settings_writes: Mutex::new(()),
        }
        .with_closed_busy()
    }

    /// Where `close_all` notes the sessions it closed with agents at work (None: no data dir).
    pub(crate) fn closed_busy_file(&self) -> Option<PathBuf> {
        self.config.data_dir.as_ref().map(|d| d.join(CLOSED_BUSY_FILE))
    }

    /// The sessions the last quit closed at work join the start-up offer (read once, then forgotten).
    fn with_closed_busy(self) -> Host {
        let Some(file) = self.closed_busy_file() else { return self };
        let Ok(bytes) = std::fs::read(&file) else { return self };
        if let Err(e) = std::fs::remove_file(&file) {
            tracing::warn!(error = %e, file = %file.display(), "could not forget the sessions closed at work");
        }
        match serde_json::from_slice::<Vec<arbor_protocol::SessionId>>(&bytes) {
            Ok(ids) => {
                let mut offered = self.interrupted.lock();
                for id in ids {
                    if !offered.contains(&id) {
                        offered.push(id);
                    }
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, file = %file.display(), "the sessions closed at work were not readable")
            }
        }
        self
    }

    /// Forgets the sessions start-up found interrupted: the person chose not to continue them now.
    pub fn dismiss_interrupted(&self) {
        self.interrupted.lock().clear();
    }

    /// The sessions start-up found interrupted, as the history lists them, newest first.
    fn interrupted_sessions(&self) -> Vec<arbor_protocol::SessionSummary> {
        let ids = self.interrupted.lock().clone();
        let Ok(store) = self.store() else { return Vec::new() };
        let mut out: Vec<_> = ids.iter().filter_map(|id| store.session(id).ok().map(|d| d.session)).collect();
        out.sort_by_key(|s| std::cmp::Reverse(s.started_at));
        out
    }

    /// The store, or a typed error saying why there is none.
    pub fn store(&self) -> Result<Arc<Store>, AppError> {
        match &self.store {
            Some(Ok(s)) => Ok(s.clone()),
            Some(Err(e)) => Err(AppError::new(AppErrorKind::Store, e.clone())),
            None => Err(AppError::new(AppErrorKind::Store, "no transcripts are kept (no data folder)")),
        }
    }

    pub fn env(&self) -> &Environment {
        &self.config.env
    }

    pub fn settings(&self) -> Settings {
        self.settings.lock().0.clone()
    }

    /// Everything the UI's first screen needs. It reads the keyring and the disk, which may
    /// wait (a keyring's unlock prompt, a dead mount): not for a thread that must not wait.
    pub fn state(&self) -> AppState {
        // Numbered before anything is read, so an answer holds every change made before its
        // number was drawn; a write answers with a state drawn after it.
        let taken = self.states_taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let (settings, settings_problem) = self.settings.lock().clone();
        let keyring = match self.config.secrets.status() {
            Ok(()) => KeyringState { available: true, problem: None },
            Err(e) => KeyringState { available: false, problem: Some(e.to_string()) },
        };
        let providers = ProviderKind::ALL.iter().map(|k| self.provider_state(*k, &settings)).collect();
        let default_workspace = self.default_workspace(&settings);
        AppState {
            taken,
            settings,
            settings_problem,
            providers,
            keyring,
            sessions: self.live.infos(),
            default_workspace,
            tools: tool_infos(),
            transcripts: TranscriptState {
                path: self.config.data_dir.as_ref().map(|d| d.join(Store::FILE_NAME).display().to_string()),
                problem: match &self.store {
                    Some(Err(e)) => Some(e.clone()),
                    _ => self.store_problem.get(),
                },
            },
            sandbox: match self.sandboxing().support() {
                Ok(m) => SandboxAvailability { mechanism: Some(m.to_string()), problem: None },
                Err(why) => SandboxAvailability { mechanism: None, problem: Some(why.to_string()) },
            },
            interrupted: self.interrupted_sessions(),
            claude_code_dir: self.claude_code_dir().map(|d| d.display().to_string()),
        }
    }

    /// The workspace the session form offers first: the last one used, while it is there.
    fn default_workspace(&self, settings: &Settings) -> String {
        settings
            .last_workspace
            .clone()
            .filter(|w| Path::new(w).is_dir())
            .unwrap_or_else(|| self.config.default_workspace.display().to_string())
    }

    /// What this machine can sandbox commands with: bubblewrap from `PATH`, if it
    /// works here (checked once, by running it, in the background). Arbor's own config and data are
    /// hidden from commands, like the other secret places.
    pub fn sandboxing(&self) -> Arc<Sandboxing> {
        self.sandboxing
            .get_or_init(|| {
                let env = &self.config.env;
                let bwrap = env
                    .get("PATH")
                    .into_iter()
                    .flat_map(std::env::split_paths)
                    .map(|dir| dir.join("bwrap"))
                    .find(|p| p.is_file());
                let own: Vec<PathBuf> =
                    self.config.config_dir.iter().chain(self.config.data_dir.iter()).cloned().collect();
                let probed = Arc::new(Sandboxing::probe(bwrap, env.dir("HOME"), self.config.scratch_dir.clone(), &own));
                probed.probe_ahead();
                probed
            })
            .clone()
    }

    fn base_url(&self, kind: ProviderKind, settings: &Settings) -> String {
        settings
            .provider(kind)
            .base_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .or_else(|| self.config.env.get(kind.base_url_var()).map(str::to_string))
            .unwrap_or_else(|| kind.default_base_url().to_string())
    }

    fn provider_state(&self, kind: ProviderKind, settings: &Settings) -> ProviderState {
        let base_url = self.base_url(kind, settings);
        let (key, mut key_source) = keys::resolve(self.config.secrets.as_ref(), kind, &self.config.env);
        let needs_key = kind.needs_key(&base_url);
        if key.is_none() && !needs_key {
            key_source = KeySource::NotNeeded;
        }
        let ready = key.is_some() || !needs_key;
        let problem = (!ready).then(|| format!("no API key: save one here or set {}", kind.key_var()));
        ProviderState {
            kind,
            label: kind.label().to_string(),
            key_source,
            key_var: kind.key_var().to_string(),
            base_url,
            default_model: settings
                .provider(kind)
                .default_model
                .clone()
                .filter(|m| !m.trim().is_empty())
                .unwrap_or_else(|| kind.default_model().to_string()),
            ready,
            problem,
        }
    }

    /// The provider a session starts on when none is named: the settings'
    /// default when it is ready, else the first that is.
    pub(crate) fn default_provider(&self, settings: &Settings) -> Result<ProviderKind, AppError> {
        let ready = |k: ProviderKind| self.provider_state(k, settings).ready;
        settings
            .default_provider
            .filter(|k| ready(*k))
            .or_else(|| ProviderKind::ALL.into_iter().find(|k| ready(*k)))
            .ok_or_else(|| {
                AppError::new(
                    AppErrorKind::Provider,
                    "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY (or a base URL \
                 for a local server: OPENAI_BASE_URL for Ollama, llama.cpp, vLLM, LM Studio), or try the demo",
                )
            })
    }

    pub(crate) fn default_model(&self, kind: ProviderKind, settings: &Settings) -> String {
        self.provider_state(kind, settings).default_model
    }

    /// Every provider that can be built now, once `kind` (the main agent's) is
    /// ready: agent types may name another one than the main agent's.
    pub(crate) fn ready_providers(
        &self,
        kind: ProviderKind,
        settings: &Settings,
        timeouts: Timeouts,
    ) -> Result<Providers, AppError> {
        let state = self.provider_state(kind, settings);
        if !state.ready {
            return Err(AppError::new(
                AppErrorKind::Provider,
                format!("{}: {}", kind.label(), state.problem.unwrap_or_default()),
            ));
        }
        let mut out = Providers::new();
        for kind in ProviderKind::ALL {
            let (key, _) = keys::resolve(self.config.secrets.as_ref(), kind, &self.config.env);
            match providers::build(kind, Some(self.base_url(kind, settings)), key, timeouts) {
                Ok(p) => {
                    out.insert(kind.name().to_string(), p);
                }
                Err(e) => tracing::debug!("provider {} not available: {e}", kind.name()),
            }
        }
        Ok(out)
    }

    /// The subagent types found for `workspace` (else the default one), with the files that failed.
    pub fn catalog(&self, workspace: Option<String>) -> CatalogReport {
        let ws = workspace
            .filter(|w| !w.trim().is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(self.default_workspace(&self.settings())));
        let catalog = self.agent_types(&ws);
        self.reload_agent_types(&ws, &catalog.definitions);
        CatalogReport::from(&catalog)
    }

    pub(crate) fn agent_types(&self, workspace: &Path) -> arbor_core::definitions::Catalog {
        catalog::load(workspace, self.config.config_dir.as_deref())
    }

    /// The MCP servers a session in `workspace` would have (`files`: more config
    /// files, as `--mcp-config` gives), and the problems met reading them.
    pub(crate) fn mcp_catalog(
        &self,
        workspace: &Path,
        files: &[PathBuf],
        agent_types: &[arbor_core::AgentDefinition],
        trusted: Option<crate::trust::Trusted>,
        client: Option<&crate::mcp::ClientServers>,
    ) -> (Arc<arbor_core::mcp::McpCatalog>, Vec<String>, Vec<PathBuf>) {
        let sources = McpSources {
            config_dir: self.config.config_dir.clone(),
            workspace: Some(workspace),
            files,
            agent_types,
            env: &self.config.env,
            trusted,
            client,
        };
        let (catalog, problems) = self.mcp.get(&sources);
        (catalog, problems, sources.paths())
    }

    /// The MCP servers `workspace` (else the last one used) would give its
    /// agents, with their tools, listing those not listed yet (all again when
    /// `fresh`): each server starts once for this, then stops. A workspace's
    /// `.mcp.json` that is not trusted is described, never started.
    pub async fn mcp_servers(&self, workspace: Option<String>, files: &[PathBuf], listing: McpListing) -> McpReport {
        // The files read may hang (a dead mount): not on one of the runtime's workers.
        let (catalog, problems, files, trust) = crate::off_worker(|| {
            let workspace = workspace
                .filter(|w| !w.trim().is_empty())
                .or_else(|| self.settings().last_workspace)
                .map(PathBuf::from)
                .filter(|w| w.is_dir());
            let definitions = workspace.as_deref().map(|w| self.agent_types(w).definitions).unwrap_or_default();
            let (trusted, trust) = match workspace.as_deref() {
                Some(w) => self.trusted_workspace(w, &definitions, listing.trust_workspace),
                None => (None, None),
            };
            let sources = McpSources {
                config_dir: self.config.config_dir.clone(),
                workspace: workspace.as_deref(),
                files,
                agent_types: &definitions,
                env: &self.config.env,
                trusted,
                client: None,
            };
            let (catalog, problems) = self.mcp.get(&sources);
            let files: Vec<String> = sources.paths().iter().map(|f| f.display().to_string()).collect();
            (catalog, problems, files, trust)
        });
        catalog.check(listing.fresh).await;
        McpReport { servers: catalog.describe(), problems, files, workspace: trust }
    }

    pub(crate) fn store_settings(&self, settings: Settings) -> Result<(), AppError> {
        self.update_settings(|s| *s = settings)
    }

    /// Changes the settings as they are now, in the file and in memory, one change at a
    /// time: saves run side by side (the desktop's commands, a start remembering its
    /// workspace), the file is written through one temporary name, and a change made on
    /// a copy read earlier would undo whatever was saved since.
    pub(crate) fn update_settings(&self, change: impl FnOnce(&mut Settings)) -> Result<(), AppError> {
        let _one_at_a_time = self.settings_writes.lock();
        let mut settings = self.settings();
        change(&mut settings);
        settings.validate().map_err(|e| err(AppErrorKind::Settings, e))?;
        if let Some(path) = &self.config.settings_file {
            settings.save(path).map_err(|e| err(AppErrorKind::Settings, e))?;
        }
        *self.settings.lock() = (settings, None);
        Ok(())
    }

    pub fn save_settings(&self, settings: Settings) -> Result<AppState, AppError> {
        self.store_settings(settings)?;
        Ok(self.state())
    }

    pub fn set_api_key(&self, kind: ProviderKind, key: String) -> Result<AppState, AppError> {
        let key = key.trim();
        if key.is_empty() {
            return Err(AppError::new(AppErrorKind::Keyring, "the API key is empty"));
        }
        self.config.secrets.set(kind, key).map_err(|e| err(AppErrorKind::Keyring, e))?;
        tracing::info!(provider = kind.name(), "API key saved in the keyring");
        Ok(self.state())
    }

    pub fn clear_api_key(&self, kind: ProviderKind) -> Result<AppState, AppError> {
        self.config.secrets.delete(kind).map_err(|e| err(AppErrorKind::Keyring, e))?;
        tracing::info!(provider = kind.name(), "API key removed from the keyring");
        Ok(self.state())
    }
}

/// The tools whose approval a person can choose, with the class each is in.
fn tool_infos() -> Vec<ToolInfo> {
    let policy = ApprovalPolicy::default();
    let builtins = ToolRegistry::builtins();
    let mut tools: Vec<(String, ToolClass)> = builtins.iter().map(|t| (t.name().to_string(), t.class())).collect();
    tools.extend(arbor_core::subagents_tools().into_iter().map(|(n, c)| (n.to_string(), c)));
    tools
        .into_iter()
        .map(|(name, class)| ToolInfo { default: policy.decide(&name, class).into(), class, name })
        .collect()
}
