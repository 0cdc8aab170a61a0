//! The session's registry of agents: each agent as its events left it (the
//! protocol's one derivation, [`StoredAgent::apply`], fed every event as it is
//! emitted), and what only the running session has: how to run it, the handles
//! to stop or steer it, its history.

use crate::approval::ApprovalPolicy;
use crate::mcp::McpServer;
use crate::provider::Provider;
use crate::sandbox::Jail;
use crate::tools::ToolFilter;
use crate::workspace::Workspace;
use arbor_protocol::{AgentFinished, AgentId, AgentStarted, AgentStatus, Message, StoredAgent, Usage};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

/// How to run an agent: fixed when it is created, reused by every run of it.
#[derive(Clone)]
pub(crate) struct AgentSpec {
    pub system: String,
    pub model: String,
    pub provider: Arc<dyn Provider>,
    pub tools: ToolFilter,
    pub max_turns: u32,
    pub policy: Arc<ApprovalPolicy>,
    pub depth: u32,
    /// Waits for a scheduler slot (subagents do; the main agent does not).
    pub scheduled: bool,
    /// The MCP servers whose tools it is offered (before its tool filter).
    pub mcp: Vec<Arc<McpServer>>,
    /// Its working tree: the session's workspace, or a worktree of its own.
    pub workspace: Workspace,
    /// What its commands run in.
    pub sandbox: Arc<Jail>,
    /// Records the file changes made in its working tree (shared by the agents of one tree).
    pub changes: Arc<crate::changes::Tracker>,
    /// Where it works: `Worktree` makes one for it when it first runs.
    pub isolation: arbor_protocol::Isolation,
    /// Its worktree, once made (`workspace`, `sandbox` and `changes` are then its own).
    pub worktree: Option<Arc<crate::worktree::Worktree>>,
    /// Set for a fork of its parent: its requests are its parent's (system prompt and
    /// tools byte for byte), so it is offered the subagent tools even past the depth
    /// limit, where calling them is refused, rather than a different list.
    pub fork: Option<arbor_protocol::Fork>,
    /// Its window (when set rather than known) and compaction threshold: the session's,
    /// or its type's `contextWindow` and `compactAt` over them.
    pub context: crate::ContextConfig,
    /// The hooks it runs: the settings files', and its type's.
    pub hooks: Arc<crate::hooks::HookSet>,
    /// Set when it is an external ACP agent (its type's `acp`): that program runs the loop.
    pub external: Option<Arc<crate::definitions::AcpCommand>>,
    /// A subagent an external agent announced: that agent's program runs it, never Arbor.
    pub hosted: bool,
}

impl std::fmt::Debug for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentSpec")
            .field("model", &self.model)
            .field("provider", &self.provider.name())
            .field("tools", &self.tools)
            .field("max_turns", &self.max_turns)
            .field("depth", &self.depth)
            .field("mcp", &self.mcp.iter().map(|s| s.name()).collect::<Vec<_>>())
            .field("workspace", &self.workspace.root())
            .field("sandbox", self.sandbox.policy())
            .finish_non_exhaustive()
    }
}

/// One call without a result, and how the next run settles it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unanswered {
    pub call_id: String,
    pub name: String,
    pub input: Value,
    pub settle: Settle,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Settle {
    /// It ended and its `tool_output` is stored: that is its result.
    Output { content: String, is_error: bool },
    /// It was waiting for a person: asked again, run if approved.
    Ask,
    /// How it ended is unknown: this text is its result (an error), announced as its output.
    Closed(String),
}

/// A run of an agent about to start: what the door ([`crate::children::run`]) needs,
/// whichever kind of child the agent is.
pub(crate) struct RunStart {
    pub id: AgentId,
    pub spec: Arc<AgentSpec>,
    pub history: Vec<Message>,
    pub inbox: mpsc::UnboundedReceiver<Inbound>,
    pub cancel: CancellationToken,
}

/// What the registry knows of one agent.
/// Text waiting in a running agent's inbox for its next turn. A message someone
/// wrote is announced (`user_message`, with who wrote it) when the agent takes it,
/// so a transcript never shows it above a reply written before it was read; a
/// child's result was announced already, as its `task_notification`.
#[derive(Debug)]
pub(crate) struct Inbound {
    pub text: String,
    pub announce: Option<arbor_protocol::MessageFrom>,
    /// What hooks added to it (UserPromptSubmit, SessionStart): for the model, not announced.
    pub context: Option<String>,
}

