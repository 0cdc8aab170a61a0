//! The tools a model manages subagents with, shaped as Claude Code's: Task
//! (start one and, in the foreground, wait for its result), TaskOutput, TaskStop
//! and ListAgents. Each agent gets its own instances, bound to it.

use super::handle::{Children, Stopped, Waited};
use super::{Plan, SpawnRequest};
use crate::delegation::{LIST_AGENTS, TASK, TASK_OUTPUT, TASK_STOP};
use crate::results::result_for_model;
use crate::shared::Shared;
use crate::tools::{Preview, Tool, ToolClass, ToolContext, ToolRegistry, ToolResult, parse_input, schema_of};
use arbor_protocol::{AgentFinished, AgentId, ApprovalPreview};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// TaskOutput waits this long by default, and never longer than the maximum.
const DEFAULT_WAIT_MS: u64 = 30_000;
const MAX_WAIT_MS: u64 = 600_000;

/// Adds the four tools, each holding agent `id`'s handle on its children.
pub(crate) fn add_tools(tools: &mut ToolRegistry, shared: &Arc<Shared>, id: &AgentId) {
    let children = Children::of(shared, id);
    tools.insert(Arc::new(TaskTool(children.clone())));
    tools.insert(Arc::new(TaskOutputTool(children.clone())));
    tools.insert(Arc::new(TaskStopTool(children.clone())));
    tools.insert(Arc::new(ListAgentsTool(children)));
}

/// A child's end as its parent's model reads it, with what the runtime noted of it.
fn result(children: &Children, id: &AgentId, finished: &AgentFinished) -> ToolResult {
    let (mut text, is_error) = result_for_model(id, finished, children.result_chars());
    if let Some(note) = children.note(id) {
        text = format!("{text}\n\n{note}");
    }
    ToolResult { content: text, is_error, files_modified: Vec::new() }
}

struct TaskTool(Children);

/// Optional fields are parsed leniently (a missing prompt gets a clear answer
/// rather than a serde error); the schema still requires what the model must send.
#[derive(Deserialize, JsonSchema)]
struct TaskInput {
    /// The complete task for the subagent: it sees nothing else
    #[schemars(required)]
    prompt: Option<String>,
    /// A short (3-5 word) label for the task, shown in the agent tree
    #[schemars(required)]
    description: Option<String>,
    /// The type of agent to use (default general-purpose)
    subagent_type: Option<String>,
    /// A model for this subagent instead of its type's (optional)
    model: Option<String>,
    /// Turn limit for the subagent (optional)
    #[schemars(with = "Option<u32>", range(min = 1))]
    max_turns: Option<Value>,
    /// Return at once with the subagent's id; its result arrives as a notification
    run_in_background: Option<bool>,
    /// "worktree": the subagent works in a git worktree of its own (a new branch made from your tree as it is), so
    /// it cannot disturb your files or other subagents'; its changes come back on the branch for the user to merge
    #[schemars(with = "Option<IsolationName>")]
    isolation: Option<String>,
    /// A token budget for the subagent and everything it starts (input, output and cache-write tokens); never more
    /// than you have left (optional)
    #[schemars(with = "Option<u64>", range(min = 1))]
    max_tokens: Option<Value>,
    /// A budget in US dollars for the subagent and everything it starts (optional)
    #[schemars(with = "Option<f64>")]
    max_cost_usd: Option<Value>,
    /// A wall-clock limit for the subagent, in seconds (optional)
    #[schemars(with = "Option<u64>", range(min = 1))]
    max_duration_seconds: Option<Value>,
    /// true: the subagent is a fork of you, starting from this whole conversation, then the prompt (your model and
    /// tools: leave subagent_type and model out)
    fork: Option<bool>,
}

/// The isolation values a Task call may name.
#[derive(JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
enum IsolationName {
    Worktree,
}

/// A budget limit as the model wrote it: a number above zero (`"5000"` counts too).
fn parse_limit(field: &str, v: &Option<Value>) -> Result<Option<f64>, ToolResult> {
    let Some(v) = v.as_ref().filter(|v| !v.is_null()) else { return Ok(None) };
    let n = v.as_f64().or_else(|| v.as_str().and_then(|s| s.trim().parse::<f64>().ok()));
    match n {
        Some(n) if n > 0.0 && n.is_finite() => Ok(Some(n)),
        _ => Err(ToolResult::error(format!("Invalid input for Task: {field} must be a number above 0 (got {v})."))),
    }
}

/// `max_turns` as the model wrote it: an integer of at least 1 (`3.0` counts as 3).
fn parse_max_turns(v: &Value) -> Result<u32, ToolResult> {
    let n = v.as_u64().or_else(|| v.as_f64().filter(|f| f.fract() == 0.0 && *f >= 1.0).map(|f| f as u64));
    match n {
        Some(n) if n >= 1 => Ok(u32::try_from(n).unwrap_or(u32::MAX)),
        _ => Err(ToolResult::error(format!(
            "Invalid input for Task: max_turns must be an integer of at least 1 (got {v})."
        ))),
    }
}

