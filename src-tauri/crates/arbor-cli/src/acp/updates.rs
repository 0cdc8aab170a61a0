//! Arbor's event stream as ACP `session/update`s: one translator per session, fed
//! every event in order (live, or a stored session replayed for `session/load`).
//! Subagents become child sessions (announced with `subagent_update` before any
//! of their traffic) when the client opted in; otherwise only the parent's Task
//! call shows, as it does for a model.

use crate::printer::summarize_args;
use agent_client_protocol::v1::schema as acp;
use arbor_protocol::{AgentEvent, AgentId, AgentStatus, ApprovalPreview, EventKind, MessageFrom, TASK_TOOL};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The most of one call's output an update carries: its tail, as a terminal shows it.
const OUTPUT_TAIL: usize = 64 * 1024;

/// Where a subagent's traffic goes on the wire.
pub fn child_session_id(session: &str, agent: &AgentId) -> String {
    format!("{session}/{agent}")
}

/// One session's translation state.
pub struct Translator {
    session: String,
    main: AgentId,
    subagents: bool,
    replay: bool,
    /// Agents whose traffic is routed (the main agent, and announced children).
    routes: HashMap<AgentId, String>,
    /// The session each child was announced on (its parent's): its state changes go there.
    announced_on: HashMap<AgentId, String>,
    /// Agents whose current message or thoughts arrived in chunks (the whole text then repeats it).
    streamed: HashSet<(AgentId, Stream)>,
    /// What each call's output has been so far (its tail).
    outputs: HashMap<String, String>,
    /// Calls that showed a diff: their result keeps it.
    diffs: HashMap<String, Vec<acp::ToolCallContent>>,
    /// The main agent's window, once known, for usage updates.
    window: Option<u64>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Stream {
    Message,
    Thoughts,
}

impl Translator {
    /// `subagents`: the client understands child sessions. `replay`: the events are a stored
    /// session's (the person's own prompts are shown too, which live they are not: the client sent them).
    pub fn new(session: &str, main: AgentId, subagents: bool, replay: bool) -> Self {
        let mut routes = HashMap::new();
        routes.insert(main.clone(), session.to_string());
        Self {
            session: session.to_string(),
            main,
            subagents,
            replay,
            routes,
            announced_on: HashMap::new(),
            streamed: HashSet::new(),
            outputs: HashMap::new(),
            diffs: HashMap::new(),
            window: None,
        }
    }

    /// The ACP session an agent's traffic (and its permission requests) belongs to: its own
    /// child session, or, for a client that did not opt in, the main session.
    pub fn route(&self, agent: &AgentId) -> String {
        self.routes.get(agent).cloned().unwrap_or_else(|| self.session.clone())
    }

    fn shown(&self, agent: &AgentId) -> bool {
        self.routes.contains_key(agent)
    }

