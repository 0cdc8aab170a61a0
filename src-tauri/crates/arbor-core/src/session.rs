//! A session: the main agent, the registry of its tree, the approval broker and
//! the ordered event stream. The runtime is a queue pair: [`Session::submit`]
//! takes commands in, the [`EventStream`] carries events out (design.md §6.3).

use crate::agent::{self, AgentRun};
use crate::approval::ApprovalBroker;
use crate::config::{Limits, Providers, SessionConfig};
use crate::definitions::AgentDefinition;
use crate::events::{EventSink, EventStream};
use crate::journal::Journal;
use crate::mcp::McpCatalog;
use crate::prompt;
use crate::provider::{RetryPolicy, ToolSpec};
use crate::registry::{AgentRecord, AgentSpec, AgentSummary, Registry};
use crate::resume::{self, ResumeState};
use crate::subagents::{self, SpawnError, SpawnRequest};
use crate::tools::ToolRegistry;
use crate::workspace::Workspace;
use arbor_protocol::{
    AgentFinished, AgentId, AgentStarted, AgentStatus, ApprovalAnswer, ApprovalOutcome, ApprovalRequest,
    ApprovalResolved, ApprovalScope, Command, CommandReply, DelegateRequest, EventKind, Message, SessionId,
    StatusChanged, TaskNotification, Text, Usage, UserBlock,
};
use parking_lot::{Mutex, MutexGuard};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use thiserror::Error;
use tokio::sync::{Semaphore, mpsc, watch};
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
    #[error("agent {0} is running: send it a message instead")]
    AgentRunning(AgentId),
    #[error("no pending approval {0}: it was answered, cancelled, or never asked")]
    UnknownApproval(String),
    #[error("a message must not be empty")]
    EmptyMessage,
    #[error("cannot start the subagent: {0}")]
    Spawn(#[from] SpawnError),
    #[error("the session was shut down")]
    Closed,
}

/// State every agent of a session shares.
pub(crate) struct Shared {
    pub(crate) id: SessionId,
    pub(crate) events: EventSink,
    pub(crate) approvals: ApprovalBroker,
    pub(crate) workspace: Workspace,
    pub(crate) retry: RetryPolicy,
    pub(crate) max_tokens: u32,
    pub(crate) limits: Limits,
    pub(crate) providers: Providers,
    /// Loaded subagent types by name.
    pub(crate) agent_types: BTreeMap<String, AgentDefinition>,
    pub(crate) project_instructions: bool,
    /// `YYYY-MM-DD` at the session's start, for system prompts.
    pub(crate) today: String,
    /// One permit per subagent that may run at once.
    pub(crate) slots: Arc<Semaphore>,
    /// Subagents the models have started so far (for `max_subagents`).
    pub(crate) spawned: AtomicU32,
    /// The Task tool's description: it lists the loaded types, so it is built once.
    pub(crate) task_description: String,
    /// The tool specs offered so far, by the names of the tools in them (see [`Shared::tool_specs`]).
    tool_specs: Mutex<Vec<Arc<[ToolSpec]>>>,
    pub(crate) root_cancel: CancellationToken,
    pub(crate) mcp: Arc<McpCatalog>,
    journal: Option<Arc<dyn Journal>>,
    registry: Mutex<Registry>,
    rng: Mutex<fastrand::Rng>,
    approval_rng: Mutex<fastrand::Rng>,
}

/// A seed from a session id's text (FNV-1a): stable for a seeded session, distinct across sessions.
fn seed_of(id: &SessionId) -> u64 {
    id.as_str().bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// How long a parent that ends waits for the children it stops to wind down.
const CHILDREN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p.downcast_ref::<&str>().map_or_else(|| "no message".to_string(), |s| s.to_string()),
    }
}

/// Whether text for an agent that is not running starts a new run of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    StartIfIdle,
    OnlyWhileRunning,
}

/// Whether delivered text shows as a `user_message` (a person's) or not (a
/// child's result, shown already as its `task_notification`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Announce {
    AsUserMessage,
    Silently,
}

/// What an agent does when its model has stopped calling tools.
pub(crate) enum EndStep {
    /// Messages arrived meanwhile: answer them with another turn.
    Continue(Vec<UserBlock>),
    /// Children it started still run; their results are due as notifications.
    Wait,
    Finished,
}

