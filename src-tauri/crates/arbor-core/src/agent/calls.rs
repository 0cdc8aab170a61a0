//! The tool calls of one model response: announced in call order, approved or
//! denied by the policy or a person, run concurrently, results returned in call order.

use super::AgentRun;
use super::ask::Question;
use super::hooked::{self, Firing};
use super::pieces::{self, Pieces};
use crate::approval::{ApprovalPolicy, Verdict};
use crate::changes::Tracker;
use crate::hooks::answer::Combined;
use crate::shared::Shared;
use crate::tools::{ToolContext, ToolResult, cap_output};
use arbor_protocol::{
    AgentId, DecidedBy, EventKind, HookDecision, HookEvent, ToolCall, ToolOutput, ToolOutputChunk, UserBlock,
};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, info_span};

/// The most characters any tool result gives the model (Read pages up to this).
const MAX_RESULT_CHARS: usize = 100_000;

/// How long a cancelled tool gets to clean up after itself (kill its processes)
/// before the agent stops waiting for it.
const CANCEL_GRACE: Duration = Duration::from_secs(3);

pub(crate) struct Call {
    pub id: String,
    pub name: String,
    pub input: Value,
    /// Why the call cannot run, in words for the model, if it cannot (its
    /// arguments were not JSON, or the output limit cut them short).
    pub invalid: Option<String>,
    /// The seq of its `tool_call` event, once announced in this run (a child it
    /// starts takes its place among its siblings from it).
    pub seq: Option<u64>,
}

/// Announces the calls of one response (in call order), then runs them. None
/// when the session closed while some were waiting for a person or for a child:
/// those have no result (nor `tool_output`) and stay open for the next run.
pub(crate) async fn run_calls(shared: &Arc<Shared>, agent: &AgentRun, mut calls: Vec<Call>) -> Option<Vec<UserBlock>> {
    for c in &mut calls {
        let mut st = shared.lock();
        let seq = st.emit(
            &agent.id,
            EventKind::ToolCall(ToolCall {
                call_id: c.id.clone(),
                tool_name: c.name.clone(),
                tool_args: c.input.clone(),
                mcp: agent.tools.get(&c.name).and_then(|t| t.mcp()),
            }),
        );
        c.seq = Some(seq);
    }
    let tool_hooks =
        [HookEvent::PreToolUse, HookEvent::PermissionRequest, HookEvent::PostToolUse, HookEvent::PostToolUseFailure];
    if tool_hooks.into_iter().any(|e| hooked::wanted(&agent.spec, e)) {
        hooked::write_transcript(shared, &agent.id, &agent.history);
    }
    run_announced(shared, agent, calls).await
}

/// Runs calls already announced, concurrently; their results in call order.
pub(crate) async fn run_announced(shared: &Arc<Shared>, agent: &AgentRun, calls: Vec<Call>) -> Option<Vec<UserBlock>> {
    let handles: Vec<_> = calls
        .into_iter()
        .map(|call| {
            let (id, call_id, name) = (call.id.clone(), call.id.clone(), call.name.clone());
            let waits_on_agents = crate::delegation::waits_on_agents(&call.name);
            let span = info_span!("tool", name = %call.name, call_id = %call.id);
            let tool = agent.tools.get(&call.name).cloned().ok_or_else(|| agent.missing_tool_reason(&call.name));
            let ctx = CallContext {
                shared: shared.clone(),
                agent_id: agent.id.clone(),
                policy: agent.spec.policy.clone(),
                cancel: agent.cancel.clone(),
                workspace: agent.spec.workspace.clone(),
                sandbox: agent.spec.sandbox.clone(),
                changes: agent.spec.changes.clone(),
                spec: agent.spec.clone(),
                conversation: crate::delegation::forks(&call.name, &call.input).then(|| conversation(agent)),
            };
            let (shared, agent_id) = (shared.clone(), agent.id.clone());
            let task = async move {
                let (result, decided_by) = match run_one(ctx, tool, call).await {
                    Ended::Ran(result, decided_by) => (result, decided_by),
                    Ended::Unanswered => return None,
                };
                // A child stopped by the session's close goes on when it is continued, and
                // reports then: this call's answer is not known yet (one that had finished has).
                if waits_on_agents && shared.interrupting(&agent_id) && !child_finished(&shared, &agent_id, &id) {
                    return None;
                }
                // Each output is shown as soon as its call ends; the model gets them in call order below.
                report(&shared, &agent_id, &id, &result, decided_by);
                Some(result)
            };
            (call_id, name, tokio::spawn(task.instrument(span)))
        })
        .collect();
    let mut results = Vec::with_capacity(handles.len());
    let mut open = false;
    for (call_id, name, handle) in handles {
        let result = match handle.await {
            Ok(Some(r)) => r,
            Ok(None) => {
                open = true;
                continue;
            }
            // A panicking tool is a bug in that tool, not the end of the agent.
            Err(e) => {
                let r = ToolResult::error(format!("The tool crashed: {e}"));
                report(shared, &agent.id, &call_id, &r, None);
                r
            }
        };
        let content = super::compact::into_context(&name, result.content);
        results.push(UserBlock::ToolResult { call_id, content, is_error: result.is_error });
    }
    (!open).then_some(results)
}

