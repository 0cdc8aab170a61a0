//! Subagents: how a child is made from its parent and its type, the limits on
//! making them, and how a child's end reads to the model that waits for it
//! (design.md §3.2–3.3). The tools models use to manage them are in [`tools`].

mod tools;

use crate::agent::lifecycle;
use crate::definitions::{AgentDefinition, DefinitionSource, GENERAL_PURPOSE};
use crate::prompt;
use crate::registry::{AgentRecord, AgentSpec};
use crate::shared::{Context, Shared};
use arbor_protocol::{
    AgentFinished, AgentId, AgentStarted, AgentStatus, EventKind, Message, MessageFrom, SpawnEdit, SpawnPlan,
    StatusChanged, UserBlock, UserMessage,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use thiserror::Error;
use tokio::sync::{mpsc, watch};

pub(crate) use tools::add_tools;

/// What a model that calls Task at the depth limit is told.
pub(crate) const DEPTH_LIMIT_MESSAGE: &str = "subagent depth limit reached: do this subtask yourself";

pub(crate) const TASK: &str = arbor_protocol::TASK_TOOL;
const TASK_OUTPUT: &str = "TaskOutput";
pub(crate) const TASK_STOP: &str = "TaskStop";
const LIST_AGENTS: &str = "ListAgents";

/// The subagent tools whose approval a person may choose (the others only read),
/// with their class.
pub fn choosable_tools() -> [(&'static str, crate::tools::ToolClass); 2] {
    [(TASK, crate::tools::ToolClass::Delegation), (TASK_STOP, crate::tools::ToolClass::Delegation)]
}

/// The tools that exist only below the depth limit.
pub(crate) fn is_subagent_tool(name: &str) -> bool {
    matches!(name, TASK | TASK_OUTPUT | TASK_STOP | LIST_AGENTS)
}

/// Whether a call is a Task call that forks its caller (`fork: true`).
pub(crate) fn forks(name: &str, input: &serde_json::Value) -> bool {
    name == TASK && matches!(input.get("fork"), Some(serde_json::Value::Bool(true)))
}

/// Why a model's Task call is refused before anyone is asked: a fork past the depth
/// limit keeps Task in its list (its requests are its parent's) but may not use it.
pub(crate) fn refused_unasked(shared: &Shared, agent: &AgentId, name: &str) -> Option<String> {
    if name != TASK {
        return None;
    }
    let depth = shared.registry().get(agent).map(|r| r.state.depth)?;
    (depth + 1 > shared.ctx.limits.max_depth).then(|| DEPTH_LIMIT_MESSAGE.to_string())
}

/// Calls that may wait for other agents to finish.
pub(crate) fn waits_on_agents(name: &str) -> bool {
    matches!(name, TASK | TASK_OUTPUT)
}

/// Why no child was started. The text is what the calling model reads.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SpawnError {
    #[error("prompt is missing or blank: say what the subagent should do")]
    EmptyPrompt,
    #[error("Unknown agent type \"{name}\". Available: {available}")]
    UnknownType { name: String, available: String },
    #[error("{DEPTH_LIMIT_MESSAGE}")]
    DepthLimit,
    #[error(
        "subagent limit reached: this session has started {max} subagents, the most it may; do this subtask yourself"
    )]
    SubagentLimit { max: u32 },
    #[error("agent type \"{agent_type}\" runs on provider \"{provider}\", which is not configured")]
    UnknownProvider { agent_type: String, provider: String },
    #[error("agent type \"{0}\" runs on another provider than its parent but names no model: add `model:` to its file")]
    NoModel(String),
    #[error("no agent {0} in this session")]
    UnknownParent(AgentId),
    #[error(
        "a fork is a copy of you, on your model and with your tools: leave {0} out, or start a fresh subagent without fork"
    )]
    ForkChanges(&'static str),
    #[error("the session was shut down")]
    Closed,
    #[error("agent type \"{agent_type}\" cannot start: {why}")]
    External { agent_type: String, why: String },
    #[error("{0}")]
    Worktree(#[from] crate::worktree::WorktreeError),
    #[error("no subagent started: {0}. Do this subtask yourself, or give your answer with what you have")]
    Budget(String),
    #[error(
        "no subagent started: the spawn-rate guard allows {max} new subagents a minute in this session, and that \
         many started in the last minute. Wait for their results (TaskOutput) or do this subtask yourself"
    )]
    SpawnRate { max: u32 },
}

