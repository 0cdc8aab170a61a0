//! The one door children start through (design.md §1): a model's Task call and a
//! person's Delegate… alike are planned (`spec`), registered and announced here,
//! and every run of any agent (a new child, a next prompt, a resume, a result
//! waking an idle parent) starts through [`run`], behind which Arbor's own loop and
//! an external ACP agent are two kinds of child. A parent reaches its children only
//! through its [`Children`] handle (plan, spawn, wait, stop, list), which the tools a
//! model manages them with ([`tools`]) and a person's Delegate… hold; how a child's
//! end reads is in [`crate::results`].

mod handle;
mod spec;
mod tools;

pub(crate) use handle::Children;

use crate::definitions::{AgentDefinition, GENERAL_PURPOSE};
use crate::error::SpawnError;
use crate::registry::{AgentRecord, RunStart};
use crate::results::describe;
use crate::shared::Shared;
use crate::tools::ToolRegistry;
use arbor_protocol::{
    AgentFinished, AgentId, AgentStarted, AgentStatus, EventKind, Message, MessageFrom, StatusChanged, UserBlock,
    UserMessage,
};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

use spec::plan;
pub(crate) use spec::{Plan, as_parent, child_spec, fork_spec};

/// A child to start.
pub(crate) struct SpawnRequest {
    pub parent: AgentId,
    /// The Task call that asks for it; None when the person delegates.
    pub parent_call_id: Option<String>,
    /// That call's place in its parent's events (`tool_call`'s seq): the child's among its siblings.
    pub parent_call_seq: Option<u64>,
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

/// Registers and starts the child `plan` describes.
fn start(shared: &Arc<Shared>, req: SpawnRequest, plan: Plan) -> Result<Spawned, SpawnError> {
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
        call_seq: req.parent_call_seq,
        fork: spec.fork,
        // Which program runs it, and whether its process is in the sandbox (the card and the header say).
        external: spec.external.as_ref().map(|c| arbor_protocol::ExternalAgent {
            command: c.display(),
            sandbox: c.sandboxed.then(|| spec.sandbox.describe()),
        }),
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
    run(shared, RunStart { id: id.clone(), spec, history, inbox, cancel });
    Ok(Spawned { id, description, subagent_type, outcome: outcome_rx })
}

/// Starts a run of an agent whose record is in the registry: Arbor's own loop, with
/// its tools, or the external program its type names. The session installs this
/// as its door ([`crate::shared::Context::door`]), so whatever starts a run (a
/// delivery, a resume) goes through here without knowing the kinds of child.
pub(crate) fn run(shared: &Arc<Shared>, run: RunStart) {
    match run.spec.external.clone() {
        Some(command) => crate::external::launch(shared, run, command),
        None => {
            let tools = tools_of(shared, &run.id, &run.spec);
            crate::agent::launch(shared, run, tools);
        }
    }
}

/// The tools an agent of `spec` is offered: the built-ins, and the subagent tools
/// below the depth limit (a fork keeps them past it, refused when called), as its
/// filter admits them. Its MCP servers' are added when its run starts.
pub(crate) fn tools_of(shared: &Arc<Shared>, id: &AgentId, spec: &crate::registry::AgentSpec) -> ToolRegistry {
    let mut tools = ToolRegistry::builtins();
    if spec.depth < shared.ctx.limits.max_depth || spec.fork.is_some() {
        tools::add_tools(&mut tools, shared, id);
    }
    tools.retain(|t| spec.tools.admits(t.name()));
    tools
}

/// The caller's label, or one made from the prompt's first words.
pub(super) fn describe_or(description: Option<&str>, prompt: &str) -> String {
    match description.map(str::trim).filter(|d| !d.is_empty()) {
        Some(d) => d.to_string(),
        None => describe(prompt),
    }
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
