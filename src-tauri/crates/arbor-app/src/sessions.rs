//! Sessions through the one API: [`Host::launch`] starts a new session, resumes
//! a stored one or plays the demo, always recorded (each event stored before a
//! front end sees it); [`Host::send`] is the one way in for commands;
//! [`Host::stop`] stops it. The desktop and the CLI differ only in what they
//! put in the [`LaunchSpec`] and how they show the [`SessionEvents`].

use crate::catalog::AgentTypeInfo;
use crate::configure::{Configured, Target};
use crate::demo;
use crate::error::{AppError, AppErrorKind};
use crate::host::{Host, err};
use crate::live::Running;
use crate::off_worker;
use crate::record::{Recorder, Writing};
use crate::transcripts::{NotResumable, resumable_provider, resume_state};
use arbor_core::{Clock, EventStream, Limits, Session, SystemClock};
use arbor_protocol::{
    AgentEvent, AgentId, AgentStates, Command, CommandSandbox, ProviderKind, SandboxRequest, SessionId,
};
use arbor_store::{NewSession, StoreError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What to launch, and how. Fields left `None` follow the settings.
#[derive(Debug, Clone, Default)]
pub struct LaunchSpec {
    /// The folder the agents work in. None: a resumed session's own; a fresh sample project for the demo.
    pub workspace: Option<PathBuf>,
    pub start: Start,
    /// None: the settings' default provider when ready, else the first that is.
    pub provider: Option<ProviderKind>,
    /// None: the provider's default model (a resumed session keeps its own).
    pub model: Option<String>,
    pub tuning: Tuning,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// A new session; the main agent gets this prompt.
    New { prompt: String },
    /// A stored session continued; its main agent gets the prompt, or carries on without one.
    Resume { session: SessionId, prompt: Option<String> },
    /// The built-in demonstration: a scripted model, no key, no network.
    Demo,
}

impl Default for Start {
    fn default() -> Self {
        Self::New { prompt: String::new() }
    }
}

/// Which calls run without asking (the command line's `--approve`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Reads run; writes and commands ask.
    Ask,
    /// Everything runs without asking.
    All,
    /// Only read-only tools are offered; anything else is refused.
    ReadOnly,
    /// Writes and commands are refused without asking.
    Deny,
}

/// What a launch may set beyond the settings (the command line's flags).
#[derive(Debug, Clone, Default)]
pub struct Tuning {
    pub approval: Option<ApprovalMode>,
    pub max_turns: Option<u32>,
    pub limits: Option<Limits>,
    /// More MCP config files (`--mcp-config`); they must exist.
    pub mcp_files: Vec<PathBuf>,
    /// Start the workspace's `.mcp.json` servers this once, trusted or not (`--trust-mcp`).
    pub trust_mcp: bool,
    /// Every Task call asks a person first (`--approve-spawn`), whatever the settings say.
    pub approve_spawn: bool,
    /// How long a model's stream may go without data.
    pub idle_timeout: Option<Duration>,
    /// The most time one turn may spend, retries included.
    pub retry_budget: Option<Duration>,
    /// What the command line asks of the sandbox, over the settings (`--sandbox`, `--allow-network`, `--sandbox-write`).
    pub sandbox: SandboxRequest,
    /// Commands the sandbox holds run without asking (`--sandboxed-without-asking`); None: the settings say.
    pub run_sandboxed: Option<bool>,
    /// The session's budget, over the settings' (`--max-tokens`, `--max-budget-usd`, `--max-duration`).
    pub budget: arbor_protocol::Budget,
    /// The spawn-rate guard (`--max-spawns-per-minute`); None: the settings say.
    pub max_spawns_per_minute: Option<u32>,
    /// Every model's context window (`--context-window`); None: each model's own.
    pub context_window: Option<u64>,
    /// Compact at this share of the window (`--compact-at`); None: 80%.
    pub compact_at_percent: Option<u8>,
    /// The model that writes compaction summaries (`--summary-model`); None: the settings say.
    pub summary_model: Option<String>,
    /// Run the main agent as this agent type (`--agent`, New session's choice); None: the
    /// settings' `agent`, or, continuing a session, the type it ran as.
    pub main_type: Option<String>,
    /// A new session's id, chosen by its front end beforehand (`arbor acp` answers
    /// `session/new` with it before the first prompt starts the session).
    pub session_id: Option<SessionId>,
    /// MCP servers the editor driving the session over ACP gave with it.
    pub client_mcp: Option<crate::mcp::ClientServers>,
    /// The editor driving the session over ACP, as History names it.
    pub driven_by: Option<String>,
}