impl Shared {
    pub(crate) fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock()
    }

    pub(crate) fn jitter(&self) -> f64 {
        self.rng.lock().f64()
    }

    /// Random bits for an approval request's UUID, from a generator of their own
    /// (seeded from the session's id), so asking never shifts the agent ids a seed predicts.
    pub(crate) fn random_bytes(&self) -> [u8; 10] {
        let mut rng = self.approval_rng.lock();
        std::array::from_fn(|_| rng.u8(..))
    }

    /// A fresh agent id, unique in this session (checked against `reg`, which the caller holds).
    pub(crate) fn new_agent_id(&self, reg: &Registry) -> AgentId {
        loop {
            let id = AgentId::from_suffix(self.rng.lock().u32(..));
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

    /// Hands the agent's history to the journal: the messages since its last
    /// save, plus the last one saved, which may have grown since.
    pub(crate) fn save_history(&self, id: &AgentId, history: &[Message]) {
        let Some(journal) = &self.journal else { return };
        let start = {
            let mut reg = self.registry();
            let Some(r) = reg.get_mut(id) else { return };
            r.journal_from(history.len())
        };
        journal.history(&self.id, id, start, &history[start..]);
    }

    /// The tools an agent of `spec` is offered: the built-ins, plus the subagent
    /// tools below the depth limit, filtered by its type. Fresh instances per run.
    pub(crate) fn tools_for(self: &Arc<Self>, id: &AgentId, spec: &AgentSpec) -> ToolRegistry {
        let mut tools = ToolRegistry::builtins();
        if spec.depth < self.limits.max_depth {
            subagents::add_tools(&mut tools, self, id);
        }
        tools.retain(|t| spec.tools.admits(t.name()));
        tools
    }

    /// The specs of `tools` as the model sees them, built once per set of tools and
    /// shared: every subagent of a fan-out would otherwise rebuild the same schemas.
    /// Keyed by the tools' names, since within a session a name always stands for
    /// the same tool (the built-ins; the subagent tools, whose description is the
    /// session's; MCP tools, whose server names the catalog keeps unique); only the
    /// agent a tool is bound to differs.
    pub(crate) fn tool_specs(&self, tools: &ToolRegistry) -> Arc<[ToolSpec]> {
        let mut cache = self.tool_specs.lock();
        if let Some(specs) = cache.iter().find(|s| s.iter().map(|t| t.name.as_str()).eq(tools.names())) {
            return specs.clone();
        }
        let specs: Arc<[ToolSpec]> = tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.description().to_string(),
                input_schema: t.input_schema(),
            })
            .collect();
        cache.push(specs.clone());
        specs
    }

    /// Text for an agent: steering while it runs; otherwise, as `start` says,
    /// a new run that continues its history with the text (the main agent's next
    /// prompt, or a notification to an agent that had finished). Decided under
    /// one lock, so two texts at once cannot start two runs. A person's text is
    /// announced as a `user_message` once it is accepted; a child's result
    /// already was, as its `task_notification`.
    pub(crate) fn deliver(
        self: &Arc<Self>,
        id: &AgentId,
        text: String,
        start: Delivery,
        announce: Announce,
    ) -> Result<(), SessionError> {
        if self.root_cancel.is_cancelled() {
            return Err(SessionError::Closed);
        }
        let mut reg = self.registry();
        let r = reg.get(id).ok_or_else(|| SessionError::UnknownAgent(id.clone()))?;
        let shown = (announce == Announce::AsUserMessage).then(|| text.clone());
        let text = match &r.inbox {
            Some(inbox) => match inbox.send(text) {
                Ok(()) => {
                    if let Some(content) = shown {
                        self.events.emit(id, EventKind::UserMessage(Text { content }));
                    }
                    return Ok(());
                }
                Err(e) => e.0,
            },
            None => text,
        };
        if start == Delivery::OnlyWhileRunning {
            return Err(SessionError::AgentNotRunning(id.clone()));
        }
        // Under the lock, so the message comes before anything of the run it starts.
        if let Some(content) = shown {
            self.events.emit(id, EventKind::UserMessage(Text { content }));
        }
        let parent_cancel = match r.started.parent_id.as_ref().and_then(|p| reg.get(p)) {
            Some(p) => p.cancel_for_child(&self.root_cancel),
            None => self.root_cancel.clone(),
        };
        let Some(r) = reg.get_mut(id) else { return Err(SessionError::UnknownAgent(id.clone())) };
        let (inbox_tx, inbox) = mpsc::unbounded_channel();
        let cancel = parent_cancel.child_token();
        r.inbox = Some(inbox_tx);
        r.cancel = cancel.clone();
        r.finished_at = None;
        r.outcome.send_replace(None);
        // A subagent's later runs answer no Task call: their results go to the parent as notifications.
        if r.started.parent_id.is_some() {
            r.notifies_parent = true;
            r.collected = false;
        }
        let mut history = std::mem::take(&mut r.history);
        let spec = r.spec.clone();
        drop(reg);
        agent::append_user(&mut history, vec![UserBlock::Text { text }]);
        self.launch(id.clone(), spec, history, inbox, cancel);
        Ok(())
    }

    /// Starts a run of an agent whose record is in the registry.
    pub(crate) fn launch(
        self: &Arc<Self>,
        id: AgentId,
        spec: Arc<AgentSpec>,
        history: Vec<Message>,
        inbox: mpsc::UnboundedReceiver<String>,
        cancel: CancellationToken,
    ) {
        self.save_history(&id, &history);
        let id_for_panic = id.clone();
        let run = AgentRun {
            tools: self.tools_for(&id, &spec),
            depth_limited: spec.depth >= self.limits.max_depth,
            slots: spec.scheduled.then(|| self.slots.clone()),
            slot: None,
            id,
            spec,
            history,
            inbox,
            cancel,
            mcp_failed: Vec::new(),
        };
        let span = info_span!("session", session_id = %self.id);
        let handle = tokio::spawn(run.run(self.clone()).instrument(span));
        // A bug that panics an agent's task must still end the agent, or whoever waits
        // for it (a Task call, a parent, the CLI) would wait forever.
        let shared = self.clone();
        tokio::spawn(async move {
            if let Err(e) = handle.await
                && e.is_panic()
            {
                shared.fail_after_panic(&id_for_panic, panic_message(e.into_panic()));
            }
        });
    }

    /// Ends an agent whose task panicked: failed, with what the panic said.
    fn fail_after_panic(self: &Arc<Self>, id: &AgentId, message: String) {
        tracing::error!(agent_id = %id, panic = %message, "an agent's task panicked");
        let turns = match self.registry().get(id) {
            Some(r) if r.outcome.borrow().is_none() => r.turns,
            _ => return,
        };
        let finished = AgentFinished {
            status: AgentStatus::Failed,
            result: String::new(),
            error: Some(format!("internal error: the agent's task panicked: {message}")),
            turns,
            duration_ms: 0,
            files_modified: Vec::new(),
        };
        let (_tx, mut inbox) = mpsc::unbounded_channel();
        self.end_run(id, finished, &mut inbox, &mut Vec::new());
    }

    /// Stops the agent's children that still run and waits (briefly) until they
    /// have ended, so a stopped or failed parent is the last of its subtree to finish.
    pub(crate) async fn stop_children(&self, id: &AgentId) {
        let running: Vec<(AgentId, watch::Receiver<Option<AgentFinished>>)> = self
            .registry()
            .children(id)
            .filter(|r| !r.status.is_terminal())
            .map(|r| (r.id.clone(), r.outcome.subscribe()))
            .collect();
        if running.is_empty() {
            return;
        }
        for (child, _) in &running {
            self.cancel_subtree(child);
        }
        let ends = running.into_iter().map(|(_, mut rx)| async move {
            let _ = rx.wait_for(Option::is_some).await;
        });
        let _ = tokio::time::timeout(CHILDREN_GRACE, futures::future::join_all(ends)).await;
    }

    /// Ends a run, unless there is more to do: messages that arrived while the
    /// model answered, or children whose results are still due. Decided under
    /// the registry lock, the same lock a finishing child delivers its result
    /// under, so no message or result slips between the check and the end.
    pub(crate) fn end_run(
        self: &Arc<Self>,
        id: &AgentId,
        mut finished: AgentFinished,
        inbox: &mut mpsc::UnboundedReceiver<String>,
        history: &mut Vec<Message>,
    ) -> EndStep {
        let mut abandon = Vec::new();
        let mut notice = None;
        let mut status_changed = false;
        {
            let mut reg = self.registry();
            if finished.status == AgentStatus::Completed {
                let late = agent::drain_texts(inbox);
                if !late.is_empty() {
                    return EndStep::Continue(late);
                }
                if !reg.outstanding(id).is_empty() {
                    return EndStep::Wait;
                }
            } else {
                // Nobody will read their results now; stop them rather than let them run on unseen.
                abandon = reg.outstanding(id);
            }
            let now = self.events.now_ms();
            let Some(r) = reg.get_mut(id) else { return EndStep::Finished };
            r.inbox = None;
            let late = agent::drain_texts(inbox);
            if !late.is_empty() {
                agent::append_user(history, late);
            }
            if let Some(journal) = &self.journal {
                let start = r.journal_from(history.len());
                journal.history(&self.id, id, start, &history[start..]);
            }
            r.history = std::mem::take(history);
            r.finished_at = Some(now);
            r.result = Some(finished.result.clone());
            finished.files_modified = r.files_modified.clone();
            if r.status != finished.status {
                r.status = finished.status;
                status_changed = true;
            }
            r.outcome.send_replace(Some(finished.clone()));
            if r.notifies_parent
                && !r.collected
                && let Some(parent) = r.started.parent_id.clone()
            {
                let text =
                    subagents::notification_text(id, &r.started.description, &finished, self.limits.result_chars);
                let summary = subagents::summary(&r.started.description, &finished);
                // Into the parent's inbox now, under the lock, if it is running.
                let pending = match reg.get(&parent).and_then(|p| p.inbox.as_ref()) {
                    Some(inbox) => inbox.send(text).err().map(|e| e.0),
                    None => Some(text),
                };
                notice = Some((parent, summary, pending));
            }
        }
        if status_changed {
            self.events.emit(id, EventKind::AgentStatus(StatusChanged { status: finished.status }));
        }
        let status = finished.status;
        self.events.emit(id, EventKind::AgentFinished(finished));
        if let Some((parent, summary, pending)) = notice {
            self.events
                .emit(&parent, EventKind::TaskNotification(TaskNotification { task_id: id.clone(), status, summary }));
            // An idle parent is woken to read it, unless the child was stopped (by
            // the person, or because the parent itself ended).
            if let Some(text) = pending
                && status != AgentStatus::Cancelled
            {
                let _ = self.deliver(&parent, text, Delivery::StartIfIdle, Announce::Silently);
            }
        }
        for child in abandon {
            self.cancel_subtree(&child);
        }
        EndStep::Finished
    }

    /// Stops an agent and its whole subtree.
    pub(crate) fn cancel_subtree(&self, id: &AgentId) {
        let reg = self.registry();
        for a in reg.subtree(id) {
            if let Some(r) = reg.get(&a) {
                r.cancel.cancel();
            }
        }
    }

    /// Asks the person and waits for the answer (or a standing grant). None when
    /// the agent was cancelled while waiting.
    ///
    /// The asking agent itself announces how its request ended, once: the person's
    /// answer, or `withdrawn` when it stopped waiting. So for every call the events
    /// read `tool_call` < `approval_request` < `approval_resolved` < `tool_output`,
    /// whichever thread the answer came in on.
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
        let request_id =
            format!("approval-{}", arbor_protocol::ids::uuid_v7(self.events.now_ms(), self.random_bytes()));
        let mut answer = self.approvals.open(&request_id, agent_id, tool_name);
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
        let got = tokio::select! {
            biased;
            a = &mut answer => a.ok(),
            _ = cancel.cancelled() => None,
        };
        // Stopped while waiting: withdrawn, unless an answer slipped in at that moment.
        let got = match got {
            Some(a) => Some(a),
            None if self.approvals.withdraw(&request_id) => None,
            None => answer.try_recv().ok(),
        };
        let (outcome, scope) = match &got {
            Some(a) => (ApprovalOutcome::of(a.approved), a.scope),
            None => (ApprovalOutcome::Withdrawn, ApprovalScope::Once),
        };
        self.events.emit(agent_id, EventKind::ApprovalResolved(ApprovalResolved { request_id, outcome, scope }));
        self.approval_wait(agent_id, -1);
        got.map(|a| a.approved)
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