/// A Task call read and planned: the child it would start, or the error the model reads.
type Prepared = Result<(SpawnRequest, Plan), ToolResult>;

impl TaskTool {
    /// Reads the call's input and plans its child, once per call.
    fn prepare(&self, input: Value, ctx: &ToolContext) -> Prepared {
        let request = self.request(input, ctx)?;
        let plan = self.0.plan(&request).map_err(|e| ToolResult::error(e.to_string()))?;
        Ok((request, plan))
    }

    /// The child a Task call asks for, or the error the model reads.
    fn request(&self, input: Value, ctx: &ToolContext) -> Result<SpawnRequest, ToolResult> {
        let input: TaskInput = parse_input(TASK, input)?;
        let fork = match (input.fork.unwrap_or(false), &ctx.conversation) {
            (false, _) => None,
            (true, Some(conversation)) => Some(conversation.clone()),
            (true, None) => return Err(ToolResult::error("Task cannot fork here: start a fresh subagent instead.")),
        };
        let max_turns = input.max_turns.as_ref().filter(|v| !v.is_null()).map(parse_max_turns).transpose()?;
        let isolation = match input.isolation.as_deref().map(str::trim) {
            None | Some("") => None,
            Some("worktree") => Some(arbor_protocol::Isolation::Worktree),
            Some("shared" | "none") => Some(arbor_protocol::Isolation::Shared),
            Some(other) => {
                return Err(ToolResult::error(format!(
                    "Invalid input for Task: isolation must be \"worktree\" or left out (got {other:?})."
                )));
            }
        };
        let budget = arbor_protocol::Budget {
            max_tokens: parse_limit("max_tokens", &input.max_tokens)?.map(|n| n.ceil() as u64),
            max_cost_usd: parse_limit("max_cost_usd", &input.max_cost_usd)?,
            max_duration_seconds: parse_limit("max_duration_seconds", &input.max_duration_seconds)?
                .map(|n| n.ceil() as u64),
            max_subagents: None,
        };
        Ok(SpawnRequest {
            parent: self.0.parent().clone(),
            parent_call_id: Some(ctx.call_id.clone()),
            parent_call_seq: ctx.call_seq,
            prompt: input.prompt.unwrap_or_default(),
            description: input.description,
            subagent_type: input.subagent_type,
            model: input.model,
            max_turns,
            background: input.run_in_background.unwrap_or(false),
            by_user: false,
            isolation,
            budget: Some(budget),
            fork,
        })
    }
}

#[async_trait]
impl Tool for TaskTool {
    fn name(&self) -> &str {
        TASK
    }

    fn description(&self) -> &str {
        self.0.task_description()
    }

    fn input_schema(&self) -> Value {
        schema_of::<TaskInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::Delegation
    }

    async fn preview(&self, input: &Value, ctx: &ToolContext) -> Option<Preview> {
        let prepared = self.prepare(input.clone(), ctx);
        let shown = prepared.as_ref().ok().map(|(request, plan)| self.0.summary(plan, request));
        // Read and planned once: the call, after the person's answer, starts what was shown.
        ctx.prepared.put(prepared);
        Some(ApprovalPreview::Spawn(shown?).into())
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let prepared = match ctx.prepared.take::<Prepared>() {
            Some(p) => p,
            None => self.prepare(input, ctx),
        };
        let (mut request, mut plan) = match prepared {
            Ok(p) => p,
            Err(e) => return e,
        };
        let background = request.background;
        // What a person edited in the spawn card is what the child gets.
        if let Some(edit) = &ctx.edit {
            self.0.edit(&mut plan, &mut request, edit);
        }
        let mut spawned = match self.0.spawn(request, plan) {
            Ok(s) => s,
            Err(e) => return ToolResult::error(e.to_string()),
        };
        let id = spawned.id.clone();
        if background {
            return ToolResult::ok(format!(
                "Started {id} in the background (\"{}\", {}). Its result will arrive as a task notification when it \
                 finishes; TaskOutput with task_id \"{id}\" waits for it, TaskStop stops it.",
                spawned.description, spawned.subagent_type
            ));
        }
        // The child hangs under this agent's cancellation, so a stop reaches it and it ends promptly.
        match self.0.finished(&mut spawned).await {
            Some(f) => result(&self.0, &id, &f),
            None => ToolResult::error(format!("Subagent error: {id} vanished from the session")),
        }
    }
}

struct TaskOutputTool(Children);

#[derive(Deserialize, JsonSchema)]
struct TaskOutputInput {
    /// The agent's id, as Task returned it (agent-…)
    task_id: String,
    /// Wait for the agent to finish (default true)
    block: Option<bool>,
    /// How long to wait, in milliseconds (default 30000)
    timeout_ms: Option<u64>,
}

#[async_trait]
impl Tool for TaskOutputTool {
    fn name(&self) -> &str {
        TASK_OUTPUT
    }

