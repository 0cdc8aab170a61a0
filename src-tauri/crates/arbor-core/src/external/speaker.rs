//! One ACP session spoken as one Arbor agent's events: the external agent's own
//! session as its node, or a subagent session it announced as a node under it.
//! Its message and thoughts stream and are sent whole when the next call or the
//! end comes; each call is announced once it has its input, watched for the files
//! it changes, and ended once; its permission requests are the policy's, a rule's
//! or a person's to answer; its file and terminal requests are served inside the
//! node's working tree and sandbox.

use super::options::{choose, offered};
use crate::agent::ask::{Question, ask_approval};
use crate::approval::Decision;
use crate::changes::Watch;
use crate::registry::AgentSpec;
use crate::shared::Shared;
use crate::tools::{Preview, ToolClass};
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema as acp;
use arbor_protocol::{AgentId, ApprovalPreview, EventKind, Text, ToolCall, ToolOutput, Usage};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

pub(super) struct Speaker {
    shared: Arc<Shared>,
    id: AgentId,
    spec: Arc<AgentSpec>,
    cancel: CancellationToken,
    /// The message and thoughts streaming now (sent whole when the next call or the end comes).
    text: String,
    thoughts: String,
    /// Its latest whole message: its result when it ends.
    last: String,
    calls: HashMap<String, Call>,
    terminals: super::terminal::Terminals,
    /// Who decided each call that was asked about (the policy, a rule, a person): its result says so.
    decided: Arc<parking_lot::Mutex<HashMap<String, arbor_protocol::DecidedBy>>>,
    /// The cost it reported last (cumulative), and how much of it was counted already.
    cost: Option<f64>,
    counted: f64,
}

/// The largest file `fs/read_text_file` reads.
const MAX_READ: u64 = 16 * 1024 * 1024;

#[derive(Default)]
struct Call {
    /// What the updates said of it so far.
    fields: acp::ToolCallUpdateFields,
    /// The agent's own name for the tool, when it says (Claude Code's `_meta.claudeCode.toolName`).
    named: Option<String>,
    announced: bool,
    done: bool,
    watch: Option<Watch>,
    /// A person being asked about it: stopped (and its request withdrawn) before its result.
    asking: Option<(CancellationToken, tokio::task::JoinHandle<()>)>,
}

impl Speaker {
    pub(super) fn new(shared: Arc<Shared>, id: AgentId, spec: Arc<AgentSpec>, cancel: CancellationToken) -> Self {
        Self {
            shared,
            id,
            spec,
            cancel,
            text: String::new(),
            thoughts: String::new(),
            last: String::new(),
            calls: HashMap::new(),
            terminals: Default::default(),
            decided: Default::default(),
            cost: None,
            counted: 0.0,
        }
    }

    pub(super) fn id(&self) -> &AgentId {
        &self.id
    }