/// A running session. Cheap to clone; dropping the last clone does not stop agents,
/// [`Session::shutdown`] does.
#[derive(Clone)]
pub struct Session {
    shared: Arc<Shared>,
    main: Arc<MainAgent>,
}

/// How to create the main agent when the first message arrives.
struct MainAgent {
    id: AgentId,
    description: String,
    spec: Arc<AgentSpec>,
    provider_name: String,
}

impl Session {
    /// Starts a session; its main agent starts with the first message. Must be
    /// called inside a Tokio runtime (agents run as tasks on it).
    pub fn start(config: SessionConfig) -> Result<(Session, EventStream), SessionError> {
        let mut rng = config.seed.map(fastrand::Rng::with_seed).unwrap_or_default();
        // One draw, as agent ids after it are predictable from the seed.
        let r = rng.u64(..).to_le_bytes();
        let random = [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[0] ^ r[7], r[1] ^ r[6]];
        let session_id = SessionId::new(config.clock.now_ms(), random);
        let main_id = AgentId::from_suffix(rng.u32(..));
        Self::build(config, rng, session_id, main_id, 0)
    }

    /// Continues a stored session: its agents are back as they were left, none
    /// running; the main agent's next prompt (a [`Command::SendMessage`]) or a
    /// [`Command::Resume`] starts a run. Events go on from `state.last_seq`.
    pub fn resume(config: SessionConfig, state: ResumeState) -> Result<(Session, EventStream), SessionError> {
        let rng = config.seed.map(fastrand::Rng::with_seed).unwrap_or_default();
        let (session, stream) = Self::build(config, rng, state.session_id, state.main_agent_id, state.last_seq)?;
        session.shared.restore(&session.main.id, &session.main.spec, state.agents);
        Ok((session, stream))
    }

