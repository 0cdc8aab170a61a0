//! A session: the main agent, the registry of its tree, the approvals and the
//! ordered event stream. The runtime is a queue pair: [`Session::submit`]
//! takes commands in, the [`EventStream`] carries events out (design.md §6.3).
//! What its agents share is [`crate::shared::Shared`]; how runs start and end,
//! [`crate::agent::lifecycle`].

use crate::agent::lifecycle::{self, Announce, Delivery};
use crate::changes::Tracker;
use crate::children::{self, SpawnRequest};
use crate::config::{Limits, SessionConfig};
use crate::definitions::AgentDefinition;
pub use crate::error::SessionError;
use crate::events::{EventSink, EventStream};
use crate::prompt;
use crate::registry::{AgentRecord, AgentSpec, AgentSummary};
use crate::resume::{self, ResumeState};
use crate::sandbox::Jail;
use crate::shared::{Context, Shared};
use crate::workspace::Workspace;
use arbor_protocol::{
    AgentId, AgentStarted, AgentStatus, ApprovalAnswer, Command, CommandReply, DelegateRequest, EventKind, MessageFrom,
    RevertOutcome, SessionId, SpawnEdit, UserMessage, WorktreeAction, WorktreeState, WorktreeUpdate,
};
pub use budget_probe::BudgetProbe;
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// A running session. Cheap to clone; dropping the last clone does not stop agents,
/// [`Session::shutdown`] does.
#[derive(Clone)]
pub struct Session {
    pub(crate) shared: Arc<Shared>,
    main: Arc<MainAgent>,
}

mod budget_probe;
mod main_type;
mod prompt_hooks;

/// How to create the main agent when the first message arrives.
struct MainAgent {
    id: AgentId,
    /// The SessionStart hooks have run (before this run's first prompt).
    session_started: std::sync::atomic::AtomicBool,
    /// Continued from the store: SessionStart's `source` is `resume`.
    resumed: bool,
    description: String,
    spec: Arc<AgentSpec>,
    provider_name: String,
    /// The session's budget, given to the main agent when it starts.
    budget: arbor_protocol::Budget,
    /// The agent type it runs as (`--agent`); None: Arbor's own main agent.
    agent_type: Option<String>,
    /// The queue of prompts waiting for their hooks, in the order sent (made at first need).
    prompts: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<String>>,
}

impl Session {
    /// Starts a session; its main agent starts with the first message. Must be
    /// called inside a Tokio runtime (agents run as tasks on it).
    pub fn start(config: SessionConfig) -> Result<(Session, EventStream), SessionError> {
        let mut rng = config.seed.map(fastrand::Rng::with_seed).unwrap_or_default();
        // One draw, as agent ids after it are predictable from the seed.
        let r = rng.u64(..).to_le_bytes();
        let random = [r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[0] ^ r[7], r[1] ^ r[6]];
        let session_id = config.session_id.clone().unwrap_or_else(|| SessionId::new(config.clock.now_ms(), random));
        let main_id = AgentId::from_suffix(rng.u32(..));
        Self::build(config, rng, session_id, main_id, 0)
    }

