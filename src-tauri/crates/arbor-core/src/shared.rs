//! What every agent of a session shares: an immutable [`Context`] (the fixed
//! config, the scheduler's slots, the stop signal) and one [`State`] behind one
//! lock (the registry, the approvals, the event numbering, the caches). Every
//! event is emitted under that lock, numbered, applied to its agent's record and
//! sent in one step, so the registry never disagrees with the stream and no
//! two events of one decision can be interleaved with another's.

use crate::approval::Approvals;
use crate::clock::Clock;
use crate::config::{Limits, Providers};
use crate::definitions::AgentDefinition;
use crate::events::EventSink;
use crate::journal::Journal;
use crate::mcp::McpCatalog;
use crate::provider::{RetryPolicy, ToolSpec};
use crate::registry::Registry;
use crate::tools::ToolRegistry;
use crate::workspace::Workspace;
use arbor_protocol::{AgentId, AgentStatus, EventKind, Message, SessionId, StatusChanged};
use parking_lot::{MappedMutexGuard, Mutex, MutexGuard};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// Fixed when the session starts.
pub(crate) struct Context {
    pub(crate) id: SessionId,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) workspace: Workspace,
    pub(crate) retry: RetryPolicy,
    pub(crate) max_tokens: u32,
    pub(crate) context: crate::config::ContextConfig,
    pub(crate) limits: Limits,
    pub(crate) providers: Providers,
    /// Loaded subagent types by name; a person's reload replaces them (`Session::set_agent_types`).
    pub(crate) agent_types: parking_lot::RwLock<Arc<BTreeMap<String, AgentDefinition>>>,
    /// The workspace's project instructions as the session started ([`crate::prompt::project_instructions`]).
    pub(crate) instructions: String,
    /// `YYYY-MM-DD` at the session's start, for system prompts.
    pub(crate) today: String,
    /// The Task tool's description: it lists the loaded types, so it is built once.
    pub(crate) task_description: String,
    pub(crate) mcp: Arc<McpCatalog>,
    pub(crate) journal: Option<Arc<dyn Journal>>,
    /// One permit per subagent that may run at once.
    pub(crate) slots: Arc<Semaphore>,
    pub(crate) root_cancel: CancellationToken,
    /// The settings files' hooks, which every agent runs.
    pub(crate) hooks: Arc<crate::hooks::HookSet>,
    /// Where agents' transcripts are written for their hooks.
    pub(crate) hook_files: crate::hooks::TranscriptDir,
    /// The environment hooks run with, before their own variables.
    pub(crate) hook_env: Vec<(String, String)>,
    /// The settings files' permission rules, for every agent.
    pub(crate) permissions: crate::permissions::PermissionRules,
    /// The person's latest prompt to the main agent, as hooks name it (`prompt_id`).
    pub(crate) prompt_id: parking_lot::RwLock<String>,
    /// The runtime agents run on: commands may arrive from any thread.
    pub(crate) runtime: tokio::runtime::Handle,
    /// The one door every run of every agent starts through ([`crate::children::run`],
    /// installed by the session): what delivers a prompt or a result need not know
    /// the kinds of child.
    pub(crate) door: Door,
}

/// Starts a run of an agent whose record is in the registry.
pub(crate) type Door = fn(&Arc<Shared>, crate::registry::RunStart);

impl Context {
    /// The subagent types as they are now (a reload may replace them while a spawn reads these).
    pub(crate) fn agent_types(&self) -> Arc<BTreeMap<String, AgentDefinition>> {
        self.agent_types.read().clone()
    }
}

/// Everything that changes, behind the one lock.
pub(crate) struct State {
    pub(crate) registry: Registry,
    pub(crate) approvals: Approvals,
    /// Subagents the models have started so far (for `max_subagents`).
    pub(crate) spawned: u32,
    /// When the models' spawns of the last minute happened (the spawn-rate guard).
    pub(crate) spawn_times: std::collections::VecDeque<i64>,
    /// The seq of each subagent tool call, by (agent, call id): its child's place among its siblings.
    events: EventSink,
    /// The tool specs offered so far, by the names of the tools in them (see [`Shared::tool_specs`]).
    tool_specs: Vec<Arc<[ToolSpec]>>,
    rng: fastrand::Rng,
    /// For approval request ids: asking never shifts the agent ids a seed predicts.
    /// Seeded afresh by each run of the session (never from its id alone): a
    /// continued session asks again a call its last run asked, and the new
    /// request must never take the old one's id, even within the same millisecond.
    approval_rng: fastrand::Rng,
}

pub(crate) struct Shared {
    pub(crate) ctx: Context,
    state: Mutex<State>,
}

/// The state, locked: read and change it, and emit events in the same step.
pub(crate) struct Locked<'a> {
    state: MutexGuard<'a, State>,
}

impl std::ops::Deref for Locked<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        &self.state
    }
}

impl std::ops::DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.state
    }
}

impl Locked<'_> {
    /// Numbers the event, applies it to its agent's record, and sends it on; returns its seq.
    pub(crate) fn emit(&mut self, agent_id: &AgentId, kind: EventKind) -> u64 {
        let state = &mut *self.state;
        let event = state.events.stamp(agent_id, kind);
        let seq = event.seq;
        if let Some(r) = state.registry.get_mut(agent_id) {
            r.state.apply(&event);
        }
        state.registry.account(&event);
        state.events.send(event);
        seq
    }

    /// Random bits for an approval request's UUID.
    pub(crate) fn random_bytes(&mut self) -> [u8; 10] {
        let rng = &mut self.state.approval_rng;
        std::array::from_fn(|_| rng.u8(..))
    }

    /// A fresh agent id, unique in this session.
    pub(crate) fn new_agent_id(&mut self) -> AgentId {
        loop {
            let id = AgentId::from_suffix(self.state.rng.u32(..));
            if !self.state.registry.contains(&id) {
                return id;
            }
        }
    }
}

