//! The desktop app's command API, free of Tauri: the state the UI renders
//! first (settings, providers, keyring, the running session), starting a
//! session or the demo, the commands a person sends to agents, and settings
//! and keys. `src-tauri` wraps each method in a one-line command.

use crate::catalog::{self, AgentTypeInfo, CatalogReport};
use crate::demo;
use crate::error::{AppError, AppErrorKind};
use crate::keys::{self, KeySource, SecretStore};
use crate::mcp::{McpCatalogs, McpReport, McpSources};
use crate::providers::{self, ProviderKind};
use crate::record::{Problem, Recorder, Writing};
use crate::settings::{ApprovalChoice, Settings};
use arbor_core::approval::Decision;
use arbor_core::provider::ApiKey;
use arbor_core::tools::{ToolClass, ToolRegistry};
use arbor_core::{ApprovalPolicy, Clock, EventStream, Providers, ResumeState, Session, SessionConfig, SystemClock};
use arbor_protocol::{AgentId, Command, SessionId};
use arbor_store::{NewSession, Store};
use arbor_testkit::ScriptedServer;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// What the UI needs to draw its first screen.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AppState {
    pub settings: Settings,
    /// A settings file that could not be read (the app runs on defaults, the file is left alone).
    pub settings_problem: Option<String>,
    pub providers: Vec<ProviderState>,
    pub keyring: KeyringState,
    pub session: Option<SessionInfo>,
    pub default_workspace: String,
    /// The tools whose approval can be chosen in settings.
    pub tools: Vec<ToolInfo>,
    pub transcripts: TranscriptState,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ToolClassName {
    ReadOnly,
    Mutating,
    Delegation,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ToolInfo {
    pub name: String,
    pub class: ToolClassName,
    /// What applies when settings do not name the tool.
    pub default: ApprovalChoice,
}

#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct StartRequest {
    pub workspace: String,
    pub provider: ProviderKind,
    /// Empty: the provider's default model.
    pub model: String,
    pub prompt: String,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SessionInfo {
    pub session_id: SessionId,
    pub main_agent_id: AgentId,
    pub workspace: String,
    pub provider: String,
    pub model: String,
    /// The scripted demonstration rather than a real model.
    pub demo: bool,
    /// The subagent types a Delegate… form may offer.
    pub agent_types: Vec<AgentTypeInfo>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct CommandReply {
    /// The subagent a `delegate` command started.
    pub delegated: Option<AgentId>,
}

pub(crate) struct Running {
    pub(crate) session: Session,
    info: SessionInfo,
    /// The demo's scripted model, alive as long as its session.
    pub(crate) server: Option<ScriptedServer>,
    /// The store's writer for it, when it is recorded.
    writing: Option<Writing>,
}

pub struct HostConfig {
    /// Where settings.json lives; None: settings are not saved.
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
    config: HostConfig,
    settings: Mutex<(Settings, Option<String>)>,
    pub(crate) running: Mutex<Option<Running>>,
    /// The open store, or why it could not be opened.
    pub(crate) store: Option<Result<Arc<Store>, String>>,
    /// A write that failed since (shown, not fatal).
    store_problem: Problem,
    /// MCP servers with their known tool lists, kept across sessions.
    mcp: McpCatalogs,
}

/// How a session is launched: a new one, or a stored one resumed.
pub(crate) struct Launch<'a> {
    pub(crate) workspace: &'a Path,
    pub(crate) provider: &'a str,
    pub(crate) model: &'a str,
    pub(crate) providers: Providers,
    pub(crate) approval: ApprovalPolicy,
    /// For the main agent; None resumes without one.
    pub(crate) prompt: Option<&'a str>,
    pub(crate) server: Option<ScriptedServer>,
    pub(crate) resume: Option<ResumeState>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(crate) fn err(kind: AppErrorKind, e: impl std::fmt::Display) -> AppError {
    AppError::new(kind, e.to_string())
}

impl Host {
    pub fn new(config: HostConfig) -> Host {
        let loaded = match config.config_dir.as_deref().map(|d| Settings::load(&d.join("settings.json"))) {
            Some(Ok(s)) => (s, None),
            Some(Err(e)) => {
                tracing::warn!("{e}");
                (Settings::default(), Some(e.to_string()))
            }
            None => (Settings::default(), None),
        };
        let store = config.data_dir.as_deref().map(|dir| {
            let path = dir.join(Store::FILE_NAME);
            let store = Store::open(&path).map_err(|e| {
                tracing::error!(error = %e, "the transcript store cannot be opened");
                e.to_string()
            })?;
            // Sessions of a process that died: what was running is marked interrupted.
            match store.recover(SystemClock.now_ms()) {
                Ok(ids) if !ids.is_empty() => tracing::info!(sessions = ids.len(), "marked interrupted sessions"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "could not mark interrupted sessions"),
            }
            Ok(Arc::new(store))
        });
        Host {
            config,
            settings: Mutex::new(loaded),
            running: Mutex::new(None),
            store,
            store_problem: Problem::default(),
            mcp: McpCatalogs::default(),
        }
    }

    /// The store, or a typed error saying why there is none.
    pub(crate) fn store(&self) -> Result<Arc<Store>, AppError> {
        match &self.store {
            Some(Ok(s)) => Ok(s.clone()),
            Some(Err(e)) => Err(AppError::new(AppErrorKind::Store, e.clone())),
            None => Err(AppError::new(AppErrorKind::Store, "no transcripts are kept (no data folder)")),
        }
    }

    fn settings_path(&self) -> Option<PathBuf> {
        self.config.config_dir.as_ref().map(|d| d.join("settings.json"))
    }

    pub fn settings(&self) -> Settings {
        lock(&self.settings).0.clone()
    }

    pub fn state(&self) -> AppState {
        let (settings, settings_problem) = lock(&self.settings).clone();
        let keyring = match self.config.secrets.status() {
            Ok(()) => KeyringState { available: true, problem: None },
            Err(e) => KeyringState { available: false, problem: Some(e.to_string()) },
        };
        let providers = ProviderKind::ALL.iter().map(|k| self.provider_state(*k, &settings)).collect();
        let default_workspace = settings
            .last_workspace
            .clone()
            .filter(|w| Path::new(w).is_dir())
            .unwrap_or_else(|| self.config.default_workspace.display().to_string());
        AppState {
            settings,
            settings_problem,
            providers,
            keyring,
            session: lock(&self.running).as_ref().map(|r| r.info.clone()),
            default_workspace,
            tools: tool_infos(),
            transcripts: TranscriptState {
                path: self.config.data_dir.as_ref().map(|d| d.join(Store::FILE_NAME).display().to_string()),
                problem: match &self.store {
                    Some(Err(e)) => Some(e.clone()),
                    _ => self.store_problem.get(),
                },
            },
        }
    }

    fn base_url(kind: ProviderKind, settings: &Settings) -> String {
        settings
            .provider(kind)
            .base_url
            .clone()
            .filter(|u| !u.trim().is_empty())
            .or_else(|| providers::env(kind.base_url_var()))
            .unwrap_or_else(|| kind.default_base_url().to_string())
    }

    fn provider_state(&self, kind: ProviderKind, settings: &Settings) -> ProviderState {
        let base_url = Self::base_url(kind, settings);
        let (key, mut key_source) = keys::resolve(self.config.secrets.as_ref(), kind);
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

    /// Every provider that can be built now, once `kind` (the main agent's) is ready.
    pub(crate) fn ready_providers(&self, kind: ProviderKind, settings: &Settings) -> Result<Providers, AppError> {
        let state = self.provider_state(kind, settings);
        if !state.ready {
            return Err(AppError::new(
                AppErrorKind::Provider,
                format!("{}: {}", kind.label(), state.problem.unwrap_or_default()),
            ));
        }
        Ok(self.build_providers(settings))
    }

    /// Every provider that can be built now, so agent types may name another one than the main agent's.
    fn build_providers(&self, settings: &Settings) -> Providers {
        let mut out = Providers::new();
        for kind in ProviderKind::ALL {
            let (key, _) = keys::resolve(self.config.secrets.as_ref(), kind);
            match providers::build(kind, Some(Self::base_url(kind, settings)), key) {
                Ok(p) => {
                    out.insert(kind.name().to_string(), p);
                }
                Err(e) => tracing::debug!("provider {} not available: {e}", kind.name()),
            }
        }
        out
    }

    /// Stops the running session (if any) and starts one on `request`, whose
    /// prompt goes to the new main agent. The caller forwards the returned events.
    pub fn start_session(&self, request: StartRequest) -> Result<(SessionInfo, EventStream), AppError> {
        let workspace = PathBuf::from(request.workspace.trim());
        if !workspace.is_dir() {
            return Err(AppError::new(
                AppErrorKind::Workspace,
                format!("the workspace {} is not a folder", workspace.display()),
            ));
        }
        if request.prompt.trim().is_empty() {
            return Err(AppError::new(AppErrorKind::Session, "write a prompt for the main agent first"));
        }
        let mut settings = self.settings();
        let kind = request.provider;
        let providers = self.ready_providers(kind, &settings)?;
        let model = Some(request.model.trim().to_string())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| self.provider_state(kind, &settings).default_model);
        let (info, events) = self.launch(
            Launch {
                workspace: &workspace,
                provider: kind.name(),
                model: &model,
                providers,
                approval: settings.approval_policy(),
                prompt: Some(&request.prompt),
                server: None,
                resume: None,
            },
            &settings,
        )?;
        settings.last_workspace = Some(workspace.display().to_string());
        if let Err(e) = self.store_settings(settings) {
            tracing::warn!("remembering the workspace: {}", e.message);
        }
        Ok((info, events))
    }

    /// Starts the scripted demonstration in a fresh sample project. Nothing
    /// leaves loopback and no key is needed.
    pub async fn start_demo(&self) -> Result<(SessionInfo, EventStream), AppError> {
        let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
        let workspace = self.config.scratch_dir.join(format!("arbor-demo-{stamp}"));
        std::fs::create_dir_all(&workspace).map_err(|e| {
            AppError::new(AppErrorKind::Demo, format!("cannot create the demo project {}: {e}", workspace.display()))
        })?;
        demo::write_sample(&workspace).map_err(|e| err(AppErrorKind::Demo, e))?;
        let server = demo::start_server().await.map_err(|e| err(AppErrorKind::Demo, e))?;
        let provider =
            providers::build(ProviderKind::Anthropic, Some(server.anthropic_base_url()), Some(ApiKey::new(demo::KEY)))
                .map_err(|e| err(AppErrorKind::Demo, e))?;
        let mut providers = Providers::new();
        providers.insert(ProviderKind::Anthropic.name().to_string(), provider);
        let settings = self.settings();
        self.launch(
            Launch {
                workspace: &workspace,
                provider: ProviderKind::Anthropic.name(),
                model: demo::MODEL,
                providers,
                approval: ApprovalPolicy::default(),
                prompt: Some(demo::PROMPT),
                server: Some(server),
                resume: None,
            },
            &settings,
        )
    }

    /// Stops the running session, then starts (or resumes) one, recorded in the
    /// store when there is one: the returned events have been stored first.
    pub(crate) fn launch(&self, l: Launch<'_>, settings: &Settings) -> Result<(SessionInfo, EventStream), AppError> {
        let Some(main_provider) = l.providers.get(l.provider).cloned() else {
            return Err(AppError::new(AppErrorKind::Provider, format!("the {} provider is not set up", l.provider)));
        };
        let mut config = SessionConfig::new(l.workspace, l.provider, main_provider, l.model);
        config.providers = l.providers;
        config.approval = l.approval;
        config.limits = settings.runtime_limits();
        config.main_agent.max_turns = settings.limits.main_max_turns;
        let catalog = catalog::load(l.workspace);
        for p in &catalog.problems {
            tracing::warn!("agent file: {p}");
        }
        let agent_types = catalog.definitions.iter().map(AgentTypeInfo::from_definition).collect();
        (config.mcp, _) = self.mcp.get(&McpSources {
            config_dir: self.config.config_dir.clone(),
            workspace: Some(l.workspace),
            files: &[],
            agent_types: &catalog.definitions,
        });
        config.agent_types = catalog.definitions;
        let store = match &self.store {
            Some(Ok(s)) => Some(s.clone()),
            _ => None,
        };
        let recorder = store.as_ref().map(|_| Recorder::new());
        config.journal = recorder.as_ref().map(Recorder::journal);
        self.stop();
        let started = match l.resume {
            Some(state) => Session::resume(config, state),
            None => Session::start(config),
        };
        let (session, mut events) = started.map_err(|e| err(AppErrorKind::Session, e))?;
        let mut writing = None;
        if let (Some(store), Some(recorder)) = (store, recorder) {
            let new = NewSession {
                id: session.id().clone(),
                workspace: session.workspace().root().display().to_string(),
                first_prompt: l.prompt.unwrap_or_default().to_string(),
                provider: l.provider.to_string(),
                model: l.model.to_string(),
                started_at: SystemClock.now_ms(),
            };
            events = match recorder.record(store, new, events, self.store_problem.clone()) {
                Ok((stored, writer)) => {
                    writing = Some(writer);
                    stored
                }
                Err(e) => {
                    session.shutdown();
                    return Err(err(AppErrorKind::Store, e));
                }
            };
        }
        if let Some(prompt) = l.prompt {
            session
                .submit(Command::SendMessage { agent_id: None, text: prompt.to_string() })
                .map_err(|e| err(AppErrorKind::Session, e))?;
        }
        let info = SessionInfo {
            session_id: session.id().clone(),
            main_agent_id: session.main_agent_id().clone(),
            workspace: session.workspace().root().display().to_string(),
            provider: l.provider.to_string(),
            model: l.model.to_string(),
            demo: l.server.is_some(),
            agent_types,
        };
        tracing::info!(session = %info.session_id, provider = l.provider, model = l.model, "session started");
        *lock(&self.running) = Some(Running { session, info: info.clone(), server: l.server, writing });
        Ok((info, events))
    }

    /// A person's command to the running session.
    pub fn send(&self, command: Command) -> Result<CommandReply, AppError> {
        let guard = lock(&self.running);
        let Some(running) = guard.as_ref() else {
            return Err(AppError::new(AppErrorKind::NoSession, "no session is running: start one first"));
        };
        match command {
            Command::Delegate(request) => running
                .session
                .delegate(request)
                .map(|id| CommandReply { delegated: Some(id) })
                .map_err(|e| err(AppErrorKind::Session, e)),
            other => running
                .session
                .submit(other)
                .map(|()| CommandReply { delegated: None })
                .map_err(|e| err(AppErrorKind::Session, e)),
        }
    }

    /// Stops every agent of the running session.
    pub fn stop(&self) {
        self.stop_running();
    }

    /// Stops the running session and waits (briefly) until its last events are stored.
    pub(crate) fn stop_and_settle(&self) {
        if let Some(writing) = self.stop_running()
            && !writing.settle(std::time::Duration::from_secs(10))
        {
            tracing::warn!("the stopped session's writer is still busy");
        }
    }

    fn stop_running(&self) -> Option<Writing> {
        let old = lock(&self.running).take()?;
        old.session.shutdown();
        if let Some(server) = old.server {
            // Let the stopped agents' last requests fail quietly, then close the port.
            tokio::spawn(async move {
                tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                server.shutdown().await;
            });
        }
        // The session's events end (and its writer with them) once its agents have.
        drop(old.session);
        old.writing
    }

    pub fn catalog(&self, workspace: Option<String>) -> CatalogReport {
        let ws = workspace
            .filter(|w| !w.trim().is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(self.state().default_workspace));
        CatalogReport::from(&catalog::load(&ws))
    }

    fn store_settings(&self, settings: Settings) -> Result<(), AppError> {
        settings.validate().map_err(|e| err(AppErrorKind::Settings, e))?;
        if let Some(path) = self.settings_path() {
            settings.save(&path).map_err(|e| err(AppErrorKind::Settings, e))?;
        }
        *lock(&self.settings) = (settings, None);
        Ok(())
    }

    /// The MCP servers `workspace` (else the last one used) would give its
    /// agents, with their tools, listing those not listed yet (all again when
    /// `fresh`): each server starts once for this, then stops.
    pub async fn mcp_servers(&self, workspace: Option<String>, fresh: bool) -> McpReport {
        let workspace = workspace
            .filter(|w| !w.trim().is_empty())
            .or_else(|| self.settings().last_workspace)
            .map(PathBuf::from)
            .filter(|w| w.is_dir());
        let definitions = workspace.as_deref().map(|w| catalog::load(w).definitions).unwrap_or_default();
        let sources = McpSources {
            config_dir: self.config.config_dir.clone(),
            workspace: workspace.as_deref(),
            files: &[],
            agent_types: &definitions,
        };
        let (catalog, problems) = self.mcp.get(&sources);
        catalog.check(fresh).await;
        McpReport::of(&catalog, problems, sources.paths())
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

fn tool_infos() -> Vec<ToolInfo> {
    let policy = ApprovalPolicy::default();
    let builtins = ToolRegistry::builtins();
    let mut tools: Vec<(String, ToolClass)> = builtins.iter().map(|t| (t.name().to_string(), t.class())).collect();
    tools.push(("Task".to_string(), ToolClass::Delegation));
    tools.push(("TaskStop".to_string(), ToolClass::Delegation));
    tools
        .into_iter()
        .map(|(name, class)| {
            let decision: Decision = policy.decide(&name, class);
            ToolInfo {
                class: match class {
                    ToolClass::ReadOnly => ToolClassName::ReadOnly,
                    ToolClass::Mutating => ToolClassName::Mutating,
                    ToolClass::Delegation => ToolClassName::Delegation,
                },
                default: decision.into(),
                name,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::MemoryStore;
    use arbor_protocol::EventKind;

    fn host(dir: &Path) -> Host {
        Host::new(HostConfig {
            config_dir: Some(dir.join("config")),
            secrets: Box::new(MemoryStore::default()),
            default_workspace: dir.to_path_buf(),
            scratch_dir: dir.join("scratch"),
            data_dir: Some(dir.join("data")),
        })
    }

    #[test]
    fn a_saved_key_makes_the_provider_ready_and_never_reaches_a_file() {
        // The environment wins over a saved key: make sure it is not set here.
        if providers::env("ANTHROPIC_API_KEY").is_some() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let host = host(dir.path());
        let before = host.state();
        let anthropic = before.providers.iter().find(|p| p.kind == ProviderKind::Anthropic).unwrap();
        assert!(!anthropic.ready);
        assert_eq!(anthropic.key_source, KeySource::None);

        let after = host.set_api_key(ProviderKind::Anthropic, "sk-ant-SECRET-123".into()).unwrap();
        let anthropic = after.providers.iter().find(|p| p.kind == ProviderKind::Anthropic).unwrap();
        assert!(anthropic.ready);
        assert_eq!(anthropic.key_source, KeySource::Keyring);

        let mut settings = after.settings.clone();
        settings.limits.max_parallel = 7;
        host.save_settings(settings).unwrap();
        let saved = std::fs::read_to_string(dir.path().join("config/settings.json")).unwrap();
        assert!(saved.contains("\"max_parallel\": 7"));
        assert!(!saved.contains("SECRET"), "keys never go into the settings file");
        assert!(!serde_json::to_string(&host.state()).unwrap().contains("SECRET"), "nor back to the UI");

        let cleared = host.clear_api_key(ProviderKind::Anthropic).unwrap();
        assert!(!cleared.providers.iter().find(|p| p.kind == ProviderKind::Anthropic).unwrap().ready);
    }

    #[test]
    fn bad_requests_are_typed_errors() {
        let dir = tempfile::tempdir().unwrap();
        let host = host(dir.path());
        let e = host.send(Command::Cancel { agent_id: AgentId("agent-0001".into()) }).unwrap_err();
        assert_eq!(e.kind, AppErrorKind::NoSession);
        let e = host
            .start_session(StartRequest {
                workspace: dir.path().join("missing").display().to_string(),
                provider: ProviderKind::Anthropic,
                model: String::new(),
                prompt: "hi".into(),
            })
            .unwrap_err();
        assert_eq!(e.kind, AppErrorKind::Workspace);
        let mut bad = Settings::default();
        bad.limits.max_parallel = 0;
        assert_eq!(host.save_settings(bad).unwrap_err().kind, AppErrorKind::Settings);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_demo_runs_its_subagents_and_a_delegation_reaches_the_main_agent() {
        let dir = tempfile::tempdir().unwrap();
        let host = host(dir.path());
        let (info, mut events) = host.start_demo().await.unwrap();
        assert!(info.demo);
        assert_eq!(host.state().session.unwrap().session_id, info.session_id);
        let mut children = Vec::new();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
        while children.len() < 2 {
            let ev = tokio::time::timeout_at(deadline, events.recv()).await.unwrap().unwrap();
            match &ev.kind {
                EventKind::AgentStarted(s) if s.parent_id.is_some() => children.push(s.description.clone()),
                EventKind::ApprovalRequest(r) => {
                    host.send(Command::ResolveApproval(arbor_protocol::ApprovalAnswer {
                        request_id: r.request_id.clone(),
                        approved: true,
                        scope: arbor_protocol::ApprovalScope::Once,
                    }))
                    .unwrap();
                }
                _ => {}
            }
        }
        // Parallel Task calls start in any order.
        children.sort();
        assert_eq!(children, ["Find TODOs", "Review the tests"]);
        let delegated = host
            .send(Command::Delegate(arbor_protocol::DelegateRequest {
                parent_id: info.main_agent_id.clone(),
                prompt: "look around".into(),
                description: Some("Look around".into()),
                subagent_type: None,
                model: None,
                max_turns: Some(1),
            }))
            .unwrap()
            .delegated
            .unwrap();
        loop {
            let ev = tokio::time::timeout_at(deadline, events.recv()).await.unwrap().unwrap();
            if let EventKind::AgentStarted(s) = &ev.kind
                && ev.agent_id == delegated
            {
                assert_eq!(s.parent_id.as_ref(), Some(&info.main_agent_id));
                assert_eq!(s.description, "Look around");
                break;
            }
        }
        host.stop();
        assert!(host.state().session.is_none());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_event_is_stored_before_it_is_shown_and_the_session_can_be_reviewed_and_exported() {
        let dir = tempfile::tempdir().unwrap();
        let host = host(dir.path());
        let (info, mut events) = host.start_demo().await.unwrap();
        let store = host.store().unwrap();
        let mut shown = Vec::new();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let ev = tokio::time::timeout_at(deadline, events.recv()).await.unwrap().unwrap();
            // Persist before display: what reaches a front end is in the file already.
            assert!(store.last_seq(&info.session_id).unwrap() >= ev.seq, "event {} shown before it was stored", ev.seq);
            if let EventKind::ApprovalRequest(r) = &ev.kind {
                host.send(Command::ResolveApproval(arbor_protocol::ApprovalAnswer {
                    request_id: r.request_id.clone(),
                    approved: true,
                    scope: arbor_protocol::ApprovalScope::Once,
                }))
                .unwrap();
            }
            let done = ev.agent_id == info.main_agent_id && matches!(ev.kind, EventKind::AgentFinished(_));
            shown.push(ev);
            if done {
                break;
            }
        }
        let listed = host.sessions(crate::transcripts::HistoryQuery::default()).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].id, info.session_id);
        assert_eq!(listed[0].first_prompt, demo::PROMPT);
        let started = shown.iter().filter(|e| matches!(e.kind, EventKind::AgentStarted(_))).count();
        assert!(started >= 3, "the main agent and its subagents");
        assert_eq!(listed[0].agent_count as usize, started);
        let past = host.open_session(info.session_id.clone()).unwrap();
        assert_eq!(past.detail.agents.len(), started);
        assert!(past.events.windows(2).all(|w| w[0].seq < w[1].seq));
        assert!(
            past.events
                .iter()
                .any(|e| matches!(e.kind, EventKind::AgentStarted(_)) && e.agent_id != info.main_agent_id)
        );
        let hits = host.search("TODO".into()).unwrap();
        assert!(!hits.is_empty());
        assert!(hits.iter().all(|h| h.session_id == info.session_id && !h.agent_path.is_empty()));

        let json_path = dir.path().join("session.json");
        host.export(
            info.session_id.clone(),
            None,
            crate::transcripts::ExportFormat::Json,
            json_path.display().to_string(),
        )
        .unwrap();
        let back: arbor_protocol::SessionExport =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        assert_eq!(back.events, shown, "the export holds exactly the events that were shown");
        let md_path = dir.path().join("session.md");
        host.export(
            info.session_id.clone(),
            None,
            crate::transcripts::ExportFormat::Markdown,
            md_path.display().to_string(),
        )
        .unwrap();
        let md = std::fs::read_to_string(&md_path).unwrap();
        for a in &past.detail.agents {
            assert!(md.contains(&a.description), "the Markdown names {}", a.description);
        }
        let bad = host.export(
            info.session_id.clone(),
            None,
            crate::transcripts::ExportFormat::Json,
            "/nonexistent/dir/x.json".into(),
        );
        assert_eq!(bad.unwrap_err().kind, AppErrorKind::Export);
        assert_eq!(host.open_session(SessionId("sess-nope".into())).unwrap_err().kind, AppErrorKind::NotFound);
        host.stop();
    }

    async fn until_finished(events: &mut EventStream, main: &AgentId) -> Vec<arbor_protocol::AgentEvent> {
        let mut got = Vec::new();
        loop {
            let ev = tokio::time::timeout(std::time::Duration::from_secs(20), events.recv()).await.unwrap().unwrap();
            let end = ev.agent_id == *main && matches!(ev.kind, EventKind::AgentFinished(_));
            got.push(ev);
            if end {
                return got;
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stored_session_resumes_with_its_history_and_its_seq_carried_on() {
        let scenario = arbor_testkit::Scenario::from_json(
            &serde_json::json!({ "name": "resume-host", "rules": [
                { "match": { "first_user_contains": "REMEMBER" },
                  "turns": [ { "text": "noted the number" }, { "text": "it was {{first_user}}" } ] }
            ]})
            .to_string(),
        )
        .unwrap();
        let server = ScriptedServer::start(scenario).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let host = host(dir.path());
        host.set_api_key(ProviderKind::Anthropic, "sk-test".into()).unwrap();
        let mut settings = host.settings();
        settings.anthropic.base_url = Some(server.anthropic_base_url());
        host.save_settings(settings).unwrap();
        let request = StartRequest {
            workspace: dir.path().display().to_string(),
            provider: ProviderKind::Anthropic,
            model: String::new(),
            prompt: "REMEMBER 42".into(),
        };
        let (info, mut events) = host.start_session(request).unwrap();
        let first = until_finished(&mut events, &info.main_agent_id).await;
        // Continued while it is still the running session: it is stopped and settled first.
        let (again, mut more) = host.resume_session(info.session_id.clone(), Some("what was it?".into())).unwrap();
        assert_eq!(again.session_id, info.session_id);
        assert_eq!(again.main_agent_id, info.main_agent_id);
        let second = until_finished(&mut more, &info.main_agent_id).await;
        assert_eq!(second[0].seq, first.last().unwrap().seq + 1);
        let EventKind::AgentFinished(f) = &second.last().unwrap().kind else { panic!() };
        assert_eq!(f.result, "it was REMEMBER 42", "the second turn ran on the stored history");
        let listed = host.sessions(crate::transcripts::HistoryQuery::default()).unwrap();
        assert_eq!(listed.len(), 1, "the same session, not a new one");
        assert_eq!(listed[0].event_count as usize, first.len() + second.len());
        host.stop();
        server.shutdown().await;
    }
}