/// A child to start.
pub(crate) struct SpawnRequest {
    pub parent: AgentId,
    /// The Task call that asks for it; None when the person delegates.
    pub parent_call_id: Option<String>,
    pub prompt: String,
    pub description: Option<String>,
    pub subagent_type: Option<String>,
    pub model: Option<String>,
    pub max_turns: Option<u32>,
    /// Its result goes to the parent as a notification, not as the call's result.
    pub background: bool,
    /// The person, not a model, asks: the limits on depth and count do not apply.
    pub by_user: bool,
    /// Where it works; None: as its type says.
    pub isolation: Option<arbor_protocol::Isolation>,
    /// The budget the Task call or the person gives it (within its type's, for a model).
    pub budget: Option<arbor_protocol::Budget>,
    /// A fork of its parent: the parent's conversation so far, which it starts from.
    pub fork: Option<Arc<Vec<Message>>>,
}

pub(crate) struct Spawned {
    pub id: AgentId,
    pub description: String,
    pub subagent_type: String,
    pub outcome: watch::Receiver<Option<AgentFinished>>,
}

/// A child as it would start: its type found, its spec built, nothing registered yet.
pub(crate) struct Plan {
    subagent_type: String,
    spec: AgentSpec,
    provider_name: String,
    depth: u32,
    /// Its budget before it is carved from its ancestors' remainders, and where it came from.
    budget: (arbor_protocol::Budget, arbor_protocol::BudgetOrigin),
}

/// Validates a request and works out the child it would start (what a spawn
/// card shows). Nothing is registered or counted.
pub(crate) fn plan(shared: &Arc<Shared>, req: &SpawnRequest) -> Result<Plan, SpawnError> {
    let ctx = &shared.ctx;
    if ctx.root_cancel.is_cancelled() {
        return Err(SpawnError::Closed);
    }
    if req.prompt.trim().is_empty() {
        return Err(SpawnError::EmptyPrompt);
    }
    if let Some(conversation) = &req.fork {
        return plan_fork(shared, req, conversation);
    }
    let types = ctx.agent_types();
    let def = match req.subagent_type.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(name) => match types.get(name) {
            Some(d) => Some(d),
            None if name == GENERAL_PURPOSE => None,
            None => {
                return Err(SpawnError::UnknownType {
                    name: name.to_string(),
                    available: type_names(&types).join(", "),
                });
            }
        },
    };
    let (parent_spec, parent_provider, depth) = {
        let reg = shared.registry();
        let parent = reg.get(&req.parent).ok_or_else(|| SpawnError::UnknownParent(req.parent.clone()))?;
        (parent.spec.clone(), parent.state.provider.clone(), parent.state.depth + 1)
    };
    if !req.by_user && depth > ctx.limits.max_depth {
        return Err(SpawnError::DepthLimit);
    }
    // Built outside the lock: a type's system prompt reads the workspace's instructions from disk.
    let (spec, provider_name) = child_spec(ctx, &parent_spec, &parent_provider, def, req, depth)?;
    if spec.isolation == arbor_protocol::Isolation::Worktree
        && crate::worktree::repository_of(spec.workspace.root()).is_none()
    {
        let root = spec.workspace.root().display().to_string();
        return Err(crate::worktree::WorktreeError::NotARepository(root).into());
    }
    let subagent_type = def.map_or(GENERAL_PURPOSE, |d| d.name.as_str()).to_string();
    let budget =
        crate::budget::wanted(&ctx.limits.subagent_budget, def.map(|d| &d.budget), req.budget.as_ref(), req.by_user);
    Ok(Plan { subagent_type, spec, provider_name, depth, budget })
}