#[derive(Debug)]
pub struct AgentRecord {
    /// The agent as its events left it: where it sits, status, turns, usage, result.
    /// Changed only by the events the session emits for it.
    pub state: StoredAgent,
    /// Workspace-relative paths its runs wrote or edited so far (its next
    /// `agent_finished` reports them).
    pub(crate) files: Vec<String>,
    pub(crate) spec: Arc<AgentSpec>,
    pub(crate) cancel: CancellationToken,
    /// Steering messages for the running agent; None when it is not running.
    pub(crate) inbox: Option<mpsc::UnboundedSender<Inbound>>,
    /// The conversation so far, kept between runs so the agent can be continued.
    pub(crate) history: Vec<Message>,
    /// How many of `history`'s messages the journal has been given.
    pub(crate) journaled: usize,
    /// A person asked to compact its conversation: done before its next request.
    pub(crate) compact_asked: bool,
    pub(crate) pending_approvals: u32,
    /// The end of its latest run; None while it runs. Task and TaskOutput wait on it.
    pub(crate) outcome: watch::Sender<Option<AgentFinished>>,
    /// Its result goes to its parent as a notification (background or delegated
    /// from outside) rather than as a Task call's result.
    pub(crate) notifies_parent: bool,
    /// TaskOutput already handed its result over; no notification needed.
    pub(crate) collected: bool,
    /// A line its parent's model reads after its result (what became of its worktree).
    pub(crate) note: Option<String>,
    /// What its subtree has used, in budget terms (kept as events are emitted; wall time apart).
    pub(crate) subtree_use: arbor_protocol::BudgetUse,
    /// Why a budget stopped it, while its run winds down (its run then ends `budget_exhausted`).
    pub(crate) budget_stop: Option<String>,
    /// The limits of its budget already warned about.
    pub(crate) budget_warned: Vec<arbor_protocol::BudgetKind>,
    /// A wrap-up notice its model reads before its next request.
    pub(crate) budget_notice: Option<String>,
    /// Cancelled when its current run ends: what watches the run (its wall-time limit) stops with it.
    pub(crate) run_watch: CancellationToken,
    /// Who stopped its current run, if someone did (the first to ask).
    pub(crate) stopped_by: Option<arbor_protocol::StoppedBy>,
    /// Tool calls its last run left without results (the session closed while they
    /// waited or ran): settled before its next run's first turn.
    pub(crate) unanswered: Vec<Unanswered>,
}

impl AgentRecord {
    /// A new agent as `started` will announce it: queued, nothing run, nothing used.
    pub(crate) fn queued(
        id: AgentId,
        started: &AgentStarted,
        spec: Arc<AgentSpec>,
        started_at: i64,
        cancel: CancellationToken,
        inbox: Option<mpsc::UnboundedSender<Inbound>>,
        notifies_parent: bool,
    ) -> Self {
        Self {
            state: StoredAgent::new(id, started, started_at),
            files: Vec::new(),
            spec,
            cancel,
            inbox,
            history: Vec::new(),
            journaled: 0,
            compact_asked: false,
            pending_approvals: 0,
            outcome: watch::Sender::new(None),
            notifies_parent,
            collected: false,
            note: None,
            subtree_use: arbor_protocol::BudgetUse::default(),
            budget_stop: None,
            budget_warned: Vec::new(),
            budget_notice: None,
            run_watch: CancellationToken::new(),
            stopped_by: None,
            unanswered: Vec::new(),
        }
    }

    pub fn id(&self) -> &AgentId {
        &self.state.id
    }

    /// Where the journal's next delta of a `len`-message history starts, and
    /// records `len` as given: the last message given may have grown since
    /// (user text merges into a trailing user message), so it is sent again.
    pub(crate) fn journal_from(&mut self, len: usize) -> usize {
        let start = self.journaled.saturating_sub(1).min(len);
        self.journaled = len;
        start
    }

    /// The token a new run of this agent's child hangs under: this agent's current
    /// run while it runs, so stopping it stops the child; otherwise `idle`, because
    /// the token of a run that ended (perhaps stopped) would stop the child at birth.
    /// Stopping this agent later still reaches such a child through the registry.
    pub(crate) fn cancel_for_child(&self, idle: &CancellationToken) -> CancellationToken {
        if self.inbox.is_some() { self.cancel.clone() } else { idle.clone() }
    }
}

