//! A session: the main agent, the registry of its tree, the approval broker and
//! the ordered event stream. The runtime is a queue pair: [`Session::submit`]
//! takes commands in, the [`EventStream`] carries events out (design.md §6.3).

use crate::agent::AgentRun;
use crate::approval::{ApprovalBroker, ApprovalPolicy};
use crate::config::{AgentDefinition, Providers, SessionConfig};
use crate::events::{EventSink, EventStream};
use crate::prompt;
use crate::provider::RetryPolicy;
use crate::registry::{AgentRecord, Registry};
use crate::tools::ToolRegistry;
use crate::workspace::Workspace;
use arbor_protocol::{
    AgentFinished, AgentId, AgentStarted, AgentStatus, ApprovalAnswer, ApprovalRequest, ApprovalResolved,
    ApprovalScope, Command, EventKind, Message, SessionId, StatusChanged, Usage,
};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use thiserror::Error;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, info_span};

/// Why a command or a session start was refused. Typed so the UI never matches strings.
#[derive(Debug, Error)]
pub enum SessionError {
    #[error("workspace {path} is not usable: {reason}")]
    Workspace { path: PathBuf, reason: String },
    #[error("provider {0:?} is not configured")]
    UnknownProvider(String),
    #[error("no agent {0} in this session")]
    UnknownAgent(AgentId),
    #[error("agent {0} is not running, so it cannot take a message")]
    AgentNotRunning(AgentId),
    #[error("no pending approval {0}: it was answered, cancelled, or never asked")]
    UnknownApproval(String),
    #[error("a message must not be empty")]
    EmptyMessage,
    #[error("the session was shut down")]
    Closed,
}

/// State every agent of a session shares.
pub(crate) struct Shared {
    pub(crate) id: SessionId,
    pub(crate) events: EventSink,
    pub(crate) approvals: ApprovalBroker,
    pub(crate) policy: ApprovalPolicy,
    pub(crate) workspace: Workspace,
    pub(crate) retry: RetryPolicy,
    pub(crate) max_tokens: u32,
    registry: Mutex<Registry>,
    rng: Mutex<fastrand::Rng>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    pub(crate) fn registry(&self) -> MutexGuard<'_, Registry> {
        lock(&self.registry)
    }

    pub(crate) fn jitter(&self) -> f64 {
        lock(&self.rng).f64()
    }

    /// A fresh agent id, unique in this session.
    pub(crate) fn new_agent_id(&self) -> AgentId {
        let reg = self.registry();
        loop {
            let id = AgentId::from_suffix(lock(&self.rng).u32(..));
            if !reg.contains(&id) {
                return id;
            }
        }
    }

    /// Records a status change and emits it; repeats are not emitted.
    pub(crate) fn set_status(&self, id: &AgentId, status: AgentStatus) {
        let changed = match self.registry().get_mut(id) {
            Some(r) if r.status != status => {
                r.status = status;
                true
            }
            _ => false,
        };
        if changed {
            self.events.emit(id, EventKind::AgentStatus(StatusChanged { status }));
        }
    }

    pub(crate) fn add_turn(&self, id: &AgentId, usage: &Usage) {
        if let Some(r) = self.registry().get_mut(id) {
            r.turns += 1;
            r.usage.add(usage);
        }
    }

    pub(crate) fn add_files(&self, id: &AgentId, files: &[PathBuf]) {
        if files.is_empty() {
            return;
        }
        if let Some(r) = self.registry().get_mut(id) {
            for f in files {
                let rel = self.workspace.display(f);
                if !r.files_modified.contains(&rel) {
                    r.files_modified.push(rel);
                }
            }
        }
    }

    /// Marks the agent finished and emits its final status and `agent_finished`.
    /// Closing the inbox, folding in messages that raced the end, and storing the
    /// history happen under one lock, so a message arriving now starts a new run
    /// with the whole history rather than getting lost.
    pub(crate) fn finish_agent(
        &self,
        id: &AgentId,
        mut finished: AgentFinished,
        inbox: &mut mpsc::UnboundedReceiver<String>,
        mut history: Vec<Message>,
    ) {
        if let Some(r) = self.registry().get_mut(id) {
            r.inbox = None;
            let late = crate::agent::drain_texts(inbox);
            if !late.is_empty() {
                crate::agent::append_user(&mut history, late);
            }
            r.history = history;
            r.finished_at = Some(self.events.now_ms());
            r.result = Some(finished.result.clone());
            finished.files_modified = r.files_modified.clone();
        }
        self.set_status(id, finished.status);
        self.events.emit(id, EventKind::AgentFinished(finished));
    }

    /// Asks the person and waits for the answer (or a standing grant). None when
    /// the agent was cancelled while waiting.
    pub(crate) async fn ask_approval(
        &self,
        agent_id: &AgentId,
        call_id: &str,
        tool_name: &str,
        tool_args: &Value,
        cancel: &CancellationToken,
    ) -> Option<bool> {
        let (ancestors, agent_path) = {
            let reg = self.registry();
            (reg.ancestors(agent_id), reg.path(agent_id))
        };
        if let Some(standing) = self.approvals.granted(agent_id, &ancestors, tool_name) {
            return Some(standing);
        }
        let (request_id, answer) = self.approvals.open(agent_id, tool_name);
        self.events.emit(
            agent_id,
            EventKind::ApprovalRequest(ApprovalRequest {
                request_id: request_id.clone(),
                call_id: call_id.to_string(),
                tool_name: tool_name.to_string(),
                tool_args: tool_args.clone(),
                agent_path,
            }),
        );
        self.approval_wait(agent_id, 1);
        let verdict = tokio::select! {
            a = answer => a.ok().map(|a| a.approved),
            _ = cancel.cancelled() => None,
        };
        if verdict.is_none() && self.approvals.withdraw(&request_id) {
            self.events.emit(
                agent_id,
                EventKind::ApprovalResolved(ApprovalResolved {
                    request_id,
                    approved: false,
                    scope: ApprovalScope::Once,
                }),
            );
        }
        self.approval_wait(agent_id, -1);
        verdict
    }

    /// Counts the agent's open requests: waiting while any is open, running after.
    fn approval_wait(&self, id: &AgentId, delta: i32) {
        let status = {
            let mut reg = self.registry();
            let Some(r) = reg.get_mut(id) else { return };
            r.pending_approvals = r.pending_approvals.saturating_add_signed(delta);
            match (r.pending_approvals, r.status) {
                (0, AgentStatus::WaitingApproval) => Some(AgentStatus::Running),
                (n, AgentStatus::Running) if n > 0 => Some(AgentStatus::WaitingApproval),
                _ => None,
            }
        };
        if let Some(s) = status {
            self.set_status(id, s);
        }
    }
}