/// A fork of the caller: its spec is its parent's, byte for byte where the request
/// is concerned (system prompt, tools, model), so its first request reads the
/// parent's whole conversation from the provider's cache.
fn plan_fork(shared: &Arc<Shared>, req: &SpawnRequest, conversation: &[Message]) -> Result<Plan, SpawnError> {
    let ctx = &shared.ctx;
    let (parent_spec, provider_name, parent_type, depth) = {
        let reg = shared.registry();
        let parent = reg.get(&req.parent).ok_or_else(|| SpawnError::UnknownParent(req.parent.clone()))?;
        let kind = parent.state.subagent_type.clone().unwrap_or_else(|| GENERAL_PURPOSE.to_string());
        (parent.spec.clone(), parent.state.provider.clone(), kind, parent.state.depth + 1)
    };
    if req.subagent_type.as_deref().map(str::trim).is_some_and(|t| !t.is_empty() && t != parent_type) {
        return Err(SpawnError::ForkChanges("subagent_type"));
    }
    let model = req.model.as_deref().and_then(|m| resolve_model(m, parent_spec.provider.name()));
    if model.is_some_and(|m| m != parent_spec.model) {
        return Err(SpawnError::ForkChanges("model"));
    }
    if !req.by_user && depth > ctx.limits.max_depth {
        return Err(SpawnError::DepthLimit);
    }
    let max_turns = req.max_turns.unwrap_or(ctx.limits.subagent_max_turns).clamp(1, ctx.limits.max_turns_cap.max(1));
    let fork = arbor_protocol::Fork { messages: u32::try_from(conversation.len()).unwrap_or(u32::MAX) };
    let mut spec = fork_spec(&parent_spec, depth, max_turns, fork);
    spec.isolation = req.isolation.unwrap_or_default();
    if spec.isolation == arbor_protocol::Isolation::Worktree
        && crate::worktree::repository_of(spec.workspace.root()).is_none()
    {
        let root = spec.workspace.root().display().to_string();
        return Err(crate::worktree::WorktreeError::NotARepository(root).into());
    }
    let budget = crate::budget::wanted(&ctx.limits.subagent_budget, None, req.budget.as_ref(), req.by_user);
    Ok(Plan { subagent_type: parent_type, spec, provider_name, depth, budget })
}

/// A child that runs as `parent` does, one level down, in its parent's tree.
pub(crate) fn as_parent(parent: &AgentSpec, depth: u32, max_turns: u32) -> AgentSpec {
    AgentSpec {
        depth,
        max_turns,
        scheduled: true,
        isolation: arbor_protocol::Isolation::Shared,
        worktree: None,
        fork: None,
        external: None,
        ..parent.clone()
    }
}

/// How a fork of `parent` runs: as its parent does, marked a fork.
pub(crate) fn fork_spec(parent: &AgentSpec, depth: u32, max_turns: u32, fork: arbor_protocol::Fork) -> AgentSpec {
    AgentSpec { fork: Some(fork), ..as_parent(parent, depth, max_turns) }
}

impl Plan {
    /// Every tool the child would be offered: its built-ins and subagent tools,
    /// and its MCP servers' (a server not yet listed stands as `mcp__<server>`).
    fn tools(&self, shared: &Arc<Shared>, parent: &AgentId) -> Vec<String> {
        let mut names: Vec<String> = shared.tools_for(parent, &self.spec).names().map(str::to_string).collect();
        for server in self.spec.mcp.iter() {
            let info = server.info();
            let listed: Vec<String> = if info.tools.is_empty() {
                vec![crate::mcp::server_entry(server.name())]
            } else {
                info.tools.into_iter().map(|t| t.name).collect()
            };
            names.extend(listed.into_iter().filter(|n| self.spec.tools.admits(n)));
        }
        names
    }