    fn build(
        config: SessionConfig,
        rng: fastrand::Rng,
        session_id: SessionId,
        main_id: AgentId,
        last_seq: u64,
    ) -> Result<(Session, EventStream), SessionError> {
        let workspace = Workspace::new(&config.workspace, &config.allowed_paths)
            .map_err(|e| SessionError::Workspace { path: config.workspace.clone(), reason: e.to_string() })?;
        let main_def = config.main_agent;
        let provider = config
            .providers
            .get(&main_def.provider)
            .cloned()
            .ok_or_else(|| SessionError::UnknownProvider(main_def.provider.clone()))?;
        let today = prompt::iso_date(config.clock.now_ms());
        let (events, stream) = EventSink::new(session_id.clone(), config.clock.clone(), last_seq);
        let system =
            prompt::main_system_prompt(&main_def.system_prompt, workspace.root(), &today, config.project_instructions);
        let agent_types: BTreeMap<String, AgentDefinition> =
            config.agent_types.into_iter().map(|d| (d.name.clone(), d)).collect();
        let task_description = subagents::task_description(&agent_types);
        let approval_seed = seed_of(&session_id);
        let shared = Arc::new(Shared {
            id: session_id,
            events,
            approvals: ApprovalBroker::default(),
            workspace,
            retry: config.retry,
            max_tokens: config.max_tokens,
            slots: Arc::new(Semaphore::new(config.limits.max_parallel.max(1))),
            limits: config.limits,
            providers: config.providers,
            agent_types,
            project_instructions: config.project_instructions,
            today,
            spawned: AtomicU32::new(0),
            task_description,
            tool_specs: Mutex::new(Vec::new()),
            root_cancel: CancellationToken::new(),
            journal: config.journal,
            mcp: config.mcp.clone(),
            registry: Mutex::new(Registry::default()),
            approval_rng: Mutex::new(fastrand::Rng::with_seed(approval_seed)),
            rng: Mutex::new(rng),
        });
        let main = MainAgent {
            id: main_id,
            description: main_def.description,
            spec: Arc::new(AgentSpec {
                system,
                model: main_def.model,
                provider,
                tools: main_def.tools,
                max_turns: main_def.max_turns,
                policy: Arc::new(config.approval),
                depth: 0,
                scheduled: false,
                mcp: config.mcp.servers_for(None),
            }),
            provider_name: main_def.provider,
        };
        Ok((Session { shared, main: Arc::new(main) }, stream))
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

    pub fn limits(&self) -> &Limits {
        &self.shared.limits
    }

    /// The subagent types Task calls and delegations may name.
    pub fn agent_types(&self) -> impl Iterator<Item = &AgentDefinition> {
        self.shared.agent_types.values()
    }

    /// A command in: the one way in for every client. Refusals are immediate and
    /// typed; a command that creates something answers with it; effects arrive as events.
    pub fn submit(&self, command: Command) -> Result<CommandReply, SessionError> {
        if self.shared.root_cancel.is_cancelled() {
            return Err(SessionError::Closed);
        }
        match command {
            Command::SendMessage { agent_id, text } => {
                if text.trim().is_empty() {
                    return Err(SessionError::EmptyMessage);
                }
                let target = agent_id.unwrap_or_else(|| self.main.id.clone());
                let start = if target == self.main.id {
                    self.ensure_main();
                    Delivery::StartIfIdle
                } else {
                    Delivery::OnlyWhileRunning
                };
                self.shared.deliver(&target, text, start, Announce::AsUserMessage)?;
            }
            Command::ResolveApproval(answer) => self.resolve_approval(answer)?,
            Command::Cancel { agent_id } => self.cancel(&agent_id)?,
            Command::Delegate(request) => {
                return self.delegate(request).map(|agent_id| CommandReply::Delegated { agent_id });
            }
            Command::Resume { agent_id, text } => {
                self.resume_agent(&agent_id, text)?;
                return Ok(CommandReply::Resumed { agent_id });
            }
        }
        Ok(CommandReply::Done)
    }

    /// Starts a new run of an agent that is not running, its history continued
    /// with `text` (or a request to carry on). A subagent's result then reaches
    /// its parent as a task notification.
    fn resume_agent(&self, id: &AgentId, text: Option<String>) -> Result<(), SessionError> {
        if self.shared.root_cancel.is_cancelled() {
            return Err(SessionError::Closed);
        }
        if *id == self.main.id {
            self.ensure_main();
        }
        match self.status(id) {
            None => Err(SessionError::UnknownAgent(id.clone())),
            Some(s) if !s.is_terminal() && s != AgentStatus::Queued => Err(SessionError::AgentRunning(id.clone())),
            Some(_) => {
                let text = text.filter(|t| !t.trim().is_empty()).unwrap_or_else(|| resume::CARRY_ON.to_string());
                self.shared.deliver(id, text, Delivery::StartIfIdle, Announce::AsUserMessage)
            }
        }
    }

    /// Starts a subagent under `request.parent_id` as the person asks (not a
    /// model): the limits on depth and count do not apply, the queue does. Its
    /// result reaches the parent as a task notification.
    fn delegate(&self, request: DelegateRequest) -> Result<AgentId, SessionError> {
        if self.shared.root_cancel.is_cancelled() {
            return Err(SessionError::Closed);
        }
        if request.parent_id == self.main.id {
            self.ensure_main();
        }
        let spawned = self.shared.spawn(SpawnRequest {
            parent: request.parent_id,
            parent_call_id: None,
            prompt: request.prompt,
            description: request.description,
            subagent_type: request.subagent_type,
            model: request.model,
            max_turns: request.max_turns,
            background: true,
            by_user: true,
        })?;
        Ok(spawned.id)
    }

    /// Creates the main agent's record (and announces it) the first time it is needed.
    fn ensure_main(&self) {
        let id = &self.main.id;
        let mut reg = self.shared.registry();
        if reg.contains(id) {
            return;
        }
        let started = AgentStarted {
            parent_id: None,
            parent_call_id: None,
            depth: 0,
            description: self.main.description.clone(),
            subagent_type: None,
            model: self.main.spec.model.clone(),
            provider: self.main.provider_name.clone(),
            background: false,
        };
        reg.insert(AgentRecord::queued(
            id.clone(),
            started.clone(),
            self.main.spec.clone(),
            self.shared.events.now_ms(),
            self.shared.root_cancel.child_token(),
            None,
            false,
        ));
        // Emitted under the lock so no event of the main agent can precede it.
        self.shared.events.emit(id, EventKind::AgentStarted(started));
    }

    /// Hands the answer to the waiting agent, which announces it (see `ask_approval`).
    fn resolve_approval(&self, answer: ApprovalAnswer) -> Result<(), SessionError> {
        let request_id = answer.request_id.clone();
        self.shared.approvals.resolve(answer).map(|_| ()).ok_or(SessionError::UnknownApproval(request_id))
    }

    /// Stops the agent and its whole subtree.
    fn cancel(&self, id: &AgentId) -> Result<(), SessionError> {
        if !self.shared.registry().contains(id) {
            return Err(SessionError::UnknownAgent(id.clone()));
        }
        self.shared.cancel_subtree(id);
        Ok(())
    }

    /// The status of an agent, if it exists.
    pub fn status(&self, id: &AgentId) -> Option<AgentStatus> {
        self.shared.registry().get(id).map(|r| r.status)
    }

    /// Every agent of the session, parents first.
    pub fn agents(&self) -> Vec<AgentSummary> {
        let reg = self.shared.registry();
        reg.all().into_iter().map(|r| reg.summary(r)).collect()
    }

    /// True when no agent of the session is queued, running or waiting.
    pub fn is_idle(&self) -> bool {
        self.shared.registry().iter().all(|r| r.status.is_terminal())
    }

    /// Stops every agent; later commands are refused.
    pub fn shutdown(&self) {
        self.shared.root_cancel.cancel();
        self.shared.cancel_subtree(&self.main.id);
    }
}