/// The agent's conversation before the response whose calls are running (that response,
/// its calls still without results, is the last message).
fn conversation(agent: &AgentRun) -> Arc<Vec<arbor_protocol::Message>> {
    let history = &agent.history;
    let end = match history.last() {
        Some(arbor_protocol::Message::Assistant { .. }) => history.len() - 1,
        _ => history.len(),
    };
    Arc::new(history[..end].to_vec())
}

/// Whether the child a Task call started has ended other than interrupted (completed,
/// failed, stopped by a person), so that its result is the call's answer even as the
/// session closes.
fn child_finished(shared: &Shared, agent: &AgentId, call_id: &str) -> bool {
    let reg = shared.registry();
    reg.children(agent).any(|c| {
        c.state.parent_call_id.as_deref() == Some(call_id)
            && c.state.status.is_terminal()
            && c.state.status != arbor_protocol::AgentStatus::Interrupted
    })
}

/// Announces the end of a call whose run is gone: `text` (an error) is its result.
pub(crate) fn report_closed(shared: &Shared, agent_id: &AgentId, call_id: &str, text: &str) {
    report(shared, agent_id, call_id, &ToolResult::error(text), None);
}

/// How one call ended.
enum Ended {
    /// With its result and what decided that it ran (or not); None when it never got that far.
    Ran(ToolResult, Option<DecidedBy>),
    /// The session closed while a person was asked: no result, asked again when continued.
    Unanswered,
}

fn report(shared: &Shared, agent_id: &AgentId, call_id: &str, result: &ToolResult, decided_by: Option<DecidedBy>) {
    shared.emit(
        agent_id,
        EventKind::ToolOutput(ToolOutput {
            call_id: call_id.to_string(),
            content: result.content.clone(),
            is_error: result.is_error,
            decided_by,
        }),
    );
    shared.add_files(agent_id, &result.files_modified);
}

/// What one call needs of its agent, owned so the call can run as its own task.
struct CallContext {
    shared: Arc<Shared>,
    agent_id: AgentId,
    policy: Arc<ApprovalPolicy>,
    cancel: CancellationToken,
    workspace: crate::workspace::Workspace,
    sandbox: Arc<crate::sandbox::Jail>,
    changes: Arc<Tracker>,
    /// For its hooks.
    spec: Arc<crate::registry::AgentSpec>,
    conversation: Option<Arc<Vec<arbor_protocol::Message>>>,
}