    /// The updates `ev` makes, in order.
    pub fn translate(&mut self, ev: &AgentEvent) -> Vec<acp::SessionNotification> {
        let mut out = Vec::new();
        let agent = &ev.agent_id;
        if let EventKind::AgentStarted(s) = &ev.kind
            && let Some(parent) = &s.parent_id
            && self.subagents
            && self.shown(parent)
        {
            let child = child_session_id(&self.session, agent);
            self.routes.insert(agent.clone(), child.clone());
            let parent_route = self.route(parent);
            self.announced_on.insert(agent.clone(), parent_route.clone());
            let kind = s.subagent_type.clone().unwrap_or_else(|| arbor_protocol::GENERAL_PURPOSE.to_string());
            let announce = acp::SubagentUpdate::new(child.clone())
                .title(s.description.clone())
                .description(format!("{kind} · {}", s.model))
                .capabilities(acp::SubagentSessionCapabilities::new().cancel(acp::SessionCancelCapabilities::new()))
                .state(acp::StateUpdate::Running(acp::RunningStateUpdate::new()));
            out.push(note(&parent_route, acp::SessionUpdate::SubagentUpdate(announce)));
            if let Some(call) = &s.parent_call_id {
                // The schema's session reference, and the same in `_meta` for clients whose
                // schema has no such content yet (the TypeScript SDK 2.4 drops it).
                let link = acp::ToolCallUpdateFields::new()
                    .content(vec![acp::ToolCallContent::Session(acp::SessionReference::new(child.clone()))]);
                let mut meta = serde_json::Map::new();
                meta.insert("arbor".into(), serde_json::json!({ "subagentSessionId": child }));
                let update = acp::ToolCallUpdate::new(call.clone(), link).meta(meta);
                out.push(note(&parent_route, acp::SessionUpdate::ToolCallUpdate(update)));
            }
            return out;
        }
        if !self.shown(agent) {
            return out;
        }
        let route = self.route(agent);
        let is_main = *agent == self.main;
        match &ev.kind {
            // Live, the client sent the person's prompt itself.
            EventKind::UserMessage(m) if self.replay || !is_main || m.from != MessageFrom::Person => {
                out.push(note(&route, acp::SessionUpdate::UserMessageChunk(chunk(&m.content))));
            }
            EventKind::ResponseChunk(t) => {
                self.streamed.insert((agent.clone(), Stream::Message));
                out.push(note(&route, acp::SessionUpdate::AgentMessageChunk(chunk(&t.content))));
            }
            EventKind::Response(t) => {
                let whole = self.unstreamed(agent, Stream::Message, &t.content);
                out.extend(whole.map(|t| note(&route, acp::SessionUpdate::AgentMessageChunk(chunk(t)))));
            }
            EventKind::ThoughtsChunk(t) => {
                self.streamed.insert((agent.clone(), Stream::Thoughts));
                out.push(note(&route, acp::SessionUpdate::AgentThoughtChunk(chunk(&t.content))));
            }
            EventKind::Thoughts(t) => {
                let whole = self.unstreamed(agent, Stream::Thoughts, &t.content);
                out.extend(whole.map(|t| note(&route, acp::SessionUpdate::AgentThoughtChunk(chunk(t)))));
            }
            EventKind::ToolCall(c) => {
                let diff = diff_of(&c.tool_name, &c.tool_args, None);
                if !diff.is_empty() {
                    self.diffs.insert(c.call_id.clone(), diff.clone());
                }
                let mcp = c.mcp.as_ref().map(|m| (m.server.as_str(), m.tool.as_str()));
                let call = acp::ToolCall::new(c.call_id.clone(), title(&c.tool_name, &c.tool_args, mcp))
                    .kind(kind(&c.tool_name))
                    .status(acp::ToolCallStatus::Pending)
                    .locations(locations(&c.tool_args))
                    .raw_input(c.tool_args.clone())
                    .content(diff);
                out.push(note(&route, acp::SessionUpdate::ToolCall(call)));
            }
            EventKind::ApprovalRequest(r) => {
                // The preview has the whole file before and after: a truer diff than the arguments.
                if let Some(ApprovalPreview::File { .. }) = &r.preview {
                    self.diffs.insert(r.call_id.clone(), diff_of(&r.tool_name, &r.tool_args, r.preview.as_ref()));
                }
            }
            EventKind::ToolOutputChunk(c) => {
                let so_far = self.outputs.entry(c.call_id.clone()).or_default();
                so_far.push_str(&c.content);
                keep_tail(so_far);
                let fields = acp::ToolCallUpdateFields::new()
                    .status(acp::ToolCallStatus::InProgress)
                    .content(vec![text_content(so_far)]);
                out.push(note(
                    &route,
                    acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(c.call_id.clone(), fields)),
                ));
            }
            EventKind::ToolOutput(o) => {
                self.outputs.remove(&o.call_id);
                let mut shown = o.content.clone();
                keep_tail(&mut shown);
                let mut content = self.diffs.remove(&o.call_id).filter(|_| !o.is_error).unwrap_or_default();
                content.push(text_content(&shown));
                let status = if o.is_error { acp::ToolCallStatus::Failed } else { acp::ToolCallStatus::Completed };
                let fields =
                    acp::ToolCallUpdateFields::new().status(status).content(content).raw_output(Value::String(shown));
                out.push(note(
                    &route,
                    acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(o.call_id.clone(), fields)),
                ));
            }
            EventKind::Plan(p) => out.push(note(&route, acp::SessionUpdate::Plan(plan_of(p)))),
            EventKind::ContextWindow(w) if is_main => self.window = Some(w.tokens),
            EventKind::Usage(u) if is_main => {
                if let Some(size) = self.window {
                    // In use as Arbor's own figure has it (the agent's `context_used`).
                    let mut update = acp::UsageUpdate::new(u.context_tokens(), size);
                    if let Some(cost) = u.cost_usd {
                        update = update.cost(acp::Cost::new(cost, "USD"));
                    }
                    out.push(note(&route, acp::SessionUpdate::UsageUpdate(update)));
                }
            }
            EventKind::AgentStatus(s) if !is_main => {
                let state = match s.status {
                    AgentStatus::WaitingApproval => {
                        Some(acp::StateUpdate::RequiresAction(acp::RequiresActionStateUpdate::new()))
                    }
                    AgentStatus::Running => Some(acp::StateUpdate::Running(acp::RunningStateUpdate::new())),
                    _ => None,
                };
                if let Some(state) = state {
                    out.extend(self.child_state(agent, state));
                }
            }
            EventKind::AgentFinished(f) if !is_main => {
                let idle = acp::IdleStateUpdate::new().stop_reason(idle_reason(f.status, f.error.as_deref()));
                out.extend(self.child_state(agent, acp::StateUpdate::Idle(idle)));
            }
            _ => {}
        }
        out
    }

    /// A whole message or thought to send as one chunk when none of it was streamed
    /// (the stream, if any, is over either way).
    fn unstreamed<'t>(&mut self, agent: &AgentId, stream: Stream, text: &'t str) -> Option<&'t str> {
        let streamed = self.streamed.remove(&(agent.clone(), stream));
        (!streamed && !text.is_empty()).then_some(text)
    }

    /// A child's new state, sent on its parent's session.
    fn child_state(&self, agent: &AgentId, state: acp::StateUpdate) -> Option<acp::SessionNotification> {
        let child = self.routes.get(agent)?;
        let parent = self.announced_on.get(agent)?;
        Some(note(parent, acp::SessionUpdate::SubagentUpdate(acp::SubagentUpdate::new(child.clone()).state(state))))
    }
}