    /// What a spawn card shows of this child.
    pub(crate) fn summary(&self, shared: &Arc<Shared>, req: &SpawnRequest) -> SpawnPlan {
        SpawnPlan {
            subagent_type: self.subagent_type.clone(),
            description: describe_or(req.description.as_deref(), &req.prompt),
            model: self.spec.model.clone(),
            provider: self.provider_name.clone(),
            tools: self.tools(shared, &req.parent),
            max_turns: self.spec.max_turns,
            background: req.background,
            prompt: req.prompt.clone(),
            fork: self.spec.fork,
        }
    }

    /// Makes the child what a person edited: its prompt, model, turn limit, and
    /// a narrower set of tools (never one it would not have had).
    pub(crate) fn apply(&mut self, shared: &Arc<Shared>, req: &mut SpawnRequest, edit: &SpawnEdit) {
        if let Some(prompt) = edit.prompt.as_ref().filter(|p| !p.trim().is_empty()) {
            req.prompt = prompt.clone();
        }
        if let Some(model) = edit.model.as_deref().and_then(|m| resolve_model(m, self.spec.provider.name())) {
            self.spec.model = model;
        }
        if let Some(n) = edit.max_turns {
            self.spec.max_turns = n.clamp(1, shared.ctx.limits.max_turns_cap.max(1));
        }
        if let Some(wanted) = &edit.tools {
            let (kept, dropped): (Vec<String>, Vec<String>) =
                self.tools(shared, &req.parent).into_iter().partition(|t| wanted.contains(t));
            self.spec.tools.allow = Some(kept);
            // Denied too: a deny list is what every descendant inherits, whatever its type's
            // own tools, so a withheld tool cannot come back one level down.
            for t in dropped {
                if !self.spec.tools.deny.contains(&t) {
                    self.spec.tools.deny.push(t);
                }
            }
        }
    }
}

impl Plan {
    /// A stricter approval mode for the child; looser ones change nothing
    /// (a person's delegation may narrow, never widen).
    pub(crate) fn tighten(&mut self, mode: arbor_protocol::PermissionMode) {
        self.spec.policy = Arc::new(self.spec.policy.for_child(mode, false));
    }

    /// The sandbox a person chose for the child (it may be looser than its parent's: they decide).
    pub(crate) fn choose_sandbox(&mut self, asked: &arbor_protocol::SandboxRequest) {
        let jail = &self.spec.sandbox;
        let policy = jail.policy().chosen(asked, self.spec.workspace.root(), jail.machine().home());
        self.spec.sandbox = Arc::new(jail.child(policy, self.spec.workspace.root()));
    }
}