/// Runs one call; `tool` is the tool, or why the agent is not offered one of that name.
async fn run_one(cx: CallContext, tool: Result<Arc<dyn crate::tools::Tool>, String>, call: Call) -> Ended {
    let CallContext { shared, agent_id, policy, cancel, workspace, sandbox, changes, spec, conversation } = cx;
    let mut call = call;
    let depth = spec.depth;
    if let Some(message) = call
        .invalid
        .take()
        .or_else(|| crate::delegation::refused_at_depth(&call.name, depth, shared.ctx.limits.max_depth))
    {
        return Ended::Ran(ToolResult::error(message), None);
    }
    let tool = match tool {
        Ok(tool) => tool,
        Err(missing) => return Ended::Ran(ToolResult::error(missing), None),
    };
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let mut ctx = ToolContext {
        workspace: workspace.clone(),
        cancel: cancel.clone(),
        chunks: Some(tx),
        call_id: call.id.clone(),
        call_seq: call.seq,
        edit: None,
        sandbox,
        conversation,
        prepared: Default::default(),
    };
    // PreToolUse hooks first: they may refuse, rewrite the input, ask, or (a person's own) allow.
    let pre = if hooked::wanted(&spec, HookEvent::PreToolUse) {
        let firing = Firing::new(HookEvent::PreToolUse, Some(&call.name))
            .call(&call.id)
            .field("tool_name", call.name.clone())
            .field("tool_input", call.input.clone())
            .field("tool_use_id", call.id.clone());
        hooked::fire(&shared, &agent_id, &spec, &cancel, firing).await
    } else {
        Combined::default()
    };
    if let Some(refused) = refused_by_hook(&shared, &agent_id, &call.name, HookEvent::PreToolUse, &pre) {
        return refused;
    }
    if let Some(input) = pre.updated_input.clone() {
        call.input = input;
    }
    let settings = shared.ctx.permissions.decide(&call.name, &call.input, workspace.root());
    let unasked = super::decide::Unasked { policy: &policy, settings, hook: &pre };
    let decision = match unasked.decide(
        &call.name,
        tool.class(),
        || tool.contained(&ctx),
        || rule_denies(&shared, &agent_id, &call.name),
    ) {
        super::decide::Before::Run(by) => Some(by),
        super::decide::Before::Ask => None,
        super::decide::Before::Refuse(why, by) => {
            let refusal =
                format!("{why}; the call was not run. Do the task without it or tell the user what you need.");
            return Ended::Ran(ToolResult::error(format!("{} {refusal}", call.name)), Some(by));
        }
    };
    let decided_by = match decision {
        Some(by) => by,
        None => match permission_hooks(&shared, &agent_id, &spec, &cancel, &call).await {
            Asked::Refused(ended) => return ended,
            Asked::Allowed(by, input) => {
                if let Some(input) = input {
                    call.input = input;
                }
                by
            }
            Asked::Person => {
                let preview = tool.preview(&call.input, &ctx).await;
                let question = Question {
                    call_id: &call.id,
                    tool_name: &call.name,
                    tool_args: &call.input,
                    preview,
                    options: Vec::new(),
                };
                let Some(verdict) = super::ask::ask_approval(&shared, &agent_id, question, &cancel).await else {
                    // Closed, not stopped: the question stands, for when the session is continued.
                    if shared.interrupting(&agent_id) {
                        return Ended::Unanswered;
                    }
                    return Ended::Ran(
                        ToolResult::error("Cancelled before the user answered; the call was not run."),
                        None,
                    );
                };
                if !verdict.approved {
                    return Ended::Ran(ToolResult::error(denial(&call.name, &verdict)), Some(verdict.by));
                }
                // An answer that crossed a Stop: the person stopped the agent, so nothing runs.
                if cancel.is_cancelled() {
                    return Ended::Ran(ToolResult::error("Cancelled; the call was not run."), Some(verdict.by));
                }
                if let Some(change) = verdict.unseen_change {
                    let refusal = format!(
                        "Not run: the file {change}, and the user approved without seeing that. Nothing was \
                         written; read the file again and retry if the change is still wanted."
                    );
                    return Ended::Ran(ToolResult::error(refusal), Some(verdict.by));
                }
                ctx.edit = verdict.edit;
                verdict.by
            }
        },
    };
    let forward = {
        let shared = shared.clone();
        let agent_id = agent_id.clone();
        let call_id = call.id.clone();
        // A chatty command's output is merged for a moment too (pieces.rs).
        tokio::spawn(async move {
            let emit = |ready: Option<EventKind>| {
                if let Some(kind) = ready {
                    shared.emit(&agent_id, kind);
                }
            };
            let mut pieces = Pieces::default();
            loop {
                let due = pieces.due();
                tokio::select! {
                    biased;
                    _ = pieces::until(due) => emit(pieces.take()),
                    content = rx.recv() => match content {
                        Some(content) => {
                            let chunk = ToolOutputChunk { call_id: call_id.clone(), content };
                            emit(pieces.push(EventKind::ToolOutputChunk(chunk)));
                        }
                        None => break,
                    },
                }
            }
            emit(pieces.take());
        })
    };
    // What may change files is watched, so each change is recorded as the agent's.
    let watch = if tool.class() == crate::tools::ToolClass::Mutating {
        let named = tool.writes(&call.input, &ctx);
        let (watch, found) = changes.begin(&agent_id, Some(&call.id), named).await;
        emit_changes(&shared, found);
        Some(watch)
    } else {
        None
    };
    let post_input =
        hooked::wanted(&spec, HookEvent::PostToolUse) || hooked::wanted(&spec, HookEvent::PostToolUseFailure);
    let input_for_hooks = post_input.then(|| call.input.clone());
    let ran_at = std::time::Instant::now();
    let mut result = tokio::select! {
        r = tool.call(call.input, &ctx) => r,
        _ = async { cancel.cancelled().await; tokio::time::sleep(CANCEL_GRACE).await } => {
            ToolResult::error("Cancelled; the tool did not stop in time and was abandoned.")
        }
    };
    drop(ctx);
    // Every chunk is out before the tool_output that ends them.
    let _ = forward.await;
    if let Some(watch) = watch {
        let found = changes.end(watch).await;
        emit_changes(&shared, found);
    }
    // Each tool caps its own output; this is the backstop for every tool, MCP's included.
    if result.content.len() > MAX_RESULT_CHARS {
        result.content = cap_output(&result.content, MAX_RESULT_CHARS);
    }
    if let Some(input) = input_for_hooks {
        let ran = Ran { call_id: &call.id, tool: &call.name, input, took: ran_at.elapsed() };
        after_hooks(&shared, &agent_id, &spec, &cancel, ran, &mut result).await;
    }
    if let Some(context) = pre.context() {
        result.content.push_str(&format!("\n\n[PreToolUse hook context]\n{context}"));
    }
    Ended::Ran(result, Some(decided_by))
}