/// Hands steering to a running agent; gives the text back when it is not running.
fn steer(r: &AgentRecord, text: String) -> Result<(), String> {
    match &r.inbox {
        Some(inbox) => inbox.send(text).map_err(|e| e.0),
        None => Err(text),
    }
}

/// A running session. Cheap to clone; dropping the last clone does not stop agents,
/// [`Session::shutdown`] does.
#[derive(Clone)]
pub struct Session {
    shared: Arc<Shared>,
    main: Arc<MainAgent>,
    root_cancel: CancellationToken,
}

/// How to (re)start the main agent when a message arrives for it.
struct MainAgent {
    id: AgentId,
    definition: AgentDefinition,
    system_prompt: String,
    providers: Providers,
}

impl Session {
    /// Starts a session; its main agent starts with the first message. Must be
    /// called inside a Tokio runtime (agents run as tasks on it).
    pub fn start(config: SessionConfig) -> Result<(Session, EventStream), SessionError> {
        let workspace = Workspace::new(&config.workspace, &config.allowed_paths)
            .map_err(|e| SessionError::Workspace { path: config.workspace.clone(), reason: e.to_string() })?;
        if !config.providers.contains_key(&config.main_agent.provider) {
            return Err(SessionError::UnknownProvider(config.main_agent.provider.clone()));
        }
        let mut rng = config.seed.map(fastrand::Rng::with_seed).unwrap_or_default();
        let session_id = SessionId(format!("sess-{:016x}", rng.u64(..)));
        let now = config.clock.now_ms();
        let (events, stream) = EventSink::new(session_id.clone(), config.clock.clone());
        let system_prompt = prompt::main_system_prompt(
            &config.main_agent.system_prompt,
            workspace.root(),
            &prompt::iso_date(now),
            config.project_instructions,
        );
        let shared = Arc::new(Shared {
            id: session_id,
            events,
            approvals: ApprovalBroker::default(),
            policy: config.approval,
            workspace,
            retry: config.retry,
            max_tokens: config.max_tokens,
            registry: Mutex::new(Registry::default()),
            rng: Mutex::new(rng),
        });
        let main = MainAgent {
            id: shared.new_agent_id(),
            definition: config.main_agent,
            system_prompt,
            providers: config.providers,
        };
        let session = Session { shared, main: Arc::new(main), root_cancel: CancellationToken::new() };
        Ok((session, stream))
    }

    pub fn id(&self) -> &SessionId {
        &self.shared.id
    }

    pub fn main_agent_id(&self) -> &AgentId {
        &self.main.id
    }

    pub fn workspace(&self) -> &Workspace {
        &self.shared.workspace
    }