fn note(session: &str, update: acp::SessionUpdate) -> acp::SessionNotification {
    acp::SessionNotification::new(session.to_string(), update)
}

fn chunk(text: &str) -> acp::ContentChunk {
    acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(text)))
}

fn text_content(text: &str) -> acp::ToolCallContent {
    acp::ToolCallContent::from(acp::ContentBlock::Text(acp::TextContent::new(text)))
}

/// Keeps the last [`OUTPUT_TAIL`] bytes (on a character boundary), marked as cut.
fn keep_tail(s: &mut String) {
    let cut = arbor_protocol::text::keep_last(s, OUTPUT_TAIL);
    if cut > 0 {
        *s = format!("… [{cut} earlier bytes left out]\n{s}");
    }
}

/// A tool call's one-line title, as the terminal prints it.
/// An MCP tool's call names its server and tool (as its event says: `mcp`, or the approval's preview).
pub fn title(tool: &str, args: &Value, mcp: Option<(&str, &str)>) -> String {
    match mcp {
        Some((server, name)) => format!("{server} · {name} {}", summarize_args(tool, args)),
        None => format!("{tool} {}", summarize_args(tool, args)),
    }
}

/// ACP's kind for an Arbor tool (editors pick an icon by it).
pub fn kind(tool: &str) -> acp::ToolKind {
    match tool {
        "Read" => acp::ToolKind::Read,
        "Write" | "Edit" => acp::ToolKind::Edit,
        "Glob" | "Grep" => acp::ToolKind::Search,
        "Bash" => acp::ToolKind::Execute,
        t if t == TASK_TOOL => acp::ToolKind::Think,
        _ => acp::ToolKind::Other,
    }
}