/// What the PermissionRequest hooks made of a call that would ask a person.
enum Asked {
    /// A hook refused it.
    Refused(Ended),
    /// A person's own hook let it run (maybe with a rewritten input).
    Allowed(DecidedBy, Option<Value>),
    /// Nobody decided: a person is asked (and the Notification hooks are told).
    Person,
}

async fn permission_hooks(
    shared: &Arc<Shared>,
    agent_id: &AgentId,
    spec: &Arc<crate::registry::AgentSpec>,
    cancel: &CancellationToken,
    call: &Call,
) -> Asked {
    // A person's standing rule answers without asking: nobody is asked, so no hook is either.
    if rule_for(shared, agent_id, &call.name).is_some() {
        return Asked::Person;
    }
    if hooked::wanted(spec, HookEvent::PermissionRequest) {
        let firing = Firing::new(HookEvent::PermissionRequest, Some(&call.name))
            .call(&call.id)
            .field("tool_name", call.name.clone())
            .field("tool_input", call.input.clone())
            .field("permission_suggestions", Value::Array(Vec::new()));
        let c = hooked::fire(shared, agent_id, spec, cancel, firing).await;
        if let Some(refused) = refused_by_hook(shared, agent_id, &call.name, HookEvent::PermissionRequest, &c) {
            return Asked::Refused(refused);
        }
        if c.is(HookDecision::Allow) {
            return Asked::Allowed(c.decided_by(HookEvent::PermissionRequest), c.updated_input);
        }
    }
    if hooked::wanted(spec, HookEvent::Notification) {
        // Told, not waited for: a slow notifier must not hold the question back.
        let (shared, agent_id, spec, cancel) = (shared.clone(), agent_id.clone(), spec.clone(), cancel.clone());
        let message = format!("Arbor needs your permission to use {}", call.name);
        tokio::spawn(async move {
            let firing = Firing::new(HookEvent::Notification, Some("permission_prompt"))
                .field("message", message)
                .field("notification_type", "permission_prompt");
            hooked::fire(&shared, &agent_id, &spec, &cancel, firing).await;
        });
    }
    Asked::Person
}

