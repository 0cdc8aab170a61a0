//! Firing hooks from the agent loop: the JSON Claude Code gives a hook on
//! stdin (the common fields, then the event's), every matching command run at
//! once, each run a `hook_ran` event, and their answers combined for the caller
//! to apply (the caller knows what blocking means where it stands).

use crate::approval::{ApprovalPolicy, Decision};
use crate::hooks::answer::{self, Combined};
use crate::hooks::run;
use crate::registry::AgentSpec;
use crate::shared::Shared;
use arbor_protocol::{AgentId, EventKind, HookDecision, HookEvent, HookRan, Message};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::PathBuf;
use tokio_util::sync::CancellationToken;

/// How many times in a row a Stop (or SubagentStop) hook may keep an agent going before
/// Arbor lets it end anyway: a hook that always blocks must not run a model forever.
pub(crate) const MAX_STOP_BLOCKS: u32 = 5;

/// The most of a command a `hook_ran` event repeats.
const MAX_COMMAND_CHARS: usize = 300;

/// One firing: the event, what its matcher is matched against, and its own fields.
pub(crate) struct Firing<'a> {
    pub event: HookEvent,
    /// A tool's name, an agent's type, a trigger; None for the events without a matcher.
    pub subject: Option<&'a str>,
    pub call_id: Option<&'a str>,
    pub fields: Map<String, Value>,
    /// Set when a block would not be applied (the Stop hooks' bound): said in the event.
    pub block_not_applied: Option<String>,
}

impl<'a> Firing<'a> {
    pub(crate) fn new(event: HookEvent, subject: Option<&'a str>) -> Self {
        Self { event, subject, call_id: None, fields: Map::new(), block_not_applied: None }
    }

    pub(crate) fn field(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.fields.insert(key.to_string(), value.into());
        self
    }

    pub(crate) fn call(mut self, call_id: &'a str) -> Self {
        self.call_id = Some(call_id);
        self
    }
}

/// Whether `spec`'s agent has any hook for `event` (to skip building a firing's input).
pub(crate) fn wanted(spec: &AgentSpec, event: HookEvent) -> bool {
    spec.hooks.has(event)
}

/// An agent's type as its hooks see it (`agent_type`, and SubagentStart's and
/// SubagentStop's matcher): the type its Task call named, else general-purpose.
pub(crate) fn agent_type(shared: &Shared, agent: &AgentId) -> String {
    let named = shared.registry().get(agent).and_then(|r| r.state.subagent_type.clone());
    named.unwrap_or_else(|| arbor_protocol::GENERAL_PURPOSE.to_string())
}

/// The agent's subagents still running in the background, as Claude Code lists them
/// for Stop and SubagentStop (`background_tasks`).
pub(crate) fn background_tasks(shared: &Shared, agent: &AgentId) -> Value {
    let reg = shared.registry();
    let tasks: Vec<Value> = reg
        .children(agent)
        .filter(|c| c.state.background && !c.state.status.is_terminal())
        .map(|c| {
            json!({
                "id": c.state.id.as_str(),
                "type": "subagent",
                "status": c.state.status.as_str(),
                "description": c.state.description,
                "agent_type": c.state.subagent_type.as_deref().unwrap_or(arbor_protocol::GENERAL_PURPOSE),
            })
        })
        .collect();
    Value::Array(tasks)
}

/// Claude Code's `permission_mode` for an agent's policy.
fn permission_mode(policy: &ApprovalPolicy) -> &'static str {
    if policy.mutating_floor == Decision::Deny {
        "plan"
    } else if policy.ask_denies {
        "dontAsk"
    } else if policy.mutating == Decision::Allow && policy.delegation == Decision::Allow {
        "bypassPermissions"
    } else if policy.per_tool.get("Edit") == Some(&Decision::Allow) && policy.mutating == Decision::Ask {
        "acceptEdits"
    } else {
        "default"
    }
}