    /// Continues a stored session: its agents are back as they were left, none
    /// running (`config.budget`, when it names limits, changes the main agent's); the main agent's next prompt (a [`Command::SendMessage`]) or a
    /// [`Command::Resume`] starts a run. Events go on from `state.last_seq`.
    pub fn resume(config: SessionConfig, state: ResumeState) -> Result<(Session, EventStream), SessionError> {
        let rng = config.seed.map(fastrand::Rng::with_seed).unwrap_or_default();
        let (session, stream) = Self::build(config, rng, state.session_id, state.main_agent_id, state.last_seq)?;
        resume::restore(&session.shared, &session.main.id, &session.main.spec, state.agents);
        // Limits given for this run (the command line's) change the stored budget, as a person's would.
        if !session.main.budget.is_empty() {
            let mut st = session.shared.lock();
            let stored = st.registry.get(&session.main.id).and_then(|r| r.state.budget.clone()).unwrap_or_default();
            let now = stored.changed_by(&session.main.budget);
            crate::budget::set(&mut st, &session.main.id, now, arbor_protocol::BudgetOrigin::Person, Vec::new());
        }
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
        let instructions =
            if config.project_instructions { prompt::project_instructions(workspace.root()) } else { String::new() };
        let system = prompt::main_system_prompt(&main_def.system_prompt, workspace.root(), &today, &instructions);
        let agent_types: BTreeMap<String, AgentDefinition> =
            config.agent_types.into_iter().map(|d| (d.name.clone(), d)).collect();
        let task_description = children::task_description(&agent_types);
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| SessionError::NoRuntime)?;
        let hook_run = session_id.clone();
        let ctx = Context {
            id: session_id,
            clock: config.clock.clone(),
            workspace,
            retry: config.retry,
            max_tokens: config.max_tokens,
            context: config.context,
            hooks: Arc::new(config.hooks),
            hook_files: crate::hooks::TranscriptDir::new(config.hook_transcripts, hook_run.as_str()),
            hook_env: config.hook_env,
            prompt_id: parking_lot::RwLock::new(String::new()),
            permissions: config.permissions,
            slots: Arc::new(Semaphore::new(config.limits.max_parallel.max(1))),
            limits: config.limits,
            providers: config.providers,
            agent_types: parking_lot::RwLock::new(Arc::new(agent_types)),
            instructions,
            today,
            task_description,
            root_cancel: CancellationToken::new(),
            journal: config.journal,
            mcp: config.mcp.clone(),
            runtime,
            door: children::run,
        };
        let shared = Arc::new(Shared::new(ctx, events, rng));
        let main = MainAgent {
            id: main_id,
            session_started: std::sync::atomic::AtomicBool::new(false),
            resumed: last_seq > 0,
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
                sandbox: Arc::new(Jail::new(config.sandboxing, config.sandbox, shared.ctx.workspace.root())),
                workspace: shared.ctx.workspace.clone(),
                changes: Arc::new(Tracker::new(
                    shared.ctx.workspace.root(),
                    // Unique per run: a resumed session's changes must not reuse the ids of its earlier runs'.
                    format!("{}-{}", shared.ctx.id.as_str().trim_start_matches("sess-"), shared.now_ms()),
                )),
                isolation: arbor_protocol::Isolation::Shared,
                worktree: None,
                fork: None,
                context: shared.ctx.context.clone(),
                hooks: shared.ctx.hooks.clone(),
                external: None,
                hosted: false,
            }),
            provider_name: main_def.provider,
            budget: config.budget,
            agent_type: None,
            prompts: std::sync::OnceLock::new(),
        };
        let main = match &main_def.agent_type {
            Some(name) => main.of_type(&shared, name)?,
            None => main,
        };
        Ok((Session { shared, main: Arc::new(main) }, stream))
    }

    pub fn id(&self) -> &SessionId {
        &self.shared.ctx.id
    }

    /// A new prompt to the main agent: hooks name it by a fresh `prompt_id` (a UUID, as
    /// Claude Code's). Not from the session's seeded draws, which predict agent ids.
    fn new_prompt(&self) {
        let bits = fastrand::u128(..).to_le_bytes();
        let mut random = [0u8; 10];
        random.copy_from_slice(&bits[..10]);
        *self.shared.ctx.prompt_id.write() = arbor_protocol::ids::uuid_v7(self.shared.now_ms(), random);
    }

    /// The agent type the main agent runs as; None: Arbor's own main agent.
    pub fn main_agent_type(&self) -> Option<&str> {
        self.main.agent_type.as_deref()
    }

    pub fn main_agent_id(&self) -> &AgentId {
        &self.main.id
    }

    pub fn workspace(&self) -> &Workspace {
        &self.shared.ctx.workspace
    }

    /// What the main agent's commands run in.
    pub fn sandbox(&self) -> arbor_protocol::CommandSandbox {
        self.main.spec.sandbox.describe()
    }

    pub fn limits(&self) -> &Limits {
        &self.shared.ctx.limits
    }

    /// The subagent types Task calls and delegations may name.
    pub fn agent_types(&self) -> Vec<AgentDefinition> {
        self.shared.ctx.agent_types().values().cloned().collect()
    }

    /// The subagent types from now on, as a person reloaded them: later spawns (a
    /// delegation, a Task call) may name them. The Task tool's description keeps
    /// listing the types the session started with.
    pub fn set_agent_types(&self, defs: Vec<AgentDefinition>) {
        let types = defs.into_iter().map(|d| (d.name.clone(), d)).collect();
        *self.shared.ctx.agent_types.write() = Arc::new(types);
    }

    /// Undoes `agent`'s file changes (all, or those to `paths`), all or nothing:
    /// a file anyone changed since is a conflict, and then no file is touched.
    /// The revert is recorded as the agent's `file_changed` events.
    pub async fn revert_changes(&self, agent: &AgentId, paths: &[String]) -> Result<RevertOutcome, SessionError> {
        let tracker = {
            let reg = self.shared.registry();
            let r = reg.get(agent).ok_or_else(|| SessionError::UnknownAgent(agent.clone()))?;
            r.spec.changes.clone()
        };
        let (outcome, found) = tracker.revert(agent, paths).await;
        crate::agent::emit_changes(&self.shared, found);
        Ok(outcome)
    }

    /// What a person does with an agent's finished worktree: merge its branch
    /// into the parent's tree (all or nothing; the merged files are recorded as
    /// the agent's changes there), keep the branch, or discard it.
    pub async fn worktree_action(
        &self,
        agent: &AgentId,
        action: WorktreeAction,
    ) -> Result<WorktreeUpdate, SessionError> {
        let (spec, parent_tracker) = {
            let reg = self.shared.registry();
            let r = reg.get(agent).ok_or_else(|| SessionError::UnknownAgent(agent.clone()))?;
            // Nothing of its subtree may still be at work in the worktree.
            let busy = reg.subtree(agent).iter().any(|a| reg.get(a).is_some_and(|x| !x.state.status.is_terminal()));
            if busy {
                return Err(SessionError::WorktreeBusy(agent.clone()));
            }
            let parent = r.state.parent_id.as_ref().and_then(|p| reg.get(p)).map(|p| p.spec.changes.clone());
            (r.spec.clone(), parent)
        };
        let wt = spec.worktree.clone().ok_or_else(|| SessionError::NoWorktree(agent.clone()))?;
        let w = wt.clone();
        // Whatever is still uncommitted there (its end could not commit it) is part of the work.
        let message = format!("{agent}: work left in the worktree");
        let files = tokio::task::spawn_blocking(move || crate::worktree::finish(&w, &message))
            .await
            .map_err(|e| SessionError::Worktree(crate::worktree::WorktreeError::NoGit(e.to_string())))??;
        // A merge's files are recorded in the parent's tree as this agent's changes.
        let watch = match (&parent_tracker, action) {
            (Some(t), WorktreeAction::Merge) => {
                let named = files.iter().map(|f| wt.parent_top.join(&f.path)).collect();
                Some((t, t.begin(agent, None, Some(named)).await))
            }
            _ => None,
        };
        let w = wt.clone();
        let acted = tokio::task::spawn_blocking(move || crate::worktree::act(&w, action, files)).await;
        if let Some((t, (watch, found))) = watch {
            crate::agent::emit_changes(&self.shared, found);
            crate::agent::emit_changes(&self.shared, t.end(watch).await);
        }
        let update =
            acted.map_err(|e| SessionError::Worktree(crate::worktree::WorktreeError::NoGit(e.to_string())))??;
        if update.state != WorktreeState::Conflicted {
            // The worktree is gone: the agent is back in its parent's tree.
            let spec = crate::agent::back_in_parent(&self.shared, agent, &spec, &wt);
            if let Some(r) = self.shared.registry().get_mut(agent) {
                r.spec = Arc::new(spec);
            }
        }
        self.shared.emit(agent, EventKind::Worktree(update.clone()));
        Ok(update)
    }

    /// A command in: the one way in for every client. Refusals are immediate and
    /// typed; a command that creates something answers with it; effects arrive as events.
    pub fn submit(&self, command: Command) -> Result<CommandReply, SessionError> {
        if self.shared.ctx.root_cancel.is_cancelled() {
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
                    if self.prompt_is_hooked() {
                        self.prompt_through_hooks(text);
                        return Ok(CommandReply::Done);
                    }
                    self.new_prompt();
                    Delivery::StartIfIdle
                } else {
                    Delivery::OnlyWhileRunning
                };
                lifecycle::deliver(&self.shared, &target, text, start, Announce::From(MessageFrom::Person))?;
            }
            Command::ResolveApproval(answer) => self.resolve_approval(answer)?,
            Command::Cancel { agent_id } => self.cancel(&agent_id)?,
            Command::RevokeRule { rule_id } => self.revoke_rule(&rule_id)?,
            Command::Delegate(request) => {
                if let Some(field) = request.budget.as_ref().and_then(|b| b.invalid_field()) {
                    return Err(SessionError::InvalidBudget(field));
                }
                return self.delegate(request).map(|agent_id| CommandReply::Delegated { agent_id });
            }
            Command::Resume { agent_id, text } => {
                let text = text.filter(|t| !t.trim().is_empty()).map(|t| UserMessage::new(t, MessageFrom::Person));
                self.resume_agent(&agent_id, text)?;
                return Ok(CommandReply::Resumed { agent_id });
            }
            Command::SetBudget { agent_id, budget } => return self.set_budget(agent_id, &budget),
            Command::Compact { agent_id } => {
                let mut reg = self.shared.registry();
                let r = reg.get_mut(&agent_id).ok_or_else(|| SessionError::UnknownAgent(agent_id.clone()))?;
                r.compact_asked = true;
            }
        }
        Ok(CommandReply::Done)
    }

    /// A person changes an agent's budget. A running agent goes on within it (a new
    /// wall-time limit is watched from now); one its budget stopped resumes when every
    /// budget above it has room, at once or, while its stop still winds down, once it has.
    fn set_budget(&self, agent_id: AgentId, budget: &arbor_protocol::Budget) -> Result<CommandReply, SessionError> {
        if let Some(field) = budget.invalid_field() {
            return Err(SessionError::InvalidBudget(field));
        }
        if agent_id == self.main.id {
            self.ensure_main();
        }
        let stopped = crate::budget::change(&self.shared, &agent_id, budget)
            .ok_or_else(|| SessionError::UnknownAgent(agent_id.clone()))?;
        let watch = self.shared.registry().get(&agent_id).filter(|r| r.inbox.is_some()).map(|r| r.run_watch.clone());
        if let (Some(watch), Some(_)) = (watch, budget.max_duration_seconds) {
            crate::budget::watch_deadline(&self.shared, agent_id.clone(), watch);
        }
        match stopped {
            crate::budget::Stopped::Ended if crate::budget::has_room(&self.shared, &agent_id) => {
                self.resume_agent(&agent_id, Some(UserMessage::new(crate::budget::RAISED, MessageFrom::Arbor)))?;
                Ok(CommandReply::Resumed { agent_id })
            }
            crate::budget::Stopped::WindingDown => {
                let mut outcome = match self.shared.registry().get(&agent_id) {
                    Some(r) => r.outcome.subscribe(),
                    None => return Ok(CommandReply::Done),
                };
                let session = self.clone();
                self.shared.ctx.runtime.spawn(async move {
                    let _ = outcome.wait_for(Option::is_some).await;
                    if crate::budget::has_room(&session.shared, &agent_id) {
                        let raised = UserMessage::new(crate::budget::RAISED, MessageFrom::Arbor);
                        let _ = session.resume_agent(&agent_id, Some(raised));
                    }
                });
                Ok(CommandReply::Done)
            }
            _ => Ok(CommandReply::Done),
        }
    }

    /// Starts a new run of an agent that is not running, its history continued
    /// with `text` (or Arbor's request to carry on). A subagent's result then reaches
    /// its parent as a task notification.
    fn resume_agent(&self, id: &AgentId, text: Option<UserMessage>) -> Result<(), SessionError> {
        if self.shared.ctx.root_cancel.is_cancelled() {
            return Err(SessionError::Closed);
        }
        if *id == self.main.id {
            self.ensure_main();
        }
        match self.status(id) {
            None => Err(SessionError::UnknownAgent(id.clone())),
            Some(s) if !s.is_terminal() && s != AgentStatus::Queued => Err(SessionError::AgentRunning(id.clone())),
            Some(_) => {
                let m = text.unwrap_or_else(|| UserMessage::new(resume::CARRY_ON, MessageFrom::Arbor));
                lifecycle::deliver(&self.shared, id, m.content, Delivery::StartIfIdle, Announce::From(m.from))
            }
        }
    }

    /// Starts a subagent under `request.parent_id` as the person asks (not a
    /// model): the limits on depth and count do not apply, the queue does. Its
    /// result reaches the parent as a task notification.
    fn delegate(&self, request: DelegateRequest) -> Result<AgentId, SessionError> {
        if self.shared.ctx.root_cancel.is_cancelled() {
            return Err(SessionError::Closed);
        }
        if let Some(mode) = request.permission_mode
            && !arbor_protocol::PermissionMode::TIGHTENING.contains(&mode)
        {
            return Err(SessionError::LooserMode(mode.as_str()));
        }
        if request.parent_id == self.main.id {
            self.ensure_main();
        }
        let mut req = SpawnRequest {
            parent: request.parent_id,
            parent_call_id: None,
            parent_call_seq: None,
            prompt: request.prompt,
            description: request.description,
            subagent_type: request.subagent_type,
            model: request.model,
            max_turns: request.max_turns,
            background: true,
            by_user: true,
            isolation: request.isolation,
            budget: request.budget,
            fork: None,
        };
        let children = children::Children::of(&self.shared, &req.parent);
        let mut plan = children.plan(&req)?;
        // Narrowed as the person chose: fewer tools, a stricter mode.
        let edit = SpawnEdit { tools: request.tools, ..SpawnEdit::default() };
        children.edit(&mut plan, &mut req, &edit);
        if let Some(mode) = request.permission_mode {
            plan.tighten(mode);
        }
        if let Some(sandbox) = request.sandbox.as_ref().filter(|s| !s.is_empty()) {
            plan.choose_sandbox(sandbox);
        }
        let spawned = children.spawn(req, plan)?;
        Ok(spawned.id)
    }

    /// Creates the main agent's record (and announces it) the first time it is needed.
    pub(crate) fn ensure_main(&self) {
        let id = &self.main.id;
        let mut st = self.shared.lock();
        if st.registry.contains(id) {
            return;
        }
        let started = AgentStarted {
            parent_id: None,
            parent_call_id: None,
            depth: 0,
            description: self.main.description.clone(),
            subagent_type: self.main.agent_type.clone(),
            model: self.main.spec.model.clone(),
            provider: self.main.provider_name.clone(),
            background: false,
            call_seq: None,
            fork: None,
            external: None,
        };
        st.registry.insert(AgentRecord::queued(
            id.clone(),
            &started,
            self.main.spec.clone(),
            self.shared.now_ms(),
            self.shared.ctx.root_cancel.child_token(),
            None,
            false,
        ));
        // Emitted under the lock so no event of the main agent can precede it.
        st.emit(id, EventKind::AgentStarted(started));
        let budget = self.main.budget.clone();
        crate::budget::set(&mut st, id, budget, arbor_protocol::BudgetOrigin::Session, Vec::new());
    }

    /// Hands the answer to the waiting agent, which announces it (see `ask_approval`).
    fn resolve_approval(&self, answer: ApprovalAnswer) -> Result<(), SessionError> {
        // A rule would approve later spawns as their Task calls ask, without this edit.
        if answer.edit.is_some() && answer.scope != arbor_protocol::ApprovalScope::Once {
            return Err(SessionError::EditedScope);
        }
        let request_id = answer.request_id.clone();
        self.shared.lock().approvals.resolve(answer).map(|_| ()).ok_or(SessionError::UnknownApproval(request_id))
    }

    /// Takes a rule out of force, announced on the agent whose answer set it:
    /// the next call it covered asks again.
    fn revoke_rule(&self, rule_id: &str) -> Result<(), SessionError> {
        let mut st = self.shared.lock();
        let rule = st.approvals.revoke(rule_id).ok_or_else(|| SessionError::UnknownRule(rule_id.to_string()))?;
        st.emit(&rule.agent_id, EventKind::RuleRevoked(arbor_protocol::RuleRevoked { rule_id: rule.rule_id }));
        Ok(())
    }

    /// Stops the agent and its whole subtree.
    fn cancel(&self, id: &AgentId) -> Result<(), SessionError> {
        if !self.shared.registry().contains(id) {
            return Err(SessionError::UnknownAgent(id.clone()));
        }
        self.shared.cancel_subtree(id, arbor_protocol::StoppedBy::Person);
        Ok(())
    }

    /// The status of an agent, if it exists.
    pub fn status(&self, id: &AgentId) -> Option<AgentStatus> {
        self.shared.registry().get(id).map(|r| r.state.status)
    }

    /// Every agent of the session, parents first.
    pub fn agents(&self) -> Vec<AgentSummary> {
        let reg = self.shared.registry();
        reg.all().into_iter().map(|r| reg.summary(r)).collect()
    }

    /// True when no agent of the session is queued, running or waiting.
    pub fn is_idle(&self) -> bool {
        self.shared.registry().iter().all(|r| r.state.status.is_terminal())
    }

    /// Closes the session: every agent at work ends `interrupted` (nobody stopped
    /// it), a call waiting for a person is withdrawn and left without a result, to
    /// be asked again when the session is continued; later commands are refused.
    pub fn shutdown(&self) {
        // Every agent's token descends from this one.
        self.shared.ctx.root_cancel.cancel();
    }
}