#[derive(Debug, Clone, Deserialize, specta::Type)]
pub struct StartRequest {
    pub workspace: String,
    pub provider: ProviderKind,
    /// Empty: the provider's default model.
    pub model: String,
    pub prompt: String,
    /// Run the main agent as this agent type; None: Arbor's own main agent (or the settings' `agent`).
    #[serde(default)]
    pub agent_type: Option<String>,
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
    /// Agent files and MCP configs that could not be used (the rest were).
    pub warnings: Vec<String>,
    /// The workspace's `.mcp.json` whose servers were left out: not trusted.
    pub untrusted_mcp: Option<crate::trust::WorkspaceMcp>,
    /// What the main agent's commands run in (subagents may differ: their approval cards say).
    pub sandbox: CommandSandbox,
    /// The settings files' permission rules in force, with their files (Active rules).
    pub settings_rules: Vec<crate::claude_settings::SettingsRule>,
    /// The agent type the main agent runs as; None: Arbor's own main agent.
    pub main_type: Option<String>,
}

/// A launched session's events, each stored before it arrives here, and its
/// agents as those events (and, resumed, the stored ones) left them.
pub struct SessionEvents {
    stream: EventStream,
    writing: Option<Writing>,
    states: AgentStates,
    /// A resumed session's timeline so far, for a client that streams what changes of it.
    timeline: arbor_protocol::Timeline,
    /// The last stored event's `seq` when it started (0 for a new session): its events follow it.
    through: u64,
}

/// What a client that forwards a session's events in frames starts from: the
/// agents and the timeline before the first event (a resumed session's).
#[derive(Default)]
pub struct Seed {
    pub states: AgentStates,
    pub timeline: arbor_protocol::TimelineBuilder,
    /// The `seq` the first event follows: what a resumed session had stored (0 when new).
    pub through: u64,
}

impl SessionEvents {
    pub async fn recv(&mut self) -> Option<AgentEvent> {
        let ev = self.stream.recv().await?;
        self.states.apply(&ev);
        Some(ev)
    }

    /// Every agent as the events received so far left it.
    pub fn states(&self) -> &AgentStates {
        &self.states
    }

    /// Waits (up to `limit`) until the session's last event is stored, once it
    /// has been stopped: what a process does before it exits. True when done.
    pub async fn settle(&self, limit: Duration) -> bool {
        match &self.writing {
            Some(w) => w.settle(limit).await,
            None => true,
        }
    }

    /// The stream and the agents so far, for a client that forwards them in
    /// frames (the desktop's bridge, [`crate::batch::forward`]);
    /// [`Host::stop_and_settle`] still waits for the writer.
    pub fn into_parts(self) -> (EventStream, Seed) {
        let timeline = arbor_protocol::TimelineBuilder::continuing(self.timeline);
        (self.stream, Seed { states: self.states, timeline, through: self.through })
    }
}

pub struct Launched {
    pub info: SessionInfo,
    pub events: SessionEvents,
}

impl Host {
    /// Agent types a person reloaded for `workspace` reach the session running in it:
    /// its Delegate… (and later Task calls) may start them. A type that defines MCP
    /// servers of its own is taken only as the session had it: its servers were
    /// checked (and trusted) when the session started, a new one's were not.
    pub(crate) fn reload_agent_types(&self, workspace: &Path, defs: &[arbor_core::AgentDefinition]) {
        // The session's workspace is canonical; the one asked about may be a symlink to it.
        let workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.to_path_buf());
        self.live.in_workspace(&workspace, |r| {
            let before = r.session.agent_types();
            let own_servers = |d: &arbor_core::AgentDefinition| d.mcp_servers.iter().any(|s| !s.is_string());
            let mut types: Vec<arbor_core::AgentDefinition> =
                defs.iter().filter(|d| !own_servers(d)).cloned().collect();
            // A type left out (it now names servers of its own) stays as the session had it, if it had it.
            let kept: Vec<_> = before
                .into_iter()
                .filter(|d| !types.iter().any(|t| t.name == d.name))
                .filter(|d| own_servers(d) || defs.iter().any(|n| n.name == d.name))
                .collect();
            types.extend(kept);
            r.info.agent_types = types.iter().map(AgentTypeInfo::from_definition).collect();
            r.session.set_agent_types(types);
        });
    }
}