    /// A person (or its parent's end) stopped it.
    pub(super) fn stopped(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Its session ended (or the node's did): what streamed is sent whole, its commands
    /// are killed, its unfinished calls end with it. Its last whole message.
    pub(super) async fn finish(&mut self) -> String {
        self.flush();
        self.terminals.kill_all();
        // Calls it never finished end with it, as an in-process agent's would.
        let open: Vec<String> =
            self.calls.iter().filter(|(_, c)| c.announced && !c.done).map(|(k, _)| k.clone()).collect();
        for call in open {
            self.complete(&call, "The agent ended before this call finished.".into(), true).await;
        }
        std::mem::take(&mut self.last)
    }

    fn emit(&self, kind: EventKind) {
        self.shared.emit(&self.id, kind);
    }

    /// Ends the message and thoughts that were streaming: their whole texts, once.
    pub(super) fn flush(&mut self) {
        if !self.thoughts.is_empty() {
            let content = std::mem::take(&mut self.thoughts);
            self.emit(EventKind::Thoughts(Text { content }));
        }
        if !self.text.is_empty() {
            self.last = std::mem::take(&mut self.text);
            self.emit(EventKind::Response(Text { content: self.last.clone() }));
        }
    }

    pub(super) async fn apply(&mut self, update: acp::SessionUpdate) {
        match update {
            acp::SessionUpdate::AgentMessageChunk(c) => {
                if let acp::ContentBlock::Text(t) = c.content {
                    self.text.push_str(&t.text);
                    self.emit(EventKind::ResponseChunk(Text { content: t.text }));
                }
            }
            acp::SessionUpdate::AgentThoughtChunk(c) => {
                if let acp::ContentBlock::Text(t) = c.content {
                    self.thoughts.push_str(&t.text);
                    self.emit(EventKind::ThoughtsChunk(Text { content: t.text }));
                }
            }
            acp::SessionUpdate::ToolCall(tc) => {
                let fields = acp::ToolCallUpdateFields::new()
                    .title(tc.title.clone())
                    .kind(tc.kind)
                    .raw_input(tc.raw_input.clone())
                    .locations(tc.locations.clone());
                let ended = matches!(tc.status, acp::ToolCallStatus::Completed | acp::ToolCallStatus::Failed);
                self.announce(&tc.tool_call_id.0, &fields, tc.meta.as_ref(), ended).await;
                if ended {
                    let out = content_text(&tc.content, &self.terminals);
                    self.complete(&tc.tool_call_id.0, out, tc.status == acp::ToolCallStatus::Failed).await;
                }
            }
            acp::SessionUpdate::ToolCallUpdate(u) => {
                let ended =
                    matches!(u.fields.status, Some(acp::ToolCallStatus::Completed | acp::ToolCallStatus::Failed));
                self.announce(&u.tool_call_id.0, &u.fields, u.meta.as_ref(), ended).await;
                if let Some(status @ (acp::ToolCallStatus::Completed | acp::ToolCallStatus::Failed)) = u.fields.status {
                    let out = u.fields.content.as_deref().map(|c| content_text(c, &self.terminals)).unwrap_or_default();
                    self.complete(&u.tool_call_id.0, out, status == acp::ToolCallStatus::Failed).await;
                }
            }
            acp::SessionUpdate::Plan(p) => {
                // Where it stands in its message: what streamed before the plan is said first.
                self.flush();
                self.emit(EventKind::Plan(plan_of(&p)));
            }
            acp::SessionUpdate::UsageUpdate(u) => {
                if let Some(cost) = u.cost.filter(|c| c.currency.eq_ignore_ascii_case("USD")) {
                    self.cost = Some(cost.amount);
                }
            }
            _ => {}
        }
    }

    /// What an update says of a call, kept; its `tool_call` goes out once it has its input
    /// (an agent that streams may name a call before its input is known), or when `now`.
    /// What may change files is watched from then.
    async fn announce(
        &mut self,
        call_id: &str,
        fields: &acp::ToolCallUpdateFields,
        meta: Option<&acp::Meta>,
        now: bool,
    ) {
        let call = self.calls.entry(call_id.to_string()).or_default();
        merge(&mut call.fields, fields);
        if let Some(name) =
            meta.and_then(|m| m.get("claudeCode")).and_then(|c| c.get("toolName")).and_then(Value::as_str)
        {
            call.named = Some(name.to_string());
        }
        let has_input = call.fields.raw_input.as_ref().is_some_and(|v| !v.is_null() && v != &json!({}));
        if call.announced || !(now || has_input) {
            return;
        }
        call.announced = true;
        let (tool, class) = tool_of(&call.fields, call.named.as_deref());
        let args = call.fields.raw_input.clone().unwrap_or_else(|| json!({}));
        let named = (call.fields.kind == Some(acp::ToolKind::Edit))
            .then(|| call.fields.locations.iter().flatten().map(|l| l.path.clone()).collect::<Vec<PathBuf>>())
            .filter(|p| !p.is_empty());
        self.flush();
        self.emit(EventKind::ToolCall(ToolCall {
            call_id: call_id.to_string(),
            tool_name: tool,
            tool_args: args,
            mcp: None,
        }));
        if class != ToolClass::ReadOnly {
            let (watch, found) = self.spec.changes.begin(&self.id, Some(call_id), named).await;
            crate::agent::emit_changes(&self.shared, found);
            if let Some(call) = self.calls.get_mut(call_id) {
                call.watch = Some(watch);
            }
        }
    }

    /// The call's `tool_output`, once; the files it changed are the node's.
    async fn complete(&mut self, call_id: &str, content: String, is_error: bool) {
        let Some(call) = self.calls.get_mut(call_id) else { return };
        if call.done {
            return;
        }
        call.done = true;
        // Its result ends any question about it: withdrawn first, so the events keep their order.
        if let Some((stop, asking)) = call.asking.take() {
            stop.cancel();
            let _ = asking.await;
        }
        let Some(call) = self.calls.get_mut(call_id) else { return };
        // What it said of itself is not needed any more: a long run keeps only that it ended.
        call.fields = acp::ToolCallUpdateFields::new();
        if let Some(watch) = call.watch.take() {
            let found = self.spec.changes.end(watch).await;
            crate::agent::emit_changes(&self.shared, found);
        }
        let decided_by = self.decided.lock().remove(call_id);
        self.emit(EventKind::ToolOutput(ToolOutput { call_id: call_id.to_string(), content, is_error, decided_by }));
    }

    /// A permission request: the policy answers, or a person does in the inbox (a standing
    /// rule may answer at once). The agent's own options carry the answer back.
    pub(super) async fn permission(
        &mut self,
        r: acp::RequestPermissionRequest,
        responder: Responder<acp::RequestPermissionResponse>,
    ) {
        let call_id = r.tool_call.tool_call_id.0.to_string();
        self.announce(&call_id, &r.tool_call.fields, r.tool_call.meta.as_ref(), true).await;
        if self.cancel.is_cancelled() {
            let _ = responder.respond(acp::RequestPermissionResponse::new(acp::RequestPermissionOutcome::Cancelled));
            return;
        }
        let Some(call) = self.calls.get(&call_id) else { return };
        if call.done {
            // A question about a call that already ended: nobody is asked.
            let _ = responder.respond(acp::RequestPermissionResponse::new(acp::RequestPermissionOutcome::Cancelled));
            return;
        }
        let (tool, class) = tool_of(&call.fields, call.named.as_deref());
        let fields = call.fields.clone();
        let options = r.options;
        match self.spec.policy.decide(&tool, class) {
            Decision::Allow => {
                self.decided.lock().insert(call_id, arbor_protocol::DecidedBy::Policy);
                let _ = responder.respond(choose(&options, true, arbor_protocol::ApprovalScope::Once));
            }
            Decision::Deny => {
                self.decided.lock().insert(call_id, arbor_protocol::DecidedBy::Policy);
                let _ = responder.respond(choose(&options, false, arbor_protocol::ApprovalScope::Once));
            }
            Decision::Ask => {
                let (shared, id, cancel) = (self.shared.clone(), self.id.clone(), self.cancel.child_token());
                let stop = cancel.clone();
                let decided = self.decided.clone();
                let key = call_id.clone();
                let args = fields.raw_input.clone().unwrap_or_else(|| json!({}));
                let preview = preview_of(&fields, &args, self.spec.workspace.root());
                let offered = offered(&options);
                let asking = tokio::spawn(async move {
                    let q =
                        Question { call_id: &call_id, tool_name: &tool, tool_args: &args, preview, options: offered };
                    let answer = match ask_approval(&shared, &id, q, &cancel).await {
                        Some(v) => {
                            // Known before the agent hears the answer, so before the call's result.
                            decided.lock().insert(call_id.clone(), v.by.clone());
                            choose(&options, v.approved, v.scope)
                        }
                        None => acp::RequestPermissionResponse::new(acp::RequestPermissionOutcome::Cancelled),
                    };
                    let _ = responder.respond(answer);
                });
                if let Some(call) = self.calls.get_mut(&key) {
                    call.asking = Some((stop, asking));
                }
            }
        }
    }

    pub(super) async fn terminal(&mut self, ask: super::node::TerminalAsk) {
        let unknown =
            |id: &acp::TerminalId| agent_client_protocol::Error::invalid_params().data(format!("no terminal {}", id.0));
        match ask {
            super::node::TerminalAsk::Create(r, responder) => {
                let made = if self.cancel.is_cancelled() {
                    Err(agent_client_protocol::Error::invalid_request().data("the agent was stopped"))
                } else {
                    self.terminals.create(&self.shared, &self.id, &self.spec, &r).await
                };
                let _ = responder.respond_with_result(made.map(acp::CreateTerminalResponse::new));
            }
            super::node::TerminalAsk::Output(r, responder) => {
                let out =
                    self.terminals.get(&r.terminal_id.0).map(|t| t.output()).ok_or_else(|| unknown(&r.terminal_id));
                let _ = responder.respond_with_result(out);
            }
            super::node::TerminalAsk::Wait(r, responder) => match self.terminals.get(&r.terminal_id.0) {
                // Waited for off the queue: the agent's other messages go on meanwhile.
                Some(t) => {
                    tokio::spawn(async move {
                        let exit = t.wait().await;
                        let _ = responder.respond(acp::WaitForTerminalExitResponse::new(exit));
                    });
                }
                None => {
                    let _ = responder.respond_with_error(unknown(&r.terminal_id));
                }
            },
            super::node::TerminalAsk::Kill(r, responder) => {
                let found =
                    self.terminals.get(&r.terminal_id.0).map(|t| t.kill()).ok_or_else(|| unknown(&r.terminal_id));
                let _ = responder.respond_with_result(found.map(|()| acp::KillTerminalResponse::new()));
            }
            super::node::TerminalAsk::Release(r, responder) => {
                let found =
                    self.terminals.release(&r.terminal_id.0).map(|t| t.kill()).ok_or_else(|| unknown(&r.terminal_id));
                let _ = responder.respond_with_result(found.map(|()| acp::ReleaseTerminalResponse::new()));
            }
        }
    }

    /// `fs/read_text_file`, inside the node's working tree.
    pub(super) async fn read(
        &self,
        r: &acp::ReadTextFileRequest,
    ) -> Result<acp::ReadTextFileResponse, agent_client_protocol::Error> {
        let path = self.inside(&r.path)?;
        let size = tokio::fs::metadata(&path).await.map(|m| m.len()).unwrap_or(0);
        if size > MAX_READ {
            let why = format!("{} is {size} bytes; Arbor serves text files of at most {MAX_READ}", path.display());
            return Err(agent_client_protocol::Error::invalid_params().data(why));
        }
        let text = tokio::fs::read_to_string(&path)
            .await
            .map_err(|e| agent_client_protocol::Error::new(-32002, format!("{}: {e}", path.display())))?;
        let from = r.line.map_or(0, |l| l.saturating_sub(1) as usize);
        let lines = text.lines().skip(from);
        let content: Vec<&str> = match r.limit {
            Some(n) => lines.take(n as usize).collect(),
            None => lines.collect(),
        };
        let mut content = content.join("\n");
        if r.line.is_none() && r.limit.is_none() {
            content = text;
        }
        Ok(acp::ReadTextFileResponse::new(content))
    }

    /// `fs/write_text_file`, inside the node's working tree: the change is the node's.
    pub(super) async fn write(
        &mut self,
        r: acp::WriteTextFileRequest,
    ) -> Result<acp::WriteTextFileResponse, agent_client_protocol::Error> {
        let path = self.inside(&r.path)?;
        let (watch, found) = self.spec.changes.begin(&self.id, None, Some(vec![path.clone()])).await;
        crate::agent::emit_changes(&self.shared, found);
        let wrote = async {
            if let Some(dir) = path.parent() {
                tokio::fs::create_dir_all(dir).await?;
            }
            tokio::fs::write(&path, r.content.as_bytes()).await
        }
        .await;
        let found = self.spec.changes.end(watch).await;
        crate::agent::emit_changes(&self.shared, found);
        wrote.map_err(|e| agent_client_protocol::Error::internal_error().data(format!("{}: {e}", path.display())))?;
        Ok(acp::WriteTextFileResponse::new())
    }

    /// A path the agent names, refused outside its working tree.
    fn inside(&self, path: &std::path::Path) -> Result<PathBuf, agent_client_protocol::Error> {
        self.spec
            .workspace
            .resolve(&path.to_string_lossy())
            .map_err(|e| agent_client_protocol::Error::invalid_params().data(e.to_string()))
    }

    /// The turn's tokens (and the cost it added, when it reports one): they count toward budgets.
    pub(super) fn usage(&mut self, u: &acp::Usage) {
        let cost = self.cost.map(|total| (total - self.counted).max(0.0));
        if let Some(total) = self.cost {
            self.counted = total;
        }
        self.emit(EventKind::Usage(Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_read_tokens: u.cached_read_tokens.unwrap_or(0),
            cache_write_tokens: u.cached_write_tokens.unwrap_or(0),
            cost_usd: cost,
        }));
    }
}

/// The agent's plan as Arbor's event; a priority or status newer than this schema reads as the plainest.
fn plan_of(p: &acp::Plan) -> arbor_protocol::Plan {
    use arbor_protocol::{PlanEntry, PlanPriority, PlanStatus};
    let entries = p
        .entries
        .iter()
        .map(|e| PlanEntry {
            content: arbor_protocol::text::quote(&e.content, MAX_STEP),
            priority: match e.priority {
                acp::PlanEntryPriority::High => PlanPriority::High,
                acp::PlanEntryPriority::Low => PlanPriority::Low,
                _ => PlanPriority::Medium,
            },
            status: match e.status {
                acp::PlanEntryStatus::InProgress => PlanStatus::InProgress,
                acp::PlanEntryStatus::Completed => PlanStatus::Completed,
                _ => PlanStatus::Pending,
            },
        })
        .take(MAX_STEPS)
        .collect();
    arbor_protocol::Plan { entries }
}

/// A plan's steps and a step's length kept: an agent's plan is a list to read, not a file.
const MAX_STEPS: usize = 200;
const MAX_STEP: usize = 2_000;

/// What a later update says of a call, over what the earlier ones said.
fn merge(into: &mut acp::ToolCallUpdateFields, from: &acp::ToolCallUpdateFields) {
    fn over<T: Clone>(into: &mut Option<T>, from: &Option<T>) {
        if from.is_some() {
            into.clone_from(from);
        }
    }
    over(&mut into.kind, &from.kind);
    over(&mut into.status, &from.status);
    over(&mut into.title, &from.title);
    over(&mut into.name, &from.name);
    over(&mut into.content, &from.content);
    over(&mut into.locations, &from.locations);
    over(&mut into.raw_input, &from.raw_input);
    over(&mut into.raw_output, &from.raw_output);
}

/// The Arbor tool a call is, for rules and policies: the agent's own name when it says
/// (Claude Code's `_meta.claudeCode.toolName`), else its kind's; and whether it may change things.
fn tool_of(fields: &acp::ToolCallUpdateFields, named: Option<&str>) -> (String, ToolClass) {
    let named = named.map(str::to_string).or_else(|| fields.name.clone().filter(|n| !n.trim().is_empty()));
    let (by_kind, class) = match fields.kind {
        Some(acp::ToolKind::Read) => ("Read", ToolClass::ReadOnly),
        Some(acp::ToolKind::Search) => ("Grep", ToolClass::ReadOnly),
        Some(acp::ToolKind::Think) => ("Think", ToolClass::ReadOnly),
        Some(acp::ToolKind::Fetch) => ("WebFetch", ToolClass::ReadOnly),
        // A whole file (its content, or a diff from nothing) is what Arbor calls a Write.
        Some(acp::ToolKind::Edit) if writes_whole(fields) => ("Write", ToolClass::Mutating),
        Some(acp::ToolKind::Edit) => ("Edit", ToolClass::Mutating),
        Some(acp::ToolKind::Delete) => ("Delete", ToolClass::Mutating),
        Some(acp::ToolKind::Move) => ("Move", ToolClass::Mutating),
        Some(acp::ToolKind::Execute) => ("Bash", ToolClass::Mutating),
        _ => ("Tool", ToolClass::Mutating),
    };
    let title = fields
        .title
        .as_deref()
        .and_then(|t| t.split_whitespace().next())
        .filter(|w| w.chars().all(char::is_alphanumeric));
    let name = named
        .or_else(|| (fields.kind.is_none()).then(|| title.map(str::to_string)).flatten())
        .unwrap_or_else(|| by_kind.to_string());
    (name, class)
}

/// An edit that gives the whole file: `content` in its input, or a diff from no file.
fn writes_whole(fields: &acp::ToolCallUpdateFields) -> bool {
    let input = fields.raw_input.as_ref();
    let whole_input =
        input.is_some_and(|i| i.get("content").is_some_and(Value::is_string) && i.get("old_string").is_none());
    let new_file =
        fields.content.iter().flatten().any(|c| matches!(c, acp::ToolCallContent::Diff(d) if d.old_text.is_none()));
    whole_input || new_file
}

/// What the person sees on the card: the file before and after, or the command.
fn preview_of(fields: &acp::ToolCallUpdateFields, args: &Value, root: &std::path::Path) -> Option<Preview> {
    let diff = fields.content.iter().flatten().find_map(|c| match c {
        acp::ToolCallContent::Diff(d) => Some(d),
        _ => None,
    });
    if let Some(d) = diff {
        let path = d.path.strip_prefix(root).unwrap_or(&d.path).display().to_string();
        return Some(Preview::from(ApprovalPreview::File {
            path,
            before: d.old_text.clone(),
            after: Some(d.new_text.clone()),
            note: None,
        }));
    }
    let command = args.get("command").and_then(Value::as_str)?;
    Some(Preview::from(ApprovalPreview::Command {
        command: command.to_string(),
        cwd: root.display().to_string(),
        description: args.get("description").and_then(Value::as_str).map(str::to_string),
        sandbox: None,
    }))
}

/// A call's result as text: its text blocks, and a line per file it changed.
fn content_text(content: &[acp::ToolCallContent], terminals: &super::terminal::Terminals) -> String {
    content
        .iter()
        .filter_map(|c| match c {
            acp::ToolCallContent::Content(c) => match &c.content {
                acp::ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            },
            acp::ToolCallContent::Diff(d) => Some(format!("Edited {}", d.path.display())),
            // A command's output, as its terminal holds it.
            acp::ToolCallContent::Terminal(t) => {
                Some(terminals.text_of(&t.terminal_id.0).unwrap_or_else(|| format!("[terminal {}]", t.terminal_id.0)))
            }
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