/// Writes `history` as `agent`'s transcript for its hooks (JSON lines in Claude Code's
/// shape: `type`, then `message` with its `role` and `content`); the file's path.
pub(crate) fn write_transcript(shared: &Shared, agent: &AgentId, history: &[Message]) -> Option<PathBuf> {
    let path = shared.ctx.hook_files.file(agent.as_str())?;
    let sidechain = shared.registry().get(agent).is_some_and(|r| r.state.depth > 0);
    let write = || -> std::io::Result<()> {
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        let mut out = std::io::BufWriter::new(opts.open(&path)?);
        for m in history {
            let kind = match m {
                Message::User { .. } => "user",
                Message::Assistant { .. } => "assistant",
            };
            let row = json!({
                "type": kind,
                "sessionId": shared.ctx.id.as_str(),
                "agentId": agent.as_str(),
                "isSidechain": sidechain,
                "message": m,
            });
            serde_json::to_writer(&mut out, &row).map_err(std::io::Error::other)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    };
    if let Err(e) = write() {
        tracing::warn!(error = %e, "could not write the transcript for hooks");
    }
    Some(path)
}

/// Runs every hook of `spec`'s agent that matches `f`, at once; each run is a
/// `hook_ran` event; their answers together. Nothing runs (and nothing is
/// written) when no hook matches.
pub(crate) async fn fire(
    shared: &Shared,
    agent: &AgentId,
    spec: &AgentSpec,
    cancel: &CancellationToken,
    f: Firing<'_>,
) -> Combined {
    let hooks = spec.hooks.matching(f.event, f.subject);
    if hooks.is_empty() {
        return Combined::default();
    }
    let depth = shared.registry().get(agent).map_or(0, |r| r.state.depth);
    let agent_type = agent_type(shared, agent);
    let transcript = shared.ctx.hook_files.file(agent.as_str());
    let root = shared.ctx.workspace.root().display().to_string();
    let mut input = Map::new();
    input.insert("session_id".into(), shared.ctx.id.as_str().into());
    input.insert(
        "transcript_path".into(),
        transcript.as_ref().map(|p| p.display().to_string()).unwrap_or_default().into(),
    );
    input.insert("cwd".into(), spec.workspace.root().display().to_string().into());
    // As Claude Code 2.1.330 sends them: no prompt yet at SessionStart; no permission mode
    // where no tool is about to be decided on by an agent's mode.
    if f.event != HookEvent::SessionStart {
        input.insert("prompt_id".into(), shared.ctx.prompt_id.read().clone().into());
    }
    if !matches!(f.event, HookEvent::SessionStart | HookEvent::SessionEnd | HookEvent::SubagentStart) {
        input.insert("permission_mode".into(), permission_mode(&spec.policy).into());
    }
    if depth > 0 {
        input.insert("agent_id".into(), agent.as_str().into());
        input.insert("agent_type".into(), agent_type.clone().into());
    }
    input.insert("hook_event_name".into(), f.event.as_str().into());
    input.extend(f.fields);
    let stdin = serde_json::to_vec(&Value::Object(input)).unwrap_or_default();
    let mut env = shared.ctx.hook_env.clone();
    env.extend([
        ("CLAUDE_PROJECT_DIR".to_string(), root),
        ("ARBOR_SESSION_ID".to_string(), shared.ctx.id.as_str().to_string()),
        ("ARBOR_AGENT_ID".to_string(), agent.as_str().to_string()),
        ("ARBOR_HOOK_EVENT".to_string(), f.event.as_str().to_string()),
    ]);
    if depth > 0 {
        env.push(("ARBOR_AGENT_TYPE".to_string(), agent_type));
    }
    let cwd = spec.workspace.root().to_path_buf();
    let runs = hooks.iter().map(|h| run::run(h, &stdin, &cwd, &env, cancel));
    let ran = futures::future::join_all(runs).await;
    let mut combined = Combined::default();
    for (hook, ran) in hooks.iter().zip(ran) {
        let mut a = answer::read(f.event, hook.origin, &ran);
        if let (Some(why), HookDecision::Block) = (&f.block_not_applied, a.decision) {
            a.decision = HookDecision::Ignored;
            a.message = Some(why.clone());
        }
        combined.add(&a, &hook.source.display().to_string());
        let message = match a.decision {
            HookDecision::Deny | HookDecision::Block => a.reason.clone(),
            HookDecision::Stop => a.stop.clone(),
            _ => None,
        }
        .or(a.message.clone());
        // Not the command: a person's command line may carry a token.
        tracing::info!(event = f.event.as_str(), source = %hook.source.display(), exit = ?ran.exit, decision = ?a.decision, "hook ran");
        shared.emit(
            agent,
            EventKind::HookRan(HookRan {
                hook_event: f.event,
                source: hook.source.display().to_string(),
                origin: hook.origin,
                matcher: hook.matcher.clone(),
                command: arbor_protocol::text::quote(&hook.command, MAX_COMMAND_CHARS),
                call_id: f.call_id.map(str::to_string),
                exit_code: match ran.exit {
                    run::Exit::Code(c) => Some(c),
                    _ => None,
                },
                duration_ms: ran.duration.as_millis() as u64,
                decision: a.decision,
                message,
            }),
        );
    }
    combined
}