/// Registers and starts the child `plan` describes.
pub(crate) fn start(shared: &Arc<Shared>, req: SpawnRequest, plan: Plan) -> Result<Spawned, SpawnError> {
    let ctx = &shared.ctx;
    let Plan { subagent_type, spec, provider_name, depth, budget: (wanted, origin) } = plan;
    let mut st = shared.lock();
    if ctx.root_cancel.is_cancelled() {
        return Err(SpawnError::Closed);
    }
    let parent = st.registry.get(&req.parent).ok_or_else(|| SpawnError::UnknownParent(req.parent.clone()))?;
    // A model's parent is running (it is calling Task); a person may delegate under an idle one.
    let parent_cancel = parent.cancel_for_child(&ctx.root_cancel);
    if !req.by_user && st.spawned >= ctx.limits.max_subagents {
        return Err(SpawnError::SubagentLimit { max: ctx.limits.max_subagents });
    }
    let rate = (!req.by_user && ctx.limits.max_spawns_per_minute > 0).then_some(ctx.limits.max_spawns_per_minute);
    let (budget, carved) = crate::budget::before_spawn(&mut st, &req.parent, wanted, shared.now_ms(), rate)?;
    if !req.by_user {
        st.spawned += 1;
    }
    let id = st.new_agent_id();
    let description = describe_or(req.description.as_deref(), &req.prompt);
    let started = AgentStarted {
        parent_id: Some(req.parent.clone()),
        parent_call_id: req.parent_call_id.clone(),
        depth,
        description: description.clone(),
        subagent_type: Some(subagent_type.clone()),
        model: spec.model.clone(),
        provider: provider_name,
        background: req.background,
        call_seq: req.parent_call_id.as_ref().and_then(|c| st.call_seqs.remove(&(req.parent.clone(), c.clone()))),
        fork: spec.fork,
    };
    let (inbox_tx, inbox) = mpsc::unbounded_channel();
    let cancel = parent_cancel.child_token();
    let spec = Arc::new(spec);
    let record = AgentRecord::queued(
        id.clone(),
        &started,
        spec.clone(),
        shared.now_ms(),
        cancel.clone(),
        Some(inbox_tx),
        req.background,
    );
    let outcome_rx = record.outcome.subscribe();
    st.registry.insert(record);
    // Under the lock: nothing of this agent can be emitted before it is announced.
    st.emit(&id, EventKind::AgentStarted(started));
    crate::budget::set(&mut st, &id, budget, origin, carved);
    st.emit(&id, EventKind::AgentStatus(StatusChanged { status: AgentStatus::Queued }));
    let from = if req.by_user { MessageFrom::Person } else { MessageFrom::Parent };
    st.emit(&id, EventKind::UserMessage(UserMessage::new(req.prompt.clone(), from)));
    drop(st);
    // A fork's task follows its parent's conversation (in the parent's last user turn, as
    // the parent's own next message would be), so everything before it is the parent's prefix.
    let mut history = req.fork.map(|c| c.to_vec()).unwrap_or_default();
    crate::agent::append_user(&mut history, vec![UserBlock::Text { text: req.prompt }]);
    lifecycle::launch(shared, id.clone(), spec, history, inbox, cancel);
    Ok(Spawned { id, description, subagent_type, outcome: outcome_rx })
}

/// The caller's label, or one made from the prompt's first words.
fn describe_or(description: Option<&str>, prompt: &str) -> String {
    match description.map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) => d.to_string(),
        None => describe(prompt),
    }
}