    fn description(&self) -> &str {
        "Gets the result of a subagent you started with run_in_background (or one of its subagents) by its id. \
         By default it waits until the agent finishes (up to timeout_ms, default 30000, at most 600000); with \
         block: false it answers at once. It says when the agent is still running, timed out, failed, was stopped \
         or does not exist."
    }

    fn input_schema(&self) -> Value {
        schema_of::<TaskOutputInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::ReadOnly
    }

    async fn call(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let input: TaskOutputInput = match parse_input(TASK_OUTPUT, input) {
            Ok(i) => i,
            Err(e) => return e,
        };
        let mut child = match self.0.child(&input.task_id) {
            Ok(found) => found,
            Err(e) => return ToolResult::error(e),
        };
        let (id, description) = (child.id.clone(), child.description.clone());
        if let Some(f) = self.0.collect(&child) {
            return result(&self.0, &id, &f);
        }
        if !input.block.unwrap_or(true) {
            let status = self.0.status(&id);
            return ToolResult::ok(format!(
                "{id} (\"{description}\") is still {status}. Call TaskOutput again later, or with block: true to wait."
            ));
        }
        let wait = Duration::from_millis(input.timeout_ms.unwrap_or(DEFAULT_WAIT_MS).min(MAX_WAIT_MS));
        match self.0.wait(&mut child, wait, &ctx.cancel).await {
            Waited::Finished(f) => result(&self.0, &id, &f),
            Waited::Gone => ToolResult::error(format!("No agent {id} in this session.")),
            Waited::Cancelled => ToolResult::error("Cancelled while waiting for the subagent."),
            Waited::Running(status) => ToolResult::ok(format!(
                "Timed out after {} ms: {id} (\"{description}\") is still {status}. Its result will arrive as a task \
                 notification; call TaskOutput again to keep waiting.",
                wait.as_millis()
            )),
        }
    }
}

struct TaskStopTool(Children);

#[derive(Deserialize, JsonSchema)]
struct TaskStopInput {
    /// The subagent's id (agent-…)
    task_id: String,
}

/// ListAgents takes nothing.
#[derive(Deserialize, JsonSchema)]
struct ListAgentsInput {}

#[async_trait]
impl Tool for TaskStopTool {
    fn name(&self) -> &str {
        TASK_STOP
    }

    fn description(&self) -> &str {
        "Stops a subagent you started (and every agent it started) by its id: its model stream is closed and its \
         commands are killed. Use it when a background subagent is no longer needed or has gone wrong."
    }

    fn input_schema(&self) -> Value {
        schema_of::<TaskStopInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::Delegation
    }

    async fn call(&self, input: Value, _ctx: &ToolContext) -> ToolResult {
        let input: TaskStopInput = match parse_input(TASK_STOP, input) {
            Ok(i) => i,
            Err(e) => return e,
        };
        let mut child = match self.0.child(&input.task_id) {
            Ok(found) => found,
            Err(e) => return ToolResult::error(e),
        };
        let (id, description) = (child.id.clone(), child.description.clone());
        match self.0.stop(&mut child).await {
            Err(e) => ToolResult::error(e),
            Ok(Stopped::AlreadyEnded(status)) => {
                ToolResult::ok(format!("{id} (\"{description}\") had already finished ({status}); nothing to stop."))
            }
            Ok(Stopped::Stopped { others }) => {
                let others = match others {
                    0 => String::new(),
                    1 => " and the 1 agent it started".to_string(),
                    n => format!(" and the {n} agents it started"),
                };
                ToolResult::ok(format!("Stopped {id} (\"{description}\"){others}."))
            }
        }
    }
}

struct ListAgentsTool(Children);

#[async_trait]
impl Tool for ListAgentsTool {
    fn name(&self) -> &str {
        LIST_AGENTS
    }

    fn description(&self) -> &str {
        "Lists every agent of this session (you, the subagents and theirs) with id, status, type, description, \
         parent and turns."
    }

    fn input_schema(&self) -> Value {
        schema_of::<ListAgentsInput>()
    }

    fn class(&self) -> ToolClass {
        ToolClass::ReadOnly
    }

    async fn call(&self, _input: Value, _ctx: &ToolContext) -> ToolResult {
        let all = self.0.list();
        let mut out = format!("{} agents in this session:\n", all.len());
        for a in all {
            let parent = a.parent.as_ref().map_or_else(|| "none (main agent)".to_string(), |p| p.to_string());
            let you = if a.you { " (you)" } else { "" };
            let bg = if a.background { ", background" } else { "" };
            out.push_str(&format!(
                "- {}{you}: {} · type {} · \"{}\" · parent {parent} · depth {} · {} turns{bg}\n",
                a.id,
                a.status,
                a.subagent_type.as_deref().unwrap_or("main"),
                a.description,
                a.depth,
                a.turns,
            ));
        }
        ToolResult::ok(out.trim_end().to_string())
    }
}