impl Shared {
    pub(crate) fn new(ctx: Context, events: EventSink, rng: fastrand::Rng) -> Self {
        let approval_rng = fastrand::Rng::new();
        let state = State {
            registry: Registry::default(),
            approvals: Approvals::default(),
            spawned: 0,
            spawn_times: std::collections::VecDeque::new(),
            events,
            tool_specs: Vec::new(),
            rng,
            approval_rng,
        };
        Self { ctx, state: Mutex::new(state) }
    }

    pub(crate) fn lock(&self) -> Locked<'_> {
        Locked { state: self.state.lock() }
    }

    /// The registry alone, for reading or changing a record's handles (never its state: events do that).
    pub(crate) fn registry(&self) -> MappedMutexGuard<'_, Registry> {
        MutexGuard::map(self.state.lock(), |s| &mut s.registry)
    }

    pub(crate) fn emit(&self, agent_id: &AgentId, kind: EventKind) -> u64 {
        self.lock().emit(agent_id, kind)
    }

    pub(crate) fn now_ms(&self) -> i64 {
        self.ctx.clock.now_ms()
    }

    pub(crate) fn jitter(&self) -> f64 {
        self.state.lock().rng.f64()
    }

    /// Emits a status change; repeats are not emitted.
    pub(crate) fn set_status(&self, id: &AgentId, status: AgentStatus) {
        let mut st = self.lock();
        if st.registry.get(id).is_some_and(|r| r.state.status != status) {
            st.emit(id, EventKind::AgentStatus(StatusChanged { status }));
        }
    }

    /// Notes the files a call wrote, for the agent's next `agent_finished`.
    pub(crate) fn add_files(&self, id: &AgentId, files: &[PathBuf]) {
        if files.is_empty() {
            return;
        }
        let mut reg = self.registry();
        if let Some(r) = reg.get_mut(id) {
            for f in files {
                let rel = self.ctx.workspace.display(f);
                if !r.files.contains(&rel) {
                    r.files.push(rel);
                }
            }
        }
    }

    /// Hands the agent's history to the journal: the messages since its last
    /// save, plus the last one saved, which may have grown since.
    pub(crate) fn save_history(&self, id: &AgentId, history: &[Message]) {
        let Some(journal) = &self.ctx.journal else { return };
        let start = {
            let mut reg = self.registry();
            let Some(r) = reg.get_mut(id) else { return };
            r.journal_from(history.len())
        };
        journal.history(&self.ctx.id, id, start, &history[start..]);
    }

    /// Hands the agent's whole history to the journal, replacing what it held:
    /// a compaction changed messages already saved.
    pub(crate) fn rewrite_history(&self, id: &AgentId, history: &[Message]) {
        if let Some(r) = self.registry().get_mut(id) {
            r.journaled = 0;
        }
        self.save_history(id, history);
    }

    /// The specs of `tools` as the model sees them, built once per set of tools and
    /// shared: every subagent of a fan-out would otherwise rebuild the same schemas.
    /// Keyed by the tools' names, since within a session a name always stands for
    /// the same tool (the built-ins; the subagent tools, whose description is the
    /// session's; MCP tools, whose server names the catalog keeps unique); only the
    /// agent a tool is bound to differs. Built outside the lock.
    pub(crate) fn tool_specs(&self, tools: &ToolRegistry) -> Arc<[ToolSpec]> {
        let known = |cache: &[Arc<[ToolSpec]>]| {
            cache.iter().find(|s| s.iter().map(|t| t.name.as_str()).eq(tools.names())).cloned()
        };
        if let Some(specs) = known(&self.state.lock().tool_specs) {
            return specs;
        }
        let specs: Arc<[ToolSpec]> = tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name().to_string(),
                description: t.description().to_string(),
                input_schema: t.input_schema(),
            })
            .collect();
        let mut state = self.state.lock();
        match known(&state.tool_specs) {
            Some(theirs) => theirs,
            None => {
                state.tool_specs.push(specs.clone());
                specs
            }
        }
    }

    /// Stops an agent and its whole subtree; each agent still at work keeps who
    /// stopped it first (what its `agent_finished` says).
    pub(crate) fn cancel_subtree(&self, id: &AgentId, by: arbor_protocol::StoppedBy) {
        let mut reg = self.registry();
        for a in reg.subtree(id) {
            if let Some(r) = reg.get_mut(&a) {
                if !r.state.status.is_terminal() && r.stopped_by.is_none() {
                    r.stopped_by = Some(by);
                }
                r.cancel.cancel();
            }
        }
    }

    /// The session is closing (the window closed, the process was told to end):
    /// what stops now is interrupted, to be continued, not stopped by anyone.
    pub(crate) fn closing(&self) -> bool {
        self.ctx.root_cancel.is_cancelled()
    }

    /// Whether what stops `agent` now is the session's close, not a person: its run
    /// ends interrupted, and a call it waited on stays open for the next run.
    pub(crate) fn interrupting(&self, agent: &AgentId) -> bool {
        self.closing()
            && self.registry().get(agent).and_then(|r| r.stopped_by) != Some(arbor_protocol::StoppedBy::Person)
    }
}