    /// A command in. Refusals are immediate and typed; effects arrive as events.
    pub fn submit(&self, command: Command) -> Result<(), SessionError> {
        if self.root_cancel.is_cancelled() {
            return Err(SessionError::Closed);
        }
        match command {
            Command::SendMessage { agent_id, text } => {
                if text.trim().is_empty() {
                    return Err(SessionError::EmptyMessage);
                }
                let target = agent_id.unwrap_or_else(|| self.main.id.clone());
                self.send_message(&target, text)
            }
            Command::ResolveApproval(answer) => self.resolve_approval(answer),
            Command::Cancel { agent_id } => self.cancel(&agent_id),
        }
    }

    fn send_message(&self, target: &AgentId, text: String) -> Result<(), SessionError> {
        if *target == self.main.id {
            return self.start_main(text);
        }
        match self.shared.registry().get(target) {
            Some(r) => steer(r, text).map_err(|_| SessionError::AgentNotRunning(target.clone())),
            None => Err(SessionError::UnknownAgent(target.clone())),
        }
    }

    /// A message for the main agent: steering while it runs, else its next run (its
    /// first, or a continuation with its history). Decided under one lock, so two
    /// messages at once cannot start two runs.
    fn start_main(&self, text: String) -> Result<(), SessionError> {
        let id = self.main.id.clone();
        let mut reg = self.shared.registry();
        let text = match reg.get(&id) {
            Some(r) => match steer(r, text) {
                Ok(()) => return Ok(()),
                Err(text) => text,
            },
            None => text,
        };
        let def = &self.main.definition;
        let provider = self
            .main
            .providers
            .get(&def.provider)
            .cloned()
            .ok_or_else(|| SessionError::UnknownProvider(def.provider.clone()))?;
        let mut tools = ToolRegistry::builtins();
        tools.retain(|t| def.tools.admits(t.name()));
        let (inbox_tx, inbox) = mpsc::unbounded_channel();
        let cancel = self.root_cancel.child_token();
        let (history, announce) = {
            match reg.get_mut(&id) {
                Some(r) => {
                    r.inbox = Some(inbox_tx);
                    r.cancel = cancel.clone();
                    r.finished_at = None;
                    (std::mem::take(&mut r.history), None)
                }
                None => {
                    let started = AgentStarted {
                        parent_id: None,
                        parent_call_id: None,
                        depth: 0,
                        description: def.description.clone(),
                        subagent_type: None,
                        model: def.model.clone(),
                        provider: provider.name().to_string(),
                        background: false,
                    };
                    reg.insert(AgentRecord {
                        id: id.clone(),
                        started: started.clone(),
                        status: AgentStatus::Queued,
                        started_at: self.shared.events.now_ms(),
                        finished_at: None,
                        turns: 0,
                        usage: Usage::default(),
                        files_modified: Vec::new(),
                        result: None,
                        cancel: cancel.clone(),
                        inbox: Some(inbox_tx),
                        history: Vec::new(),
                        pending_approvals: 0,
                    });
                    (Vec::new(), Some(started))
                }
            }
        };
        drop(reg);
        if let Some(started) = announce {
            self.shared.events.emit(&id, EventKind::AgentStarted(started));
        }
        let mut history = history;
        crate::agent::append_user(&mut history, vec![arbor_protocol::UserBlock::Text { text }]);
        let run = AgentRun {
            id: id.clone(),
            system: self.main.system_prompt.clone(),
            model: def.model.clone(),
            provider,
            tools,
            max_turns: def.max_turns,
            history,
            inbox,
            cancel,
        };
        let shared = self.shared.clone();
        let span = info_span!("session", session_id = %self.shared.id);
        tokio::spawn(run.run(shared).instrument(span));
        Ok(())
    }

    fn resolve_approval(&self, answer: ApprovalAnswer) -> Result<(), SessionError> {
        let request_id = answer.request_id.clone();
        let (approved, scope) = (answer.approved, answer.scope);
        let agent = self.shared.approvals.resolve(answer).ok_or(SessionError::UnknownApproval(request_id.clone()))?;
        self.shared.events.emit(&agent, EventKind::ApprovalResolved(ApprovalResolved { request_id, approved, scope }));
        Ok(())
    }

    /// Stops the agent and its whole subtree.
    fn cancel(&self, id: &AgentId) -> Result<(), SessionError> {
        let reg = self.shared.registry();
        if !reg.contains(id) {
            return Err(SessionError::UnknownAgent(id.clone()));
        }
        for a in reg.subtree(id) {
            if let Some(r) = reg.get(&a) {
                r.cancel.cancel();
            }
        }
        Ok(())
    }

    /// The status of an agent, if it exists.
    pub fn status(&self, id: &AgentId) -> Option<AgentStatus> {
        self.shared.registry().get(id).map(|r| r.status)
    }

    /// Stops every agent; later commands are refused.
    pub fn shutdown(&self) {
        self.root_cancel.cancel();
        let reg = self.shared.registry();
        let all: std::collections::HashSet<AgentId> = reg.subtree(&self.main.id);
        for a in all {
            if let Some(r) = reg.get(&a) {
                r.cancel.cancel();
            }
        }
    }
}