fn locations(args: &Value) -> Vec<acp::ToolCallLocation> {
    ["file_path", "path"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .map(|p| vec![acp::ToolCallLocation::new(p)])
        .unwrap_or_default()
}

/// What a Write or Edit would change, from its arguments (or the approval's preview when there is one).
pub fn diff_of(tool: &str, args: &Value, preview: Option<&ApprovalPreview>) -> Vec<acp::ToolCallContent> {
    if let Some(ApprovalPreview::File { path, before, after: Some(after), .. }) = preview {
        return vec![acp::ToolCallContent::Diff(acp::Diff::new(path.clone(), after.clone()).old_text(before.clone()))];
    }
    let s = |k: &str| args.get(k).and_then(Value::as_str);
    match (tool, s("file_path")) {
        ("Write", Some(path)) => {
            vec![acp::ToolCallContent::Diff(acp::Diff::new(path, s("content").unwrap_or_default()))]
        }
        ("Edit", Some(path)) => vec![acp::ToolCallContent::Diff(
            acp::Diff::new(path, s("new_string").unwrap_or_default()).old_text(s("old_string").map(str::to_string)),
        )],
        _ => Vec::new(),
    }
}

/// How an agent's end reads as ACP's stop reason: one rule for a prompt's end and a child's
/// idle state. None: it failed (an error, with its message).
pub fn stop_reason(status: AgentStatus) -> Option<acp::StopReason> {
    Some(match status {
        AgentStatus::MaxTurns | AgentStatus::BudgetExhausted => acp::StopReason::MaxTurnRequests,
        AgentStatus::Truncated => acp::StopReason::MaxTokens,
        AgentStatus::Cancelled | AgentStatus::Interrupted => acp::StopReason::Cancelled,
        AgentStatus::Failed => return None,
        _ => acp::StopReason::EndTurn,
    })
}

/// Why a child's run ended, as ACP's idle state says it.
fn idle_reason(status: AgentStatus, error: Option<&str>) -> acp::IdleStopReason {
    match stop_reason(status) {
        Some(acp::StopReason::MaxTurnRequests) => acp::IdleStopReason::MaxTurnRequests,
        Some(acp::StopReason::MaxTokens) => acp::IdleStopReason::MaxTokens,
        Some(acp::StopReason::Cancelled) => acp::IdleStopReason::Cancelled,
        Some(_) => acp::IdleStopReason::EndTurn,
        None => acp::IdleStopReason::Error(
            acp::ErrorStopReason::new().error(acp::Error::new(-32603, error.unwrap_or("the agent failed").to_string())),
        ),
    }
}

/// A plan as ACP sends it: the whole list each time, as Arbor keeps it.
fn plan_of(p: &arbor_protocol::Plan) -> acp::Plan {
    use arbor_protocol::{PlanPriority, PlanStatus};
    let entries = p
        .entries
        .iter()
        .map(|e| {
            let priority = match e.priority {
                PlanPriority::High => acp::PlanEntryPriority::High,
                PlanPriority::Medium => acp::PlanEntryPriority::Medium,
                PlanPriority::Low => acp::PlanEntryPriority::Low,
            };
            let status = match e.status {
                PlanStatus::Pending => acp::PlanEntryStatus::Pending,
                PlanStatus::InProgress => acp::PlanEntryStatus::InProgress,
                PlanStatus::Completed => acp::PlanEntryStatus::Completed,
            };
            acp::PlanEntry::new(e.content.clone(), priority, status)
        })
        .collect();
    acp::Plan::new(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{AgentStarted, SessionId, Text, ToolCall};
    use serde_json::json;

    fn ev(agent: &str, kind: EventKind) -> AgentEvent {
        AgentEvent { agent_id: AgentId(agent.into()), session_id: SessionId("sess-1".into()), seq: 0, ts: 0, kind }
    }

    fn started(parent: &str) -> EventKind {
        EventKind::AgentStarted(AgentStarted {
            parent_id: Some(AgentId(parent.into())),
            parent_call_id: Some("call-task".into()),
            depth: 1,
            description: "Check".into(),
            subagent_type: None,
            model: "m".into(),
            provider: "anthropic".into(),
            background: false,
            call_seq: None,
            fork: None,
            external: None,
        })
    }

    fn kinds(n: &[acp::SessionNotification]) -> Vec<String> {
        n.iter()
            .map(|n| serde_json::to_value(&n.update).unwrap()["sessionUpdate"].as_str().unwrap().to_string())
            .collect()
    }

    #[test]
    fn a_plan_goes_to_the_client_whole_under_its_agents_session() {
        use arbor_protocol::{Plan, PlanEntry, PlanPriority, PlanStatus};
        let mut t = Translator::new("sess-1", AgentId("agent-main".into()), true, false);
        t.translate(&ev("agent-kid", started("agent-main")));
        let step = |content: &str, status| PlanEntry { content: content.into(), priority: PlanPriority::Low, status };
        let plan = Plan { entries: vec![step("Read", PlanStatus::Completed), step("Write", PlanStatus::InProgress)] };
        let sent = t.translate(&ev("agent-kid", EventKind::Plan(plan)));
        assert_eq!(kinds(&sent), ["plan"]);
        assert_eq!(sent[0].session_id.0.as_ref(), "sess-1/agent-kid");
        let wire = serde_json::to_value(&sent[0].update).unwrap();
        assert_eq!(
            wire["entries"],
            json!([
                {"content": "Read", "priority": "low", "status": "completed"},
                {"content": "Write", "priority": "low", "status": "in_progress"}
            ])
        );
    }

    #[test]
    fn a_client_that_did_not_opt_in_sees_only_the_main_agent() {
        let mut t = Translator::new("sess-1", AgentId("agent-main".into()), false, false);
        assert!(t.translate(&ev("agent-child", started("agent-main"))).is_empty());
        let said = ev("agent-child", EventKind::ResponseChunk(Text { content: "hidden".into() }));
        assert!(t.translate(&said).is_empty(), "a child's traffic is the parent's Task call's business");
        assert_eq!(t.route(&AgentId("agent-child".into())), "sess-1", "its approvals come on the main session");
    }

    #[test]
    fn children_are_announced_before_their_traffic_and_route_under_their_own_id() {
        let mut t = Translator::new("sess-1", AgentId("agent-main".into()), true, false);
        let first = t.translate(&ev("agent-child", started("agent-main")));
        assert_eq!(kinds(&first), ["subagent_update", "tool_call_update"]);
        assert!(first.iter().all(|n| n.session_id.0.as_ref() == "sess-1"));
        let grandchild = t.translate(&ev("agent-grand", started("agent-child")));
        assert_eq!(
            grandchild[0].session_id.0.as_ref(),
            "sess-1/agent-child",
            "announced on its parent's child session"
        );
        let said = t.translate(&ev("agent-grand", EventKind::ResponseChunk(Text { content: "hi".into() })));
        assert_eq!(said[0].session_id.0.as_ref(), "sess-1/agent-grand");
    }

    #[test]
    fn a_whole_message_is_sent_only_when_it_was_not_streamed() {
        let mut t = Translator::new("sess-1", AgentId("agent-main".into()), false, false);
        let main = |k| ev("agent-main", k);
        assert_eq!(t.translate(&main(EventKind::ResponseChunk(Text { content: "a".into() }))).len(), 1);
        assert!(t.translate(&main(EventKind::Response(Text { content: "a".into() }))).is_empty());
        assert_eq!(
            kinds(&t.translate(&main(EventKind::Response(Text { content: "b".into() })))),
            ["agent_message_chunk"]
        );
    }

    #[test]
    fn a_calls_output_is_bounded_to_its_tail() {
        let mut t = Translator::new("sess-1", AgentId("agent-main".into()), false, false);
        let call =
            ToolCall { call_id: "c".into(), tool_name: "Bash".into(), tool_args: json!({"command": "yes"}), mcp: None };
        t.translate(&ev("agent-main", EventKind::ToolCall(call)));
        let mut last = Vec::new();
        for _ in 0..40 {
            let chunk = arbor_protocol::ToolOutputChunk { call_id: "c".into(), content: "y\n".repeat(2048) };
            last = t.translate(&ev("agent-main", EventKind::ToolOutputChunk(chunk)));
        }
        let shown =
            serde_json::to_value(&last[0].update).unwrap()["content"][0]["content"]["text"].as_str().unwrap().len();
        assert!(shown <= OUTPUT_TAIL + 64, "{shown}");
    }
}