/// A snapshot of one agent for clients (the CLI, the UI's first paint, tests).
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSummary {
    pub id: AgentId,
    pub parent_id: Option<AgentId>,
    pub depth: u32,
    pub description: String,
    pub subagent_type: Option<String>,
    pub model: String,
    pub provider: String,
    pub background: bool,
    pub status: AgentStatus,
    pub turns: u32,
    pub usage: Usage,
    /// Its own usage plus its descendants'.
    pub subtree_usage: Usage,
    pub files_modified: Vec<String>,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    /// The full last response text, once finished (never cut).
    pub result: Option<String>,
}

#[derive(Debug, Default)]
pub struct Registry {
    agents: HashMap<AgentId, AgentRecord>,
}

impl Registry {
    pub fn insert(&mut self, record: AgentRecord) {
        self.agents.insert(record.state.id.clone(), record);
    }

    pub fn get(&self, id: &AgentId) -> Option<&AgentRecord> {
        self.agents.get(id)
    }

    pub fn get_mut(&mut self, id: &AgentId) -> Option<&mut AgentRecord> {
        self.agents.get_mut(id)
    }

    pub fn contains(&self, id: &AgentId) -> bool {
        self.agents.contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.agents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The agent's ancestors, nearest first.
    pub fn ancestors(&self, id: &AgentId) -> Vec<AgentId> {
        let mut out = Vec::new();
        let mut cur = self.agents.get(id).and_then(|r| r.state.parent_id.clone());
        while let Some(p) = cur {
            // A cycle cannot be built through the public API; guard anyway so a bug cannot hang.
            if out.contains(&p) {
                break;
            }
            cur = self.agents.get(&p).and_then(|r| r.state.parent_id.clone());
            out.push(p);
        }
        out
    }

    /// Children whose results `id` still waits for as notifications.
    pub(crate) fn outstanding(&self, id: &AgentId) -> Vec<AgentId> {
        self.children(id)
            .filter(|r| r.notifies_parent && !r.state.status.is_terminal())
            .map(|r| r.state.id.clone())
            .collect()
    }

    /// The agents `id` started (directly).
    pub fn children<'a>(&'a self, id: &'a AgentId) -> impl Iterator<Item = &'a AgentRecord> {
        self.iter().filter(move |r| r.state.parent_id.as_ref() == Some(id))
    }

    /// Every agent, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &AgentRecord> {
        self.agents.values()
    }

    /// Every agent, parents before children, in order of creation.
    pub fn all(&self) -> Vec<&AgentRecord> {
        let mut v: Vec<&AgentRecord> = self.iter().collect();
        v.sort_by_key(|r| (r.state.depth, r.state.started_at, r.state.id.0.clone()));
        v
    }

    pub fn summary(&self, r: &AgentRecord) -> AgentSummary {
        let a = &r.state;
        AgentSummary {
            id: a.id.clone(),
            parent_id: a.parent_id.clone(),
            depth: a.depth,
            description: a.description.clone(),
            subagent_type: a.subagent_type.clone(),
            model: a.model.clone(),
            provider: a.provider.clone(),
            background: a.background,
            status: a.status,
            turns: a.turns,
            usage: a.usage.clone(),
            subtree_usage: self.subtree_usage(&a.id),
            files_modified: r.files.clone(),
            started_at: a.started_at,
            finished_at: a.ended_at,
            result: a.result.clone(),
        }
    }

    /// Tokens and cost of `id` and all its descendants.
    pub fn subtree_usage(&self, id: &AgentId) -> Usage {
        let mut total = Usage::default();
        for a in self.subtree(id) {
            if let Some(r) = self.agents.get(&a) {
                total.add(&r.state.usage);
            }
        }
        total
    }

    /// Descriptions from the root agent down to `id`.
    pub fn path(&self, id: &AgentId) -> Vec<String> {
        let mut path: Vec<String> = self
            .ancestors(id)
            .iter()
            .rev()
            .chain(std::iter::once(id))
            .filter_map(|a| self.agents.get(a).map(|r| r.state.description.clone()))
            .collect();
        if path.is_empty() {
            path.push(id.to_string());
        }
        path
    }

    /// `id` and all its descendants.
    pub fn subtree(&self, id: &AgentId) -> HashSet<AgentId> {
        let mut out = HashSet::from([id.clone()]);
        let mut grew = true;
        while grew {
            grew = false;
            for r in self.agents.values() {
                if let Some(p) = &r.state.parent_id
                    && out.contains(p)
                    && out.insert(r.state.id.clone())
                {
                    grew = true;
                }
            }
        }
        out
    }
}