/// How the child runs: its type's prompt, model, provider, tools and policy,
/// or its parent's for general-purpose. Returns the provider's name too.
pub(crate) fn child_spec(
    ctx: &Context,
    parent: &AgentSpec,
    parent_provider: &str,
    def: Option<&AgentDefinition>,
    req: &SpawnRequest,
    depth: u32,
) -> Result<(AgentSpec, String), SpawnError> {
    let type_name = def.map_or(GENERAL_PURPOSE, |d| d.name.as_str());
    let external = match def.and_then(|d| d.acp.as_ref()) {
        Some(acp) => match &acp.blocked {
            Some(why) => return Err(SpawnError::External { agent_type: type_name.to_string(), why: why.clone() }),
            None => Some(Arc::new(acp.clone())),
        },
        None => None,
    };
    let (provider_name, provider) = match def.and_then(|d| d.provider.as_deref()) {
        // The external program runs its own model: the parent's provider stays unused.
        _ if external.is_some() => (arbor_protocol::ACP_PROVIDER.to_string(), parent.provider.clone()),
        Some(p) if p != parent_provider => {
            let provider = ctx.providers.get(p).cloned().ok_or_else(|| SpawnError::UnknownProvider {
                agent_type: type_name.to_string(),
                provider: p.to_string(),
            })?;
            (p.to_string(), provider)
        }
        _ => (parent_provider.to_string(), parent.provider.clone()),
    };
    let asked = req.model.clone().or_else(|| def.and_then(|d| d.model.clone()));
    let model = match asked.and_then(|m| resolve_model(&m, provider.name())) {
        _ if let Some(acp) = &external => acp.display(),
        Some(m) => m,
        None if provider_name == parent_provider => parent.model.clone(),
        None => return Err(SpawnError::NoModel(type_name.to_string())),
    };
    let max_turns = req
        .max_turns
        .or_else(|| def.and_then(|d| d.max_turns))
        .unwrap_or(ctx.limits.subagent_max_turns)
        .clamp(1, ctx.limits.max_turns_cap.max(1));
    let (system, tools, policy, mcp) = match def {
        None => (parent.system.clone(), parent.tools.clone(), parent.policy.clone(), parent.mcp.clone()),
        Some(d) => {
            let system = prompt::main_system_prompt(
                &d.system_prompt,
                ctx.workspace.root(),
                &ctx.today,
                ctx.project_instructions,
            );
            // What the parent may never call, the child may not either.
            let mut tools = d.tools.clone();
            for t in &parent.tools.deny {
                if !tools.deny.contains(t) {
                    tools.deny.push(t.clone());
                }
            }
            let trusted = d.source == Some(DefinitionSource::User);
            let mut policy = parent.policy.for_child(d.permission_mode, trusted);
            if d.approve_spawn {
                policy.ask_before_spawning();
            }
            let policy = Arc::new(policy);
            (system, tools, policy, ctx.mcp.servers_for(Some(&d.name)))
        }
    };
    let sandbox = match def.and_then(|d| d.sandbox.as_ref().map(|s| (s, d.source == Some(DefinitionSource::User)))) {
        None => parent.sandbox.clone(),
        Some((asked, trusted)) => {
            let (now, root, home) = (parent.sandbox.policy(), parent.workspace.root(), parent.sandbox.machine().home());
            // The user's own agent file is the user's choice; a workspace's file may only tighten.
            let policy = if trusted { now.chosen(asked, root, home) } else { now.tightened(asked, root, home) };
            Arc::new(parent.sandbox.child(policy, root))
        }
    };
    let spec = AgentSpec {
        system,
        model,
        provider,
        tools,
        max_turns,
        policy,
        depth,
        scheduled: true,
        mcp,
        workspace: parent.workspace.clone(),
        sandbox,
        changes: parent.changes.clone(),
        isolation: req.isolation.or(def.map(|d| d.isolation)).unwrap_or_default(),
        worktree: None,
        fork: None,
        context: def.map_or_else(|| parent.context.clone(), |d| d.context.over(ctx.context.clone())),
        // A type's hooks are its own agents' (as in Claude Code); a general-purpose child runs the settings'.
        hooks: def.map_or_else(|| ctx.hooks.clone(), |d| Arc::new(ctx.hooks.with(&d.hooks))),
        external,
    };
    Ok((spec, provider_name))
}

/// Claude Code's model aliases on Anthropic; elsewhere an alias means the parent's model.
fn resolve_model(model: &str, provider_kind: &str) -> Option<String> {
    let model = model.trim();
    let alias = match model {
        "" | "inherit" => return None,
        "sonnet" => "claude-sonnet-4-5",
        "opus" => "claude-opus-4-1",
        "haiku" => "claude-haiku-4-5",
        other => return Some(other.to_string()),
    };
    (provider_kind == "anthropic").then(|| alias.to_string())
}

/// The types a Task call may name, general-purpose included.
pub(crate) fn type_names(types: &BTreeMap<String, AgentDefinition>) -> Vec<&str> {
    let mut names: Vec<&str> = types.keys().map(String::as_str).collect();
    if !types.contains_key(GENERAL_PURPOSE) {
        names.push(GENERAL_PURPOSE);
    }
    names.sort_unstable();
    names
}

/// A tree label from the prompt's first words, when the caller gave none.
pub fn describe(prompt: &str) -> String {
    let words: Vec<&str> = prompt.split_whitespace().take(5).collect();
    let mut label = words.join(" ");
    if label.chars().count() > 48 {
        label = label.chars().take(47).collect::<String>() + "…";
    }
    label
}

/// Cuts a result for the parent's model; the full text stays in the registry and the store.
fn cap_result(text: &str, max_chars: usize) -> String {
    let total = text.chars().count();
    if total <= max_chars {
        return text.to_string();
    }
    let kept: String = text.chars().take(max_chars).collect();
    format!(
        "{kept}\n\n[Result truncated: the first {max_chars} of {total} characters are shown; the full text is kept in the transcript.]"
    )
}