/// The call's end when its hooks refused it or stopped the agent; None when they did not.
fn refused_by_hook(shared: &Shared, agent_id: &AgentId, tool: &str, event: HookEvent, c: &Combined) -> Option<Ended> {
    let by = || c.decided_by(event);
    if let Some(why) = &c.stop {
        shared.cancel_subtree(agent_id, arbor_protocol::StoppedBy::Hook);
        return Some(Ended::Ran(ToolResult::error(format!("Not run: a hook stopped the agent ({why}).")), Some(by())));
    }
    c.is(HookDecision::Deny).then(|| {
        let text = format!(
            "This {tool} call was refused by a {} hook; it was not run. The hook's reason: {}",
            event.as_str(),
            c.reason()
        );
        Ended::Ran(ToolResult::error(text), Some(by()))
    })
}

/// A call that ran, for the hooks after it.
struct Ran<'a> {
    call_id: &'a str,
    tool: &'a str,
    input: Value,
    took: std::time::Duration,
}

/// PostToolUse (or PostToolUseFailure) hooks on a call that ran: what they block or add
/// reaches the model with the result; `"continue": false` stops the agent.
async fn after_hooks(
    shared: &Arc<Shared>,
    agent_id: &AgentId,
    spec: &Arc<crate::registry::AgentSpec>,
    cancel: &CancellationToken,
    ran: Ran<'_>,
    result: &mut ToolResult,
) {
    let event = if result.is_error { HookEvent::PostToolUseFailure } else { HookEvent::PostToolUse };
    let mut firing = Firing::new(event, Some(ran.tool))
        .call(ran.call_id)
        .field("tool_name", ran.tool.to_string())
        .field("tool_input", ran.input)
        .field("tool_use_id", ran.call_id.to_string());
    firing = if result.is_error {
        firing.field("error", result.content.clone()).field("is_interrupt", cancel.is_cancelled())
    } else {
        // Arbor's tools answer with text (a command's stdout and stderr together), not Claude
        // Code's per-tool objects: the text, and that it was not an error.
        firing.field("tool_response", serde_json::json!({"content": result.content, "is_error": false}))
    };
    firing = firing.field("duration_ms", u64::try_from(ran.took.as_millis()).unwrap_or(u64::MAX));
    let c = hooked::fire(shared, agent_id, spec, cancel, firing).await;
    if c.is(HookDecision::Block) {
        result.content.push_str(&format!("\n\n[{} hook feedback]\n{}", event.as_str(), c.reason()));
    }
    if let Some(context) = c.context() {
        result.content.push_str(&format!("\n\n[{} hook context]\n{context}", event.as_str()));
    }
    if c.stop.is_some() {
        shared.cancel_subtree(agent_id, arbor_protocol::StoppedBy::Hook);
    }
}

/// Whether a person's standing rule refuses `tool` to this agent.
fn rule_denies(shared: &Shared, agent: &AgentId, tool: &str) -> bool {
    rule_for(shared, agent, tool) == Some(false)
}

/// What a person's standing rule covering `tool` for this agent says (approved or not), if one does.
fn rule_for(shared: &Shared, agent: &AgentId, tool: &str) -> Option<bool> {
    let st = shared.lock();
    let ancestors = st.registry.ancestors(agent);
    st.approvals.rule_for(agent, &ancestors, tool).map(|r| r.approved)
}

/// Emits each change on the agent it is attributed to.
pub(crate) fn emit_changes(shared: &Shared, found: Vec<crate::changes::Found>) {
    for (agent, change) in found {
        shared.emit(&agent, EventKind::FileChanged(change));
    }
}

/// What the model reads when its call was refused: by whom, and the person's reason.
fn denial(tool: &str, verdict: &Verdict) -> String {
    let who = match &verdict.by {
        DecidedBy::Rule { rule } => format!(
            "refused by a standing rule (the user denied {} calls {})",
            rule.tool,
            match rule.scope {
                arbor_protocol::ApprovalScope::Agent => "by this agent",
                arbor_protocol::ApprovalScope::Subtree => "in this part of the agent tree",
                _ => "in this session",
            }
        ),
        _ => "denied by the user".to_string(),
    };
    match verdict.reason.as_deref() {
        Some(reason) => format!(
            "This {tool} call was {who}; it was not run. The user's reason: {reason}\nTake the reason into account: change course rather than retrying the same call."
        ),
        None => format!(
            "This {tool} call was {who}; it was not run. Do not retry it as it is: choose another way or ask the user."
        ),
    }
}