impl Host {
    /// Starts the session `spec` describes beside the live ones (at the cap on
    /// live sessions, the oldest with nothing at work is closed first). The
    /// returned events have been stored first.
    pub async fn launch(&self, spec: LaunchSpec) -> Result<Launched, AppError> {
        if let Start::Resume { session, .. } = &spec.start
            && self.live.contains(session)
        {
            return Err(AppError::new(AppErrorKind::Session, format!("session {session} is already running here")));
        }
        let settings = self.settings();
        // A stored session is this process's to continue only if no other process runs it:
        // claimed before anything is read or built, so a refusal sends no request.
        let mut claim = None;
        let (workspace, kind, model, resume, prompt, demo) = match &spec.start {
            Start::New { prompt } => {
                if prompt.trim().is_empty() {
                    return Err(AppError::new(AppErrorKind::Session, "write a prompt for the main agent first"));
                }
                let workspace = spec.workspace.clone().ok_or_else(|| no_workspace(None))?;
                // Which provider is ready may ask the keyring.
                let (kind, model) = off_worker(|| {
                    let kind = match spec.provider {
                        Some(k) => k,
                        None => self.default_provider(&settings)?,
                    };
                    let model = spec.model.clone().filter(|m| !m.trim().is_empty());
                    Ok::<_, AppError>((kind, model.unwrap_or_else(|| self.default_model(kind, &settings))))
                })?;
                (workspace, kind, model, None, Some(prompt.clone()), false)
            }
            Start::Resume { session, prompt } => {
                let store = self.store()?;
                let id = session.clone();
                let (taken, summary) = tokio::task::spawn_blocking(move || {
                    let claim = store.claim(&id)?;
                    // Its owner may have died since this process started: what it left at work
                    // is interrupted (and its open requests withdrawn) before it is read.
                    store.recover_claimed(&claim, SystemClock.now_ms())?;
                    Ok::<_, StoreError>((claim, store.session(&id)?))
                })
                .await
                .map_err(|e| err(AppErrorKind::Store, e))?
                .map_err(crate::transcripts::store_err)?;
                claim = Some(taken);
                let summary = summary.session;
                let kind = resumable_provider(&summary).map_err(|e| match e {
                    NotResumable::Demo | NotResumable::Imported => err(AppErrorKind::Session, e),
                    NotResumable::UnknownProvider(_) => err(AppErrorKind::Provider, e),
                })?;
                let workspace = spec.workspace.clone().unwrap_or_else(|| PathBuf::from(&summary.workspace));
                let prompt = prompt.clone().filter(|p| !p.trim().is_empty());
                (workspace, kind, summary.model, Some(session.clone()), prompt, false)
            }
            Start::Demo => {
                let workspace = match &spec.workspace {
                    Some(w) => w.clone(),
                    None => {
                        let stamp = SystemClock.now_ms();
                        self.config.scratch_dir.join(format!("arbor-demo-{stamp}"))
                    }
                };
                off_worker(|| {
                    std::fs::create_dir_all(&workspace).map_err(|e| {
                        AppError::new(
                            AppErrorKind::Demo,
                            format!("cannot create the demo project {}: {e}", workspace.display()),
                        )
                    })?;
                    demo::write_sample(&workspace).map_err(|e| err(AppErrorKind::Demo, e))
                })?;
                (
                    workspace,
                    ProviderKind::Anthropic,
                    demo::MODEL.to_string(),
                    None,
                    Some(demo::PROMPT.to_string()),
                    true,
                )
            }
        };
        if !off_worker(|| workspace.is_dir()) {
            return Err(no_workspace(Some(&workspace)));
        }
        // Only a launch that will happen makes room (a refused one closes nothing).
        self.make_room(settings.limits.max_live_sessions).await?;
        // Settings, the person's and the workspace's files, the keyring: any of them may
        // hang (a dead mount, a locked keyring), so not on one of the runtime's few workers.
        let Configured { mut config, warnings, agent_types, untrusted_mcp, settings_rules } = off_worker(|| {
            self.configure(&spec, &settings, Target { workspace: &workspace, kind, model: &model, demo })
        })?;
        let recorder = Recorder::new();
        let store = self.store().ok();
        if store.is_some() {
            config.journal = Some(recorder.journal());
        }
        let mut states = AgentStates::default();
        let mut timeline = arbor_protocol::Timeline::default();
        let mut through = 0;
        let started = match &resume {
            Some(id) => {
                let store = self.store()?;
                let id = id.clone();
                let (state, stored) = tokio::task::spawn_blocking(move || {
                    Ok::<_, StoreError>((resume_state(&store, &id)?, store.timeline(&id)?))
                })
                .await
                .map_err(|e| err(AppErrorKind::Store, e))?
                .map_err(crate::transcripts::store_err)?;
                timeline = stored;
                through = state.last_seq;
                states = AgentStates::from_agents(state.agents.iter().map(|a| a.state.clone().resumed()));
                // Continued as the type it ran as, unless this launch names another.
                if spec.tuning.main_type.is_none() {
                    let main = state.agents.iter().find(|a| a.state.parent_id.is_none());
                    config.main_agent.agent_type = main.and_then(|a| a.state.subagent_type.clone());
                }
                // Its start reads the workspace (its path resolved, its instruction files).
                off_worker(|| Session::resume(config, state))
            }
            None => off_worker(|| Session::start(config)),
        };
        let (session, events) = started.map_err(|e| err(AppErrorKind::Session, e))?;
        let main_type = session.main_agent_type().map(str::to_string);
        let (events, writing) = match store {
            Some(store) => {
                let new = NewSession {
                    id: session.id().clone(),
                    workspace: session.workspace().root().display().to_string(),
                    first_prompt: prompt.clone().unwrap_or_default(),
                    provider: kind.name().to_string(),
                    model: model.clone(),
                    started_at: SystemClock.now_ms(),
                    client: spec.tuning.driven_by.clone(),
                };
                // The session row is written before any event: off the runtime's workers.
                let problem = self.store_problem.clone();
                let recorded = tokio::task::spawn_blocking(move || {
                    let claim = match claim {
                        Some(c) => c,
                        None => store.claim(&new.id)?,
                    };
                    recorder.record(store, new, claim, events, problem)
                })
                .await;
                match recorded {
                    Ok(Ok((stored, writer))) => (stored, Some(writer)),
                    Ok(Err(e)) => {
                        session.shutdown();
                        return Err(match e {
                            crate::record::RecordError::Store(e) => crate::transcripts::store_err(e),
                            e => err(AppErrorKind::Store, e),
                        });
                    }
                    Err(e) => {
                        session.shutdown();
                        return Err(err(AppErrorKind::Store, e));
                    }
                }
            }
            None => (events, None),
        };
        let first = match &prompt {
            Some(text) => Command::SendMessage { agent_id: None, text: text.clone() },
            None => Command::Resume { agent_id: session.main_agent_id().clone(), text: None },
        };
        session.submit(first).map_err(|e| err(AppErrorKind::Session, e))?;
        if let Some(id) = &resume {
            // Every subagent the last run left unfinished goes on too (parents first); their
            // results reach their parents as notifications, as the parents' histories now say.
            for a in states
                .agents()
                .iter()
                .filter(|a| a.parent_id.is_some() && a.status == arbor_protocol::AgentStatus::Interrupted)
            {
                if let Err(e) = session.submit(Command::Resume { agent_id: a.id.clone(), text: None }) {
                    tracing::warn!(agent_id = %a.id, error = %e, "an interrupted subagent could not be resumed");
                }
            }
            self.interrupted.lock().retain(|s| s != id);
        }
        let info = SessionInfo {
            session_id: session.id().clone(),
            main_agent_id: session.main_agent_id().clone(),
            workspace: session.workspace().root().display().to_string(),
            provider: kind.name().to_string(),
            model,
            demo,
            agent_types,
            warnings,
            untrusted_mcp,
            sandbox: session.sandbox(),
            settings_rules,
            main_type,
        };
        tracing::info!(session = %info.session_id, provider = %info.provider, model = %info.model, "session started");
        if matches!(spec.start, Start::New { .. }) {
            // On the settings as they are now: a save made while this started stays.
            let workspace = Some(info.workspace.clone());
            if let Err(e) = off_worker(|| self.update_settings(|s| s.last_workspace = workspace)) {
                tracing::warn!("remembering the workspace: {}", e.message);
            }
        }
        self.live.add(Running { session, info: info.clone(), writing: writing.clone() });
        Ok(Launched { info, events: SessionEvents { stream: events, writing, states, timeline, through } })
    }

    /// The desktop's Start: a new session on the provider and model the person chose.
    pub async fn start_session(&self, request: StartRequest) -> Result<Launched, AppError> {
        let workspace = PathBuf::from(request.workspace.trim());
        self.launch(LaunchSpec {
            workspace: Some(workspace),
            start: Start::New { prompt: request.prompt },
            provider: Some(request.provider),
            model: Some(request.model),
            tuning: Tuning { main_type: request.agent_type.filter(|t| !t.trim().is_empty()), ..Tuning::default() },
        })
        .await
    }
}

fn no_workspace(path: Option<&std::path::Path>) -> AppError {
    let message = match path {
        Some(p) => format!("the workspace {} is not a folder", p.display()),
        None => "choose a workspace folder first".to_string(),
    };
    AppError::new(AppErrorKind::Workspace, message)
}