/// How a child's end reads to the model that waits for it: its last text
/// verbatim, or `Subagent error: …` with the error flag.
pub(crate) fn result_for_model(id: &AgentId, finished: &AgentFinished, max_chars: usize) -> (String, bool) {
    let text = || {
        if finished.result.trim().is_empty() {
            "(no result text)".to_string()
        } else {
            cap_result(&finished.result, max_chars)
        }
    };
    match finished.status {
        AgentStatus::Completed => (text(), false),
        AgentStatus::MaxTurns => (
            format!(
                "{}\n\n[Subagent {id} stopped at its turn limit ({} turns); its work may be unfinished.]",
                text(),
                finished.turns
            ),
            false,
        ),
        AgentStatus::Truncated => (
            format!(
                "{}\n\n[Subagent {id}'s answer was cut off at the model's output limit: it is incomplete.]",
                text()
            ),
            false,
        ),
        AgentStatus::Cancelled => {
            let by = match finished.stopped_by {
                Some(arbor_protocol::StoppedBy::Person) => "stopped by the user",
                Some(arbor_protocol::StoppedBy::Parent) => "stopped with TaskStop",
                Some(arbor_protocol::StoppedBy::ParentEnded) => "stopped because your run ended",
                Some(arbor_protocol::StoppedBy::Hook) => "stopped by a hook (\"continue\": false)",
                None => "stopped",
            };
            (format!("Subagent error: {by}"), true)
        }
        AgentStatus::BudgetExhausted => {
            let why = finished.error.as_deref().unwrap_or("its budget ran out");
            let mut text = format!("Subagent error: stopped because {why} (status budget_exhausted).");
            if !finished.result.trim().is_empty() {
                text.push_str(&format!(
                    " Its last text before it stopped:\n\n{}",
                    cap_result(&finished.result, max_chars)
                ));
            }
            (text, true)
        }
        status => {
            let why = finished.error.as_deref().unwrap_or("it ended without a result");
            (format!("Subagent error: {why} (status {})", status.as_str()), true)
        }
    }
}

/// The notice a parent's next model request carries when a background child ends.
pub(crate) fn notification_text(
    id: &AgentId,
    description: &str,
    finished: &AgentFinished,
    max_chars: usize,
    note: Option<&str>,
) -> String {
    let (mut result, _) = result_for_model(id, finished, max_chars);
    if let Some(note) = note {
        result = format!("{result}\n\n{note}");
    }
    format!(
        "<task-notification>\n<task-id>{id}</task-id>\n<description>{description}</description>\n<status>{}</status>\n<result>\n{result}\n</result>\n</task-notification>\nA subagent you started has finished; its result is above.",
        finished.status.as_str()
    )
}

/// One line for the task_notification event.
pub(crate) fn summary(description: &str, finished: &AgentFinished) -> String {
    let detail = match finished.status {
        AgentStatus::Completed | AgentStatus::MaxTurns | AgentStatus::Truncated => {
            finished.result.lines().find(|l| !l.trim().is_empty())
        }
        _ => finished.error.as_deref(),
    };
    let mut s = format!("\"{description}\" {}", finished.status.as_str());
    if let Some(d) = detail {
        let d: String = d.trim().chars().take(200).collect();
        s.push_str(": ");
        s.push_str(&d);
    }
    s
}

/// The Task tool's description, listing the types a call may name.
pub(crate) fn task_description(types: &BTreeMap<String, AgentDefinition>) -> String {
    let mut list = String::new();
    if !types.contains_key(GENERAL_PURPOSE) {
        list.push_str(
            "- general-purpose: a copy of you (same model, instructions and tools) for research, searching code \
             and multi-step tasks. The default when subagent_type is omitted.\n",
        );
    }
    for d in types.values() {
        let tools = match &d.tools.allow {
            Some(a) => a.join(", "),
            None => "all of yours".to_string(),
        };
        list.push_str(&format!("- {}: {} (Tools: {tools})\n", d.name, d.description.trim()));
    }
    format!(
        "Launch a subagent: a fresh agent with its own context window that works on a self-contained, multi-step \
task in your workspace and returns only its final response to you. It sees none of this conversation, unless \
you fork it (fork: true): then it starts from all of it.

Available agent types (subagent_type):
{list}
Usage notes:
- Write a complete, self-contained prompt: the subagent knows only what you tell it. Say exactly what it should \
return, and whether it should change files or only research.
- description is a short (3-5 word) label the user sees in the agent tree.
- To run several subagents in parallel, make several Task calls in one response.
- The result comes back to you, not to the user: summarise what matters in your own answer.
- With run_in_background: true the call returns at once with the subagent's id, and you get its result as a \
task notification when it finishes; TaskOutput waits for it, TaskStop stops it, ListAgents lists all agents.
- Fork (fork: true) for a side task that needs what you already know: the fork reads this conversation from \
the cache for a tenth of its price. A fresh subagent suits a self-contained task and keeps its context clean.
- Do the work yourself when it is a single quick step; a subagent costs a new context."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(status: AgentStatus, result: &str) -> AgentFinished {
        AgentFinished {
            status,
            result: result.to_string(),
            error: Some("provider anthropic: HTTP 500".to_string()),
            turns: 3,
            duration_ms: 1,
            files_modified: Vec::new(),
            stopped_by: None,
        }
    }

    #[test]
    fn results_read_as_the_design_says() {
        let id = AgentId("agent-0000beef".into());
        assert_eq!(result_for_model(&id, &finished(AgentStatus::Completed, "done"), 10), ("done".into(), false));
        assert_eq!(
            result_for_model(&id, &finished(AgentStatus::Completed, "  "), 10),
            ("(no result text)".into(), false)
        );
        let (text, err) = result_for_model(&id, &finished(AgentStatus::MaxTurns, "partial"), 10);
        assert!(!err && text.starts_with("partial\n\n") && text.contains("turn limit (3 turns)"), "{text}");
        let (text, err) = result_for_model(&id, &finished(AgentStatus::Failed, ""), 10);
        assert!(err && text.starts_with("Subagent error: provider anthropic: HTTP 500"), "{text}");
        // Who stopped it is said as it was: only a person's Stop reads as the user's.
        let stopped = |by| AgentFinished { stopped_by: by, ..finished(AgentStatus::Cancelled, "") };
        let by_person = Some(arbor_protocol::StoppedBy::Person);
        assert_eq!(
            result_for_model(&id, &stopped(by_person), 10),
            ("Subagent error: stopped by the user".into(), true)
        );
        let by_parent = Some(arbor_protocol::StoppedBy::Parent);
        assert_eq!(
            result_for_model(&id, &stopped(by_parent), 10),
            ("Subagent error: stopped with TaskStop".into(), true)
        );
        assert_eq!(result_for_model(&id, &stopped(None), 10), ("Subagent error: stopped".into(), true));
    }

    #[test]
    fn long_results_are_cut_on_a_char_boundary_with_a_marker() {
        let text = "é".repeat(60_000);
        let cut = cap_result(&text, 50_000);
        assert!(cut.starts_with(&"é".repeat(50_000)));
        assert!(cut.contains("the first 50000 of 60000 characters"));
        assert_eq!(cap_result("short", 50_000), "short");
    }

    #[test]
    fn aliases_resolve_on_anthropic_only() {
        assert_eq!(resolve_model("sonnet", "anthropic").as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(resolve_model("sonnet", "openai"), None);
        assert_eq!(resolve_model("inherit", "anthropic"), None);
        assert_eq!(resolve_model("gpt-4.1-mini", "openai").as_deref(), Some("gpt-4.1-mini"));
    }

    #[test]
    fn labels_come_from_the_prompt_when_missing() {
        assert_eq!(describe("Find every TODO in the src folder and list them"), "Find every TODO in the");
        assert!(describe(&"x".repeat(100)).ends_with('…'));
    }
}
