//! The one event enum (design.md §3.1): everything the runtime tells its
//! subscribers (the store, the UI, the CLI printer, tests), one ordered stream
//! per session.

use crate::{
    AgentId, AgentStatus, ApprovalRequest, ApprovalResolved, ApprovalStale, DecidedBy, McpStatus, McpToolRef,
    RuleRevoked, SessionId,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One event. `seq` is per session and gap-free; `ts` is milliseconds since the
/// Unix epoch from the session's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct AgentEvent {
    pub agent_id: AgentId,
    pub session_id: SessionId,
    pub seq: u64,
    pub ts: i64,
    #[serde(flatten)]
    pub kind: EventKind,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    AgentStarted(AgentStarted),
    AgentStatus(StatusChanged),
    /// Text given to the agent as a user message: its task (the main agent's prompt,
    /// a Task call's or a delegation's prompt), a person's message, or Arbor's request
    /// to carry on; `from` says which. Announced when the agent takes it into its
    /// context, not when it was sent. Results delivered as notifications are
    /// `task_notification`s instead.
    UserMessage(UserMessage),
    ThoughtsChunk(Text),
    Thoughts(Text),
    ResponseChunk(Text),
    Response(Text),
    /// A piece of a tool call's input as the model writes it: the call shows from its
    /// first piece; the `tool_call` that follows carries the whole input.
    ToolInputChunk(ToolInputChunk),
    ToolCall(ToolCall),
    ToolOutputChunk(ToolOutputChunk),
    ToolOutput(ToolOutput),
    ApprovalRequest(ApprovalRequest),
    /// The file a waiting Write or Edit request previews changed on disk.
    ApprovalStale(ApprovalStale),
    ApprovalResolved(ApprovalResolved),
    /// A person withdrew a standing rule: the next call it covered asks again.
    RuleRevoked(RuleRevoked),
    Usage(Usage),
    TaskNotification(TaskNotification),
    /// The agent's connection to an MCP server started, failed or closed.
    McpStatus(McpStatus),
    /// A file the agent's call created, changed or deleted (or a person's revert of its changes).
    FileChanged(crate::FileChanged),
    /// The agent's git worktree was made, finished, merged, kept or discarded.
    Worktree(crate::WorktreeUpdate),
    /// The agent's budget (covering its subtree), when it starts or a person changes it.
    BudgetSet(crate::BudgetSet),
    /// The agent's subtree passed 80% of a limit of its budget.
    BudgetWarning(crate::BudgetWarning),
    /// A row of an imported transcript that no other event holds, kept as it was.
    ImportedEntry(ImportedEntry),
    /// The agent's model's context window, when its run starts knowing it (or a new figure).
    ContextWindow(crate::ContextWindow),
    /// The agent's conversation was compacted to fit its model's window; the transcript keeps it all.
    ContextCompacted(crate::ContextCompacted),
    /// A hook command ran (Claude Code's hooks, from settings or an agent file), and what it decided.
    HookRan(crate::HookRan),
    /// The agent's plan, whole, replacing the one before (an external ACP agent's).
    Plan(crate::Plan),
    AgentFinished(AgentFinished),
}

/// The `type` tag of each event, as a value: what the store indexes, the CLI
/// prints and the UI filters on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum EventType {
    AgentStarted,
    AgentStatus,
    UserMessage,
    ThoughtsChunk,
    Thoughts,
    ResponseChunk,
    Response,
    ToolInputChunk,
    ToolCall,
    ToolOutputChunk,
    ToolOutput,
    ApprovalRequest,
    ApprovalStale,
    ApprovalResolved,
    RuleRevoked,
    Usage,
    TaskNotification,
    McpStatus,
    FileChanged,
    Worktree,
    BudgetSet,
    BudgetWarning,
    ImportedEntry,
    ContextWindow,
    ContextCompacted,
    HookRan,
    Plan,
    AgentFinished,
}

impl EventType {
    pub const ALL: [EventType; 28] = [
        Self::AgentStarted,
        Self::AgentStatus,
        Self::UserMessage,
        Self::ThoughtsChunk,
        Self::Thoughts,
        Self::ResponseChunk,
        Self::Response,
        Self::ToolInputChunk,
        Self::ToolCall,
        Self::ToolOutputChunk,
        Self::ToolOutput,
        Self::ApprovalRequest,
        Self::ApprovalStale,
        Self::ApprovalResolved,
        Self::RuleRevoked,
        Self::Usage,
        Self::TaskNotification,
        Self::McpStatus,
        Self::FileChanged,
        Self::Worktree,
        Self::BudgetSet,
        Self::BudgetWarning,
        Self::ImportedEntry,
        Self::ContextWindow,
        Self::ContextCompacted,
        Self::HookRan,
        Self::Plan,
        Self::AgentFinished,
    ];

    /// The events of an agent's transcript (a page of it in review, an export).
    /// Chunks are listed too: those no aggregate event repeated are what an
    /// interrupted stream left.
    pub const TRANSCRIPT: [EventType; 15] = [
        Self::UserMessage,
        Self::Thoughts,
        Self::Response,
        Self::ToolCall,
        Self::ToolOutput,
        Self::ThoughtsChunk,
        Self::ResponseChunk,
        Self::ToolInputChunk,
        Self::ToolOutputChunk,
        Self::McpStatus,
        Self::FileChanged,
        Self::ImportedEntry,
        Self::ContextCompacted,
        Self::HookRan,
        Self::Plan,
    ];

    /// The events a session's tree is built from (every agent's, whichever is selected).
    pub const SKELETON: [EventType; 12] = [
        Self::AgentStarted,
        Self::AgentStatus,
        Self::Usage,
        Self::ApprovalRequest,
        Self::ApprovalStale,
        Self::ApprovalResolved,
        Self::RuleRevoked,
        Self::TaskNotification,
        Self::Worktree,
        Self::BudgetSet,
        Self::BudgetWarning,
        Self::AgentFinished,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

impl EventKind {
    pub fn event_type(&self) -> EventType {
        match self {
            Self::AgentStarted(_) => EventType::AgentStarted,
            Self::AgentStatus(_) => EventType::AgentStatus,
            Self::UserMessage(_) => EventType::UserMessage,
            Self::ThoughtsChunk(_) => EventType::ThoughtsChunk,
            Self::Thoughts(_) => EventType::Thoughts,
            Self::ResponseChunk(_) => EventType::ResponseChunk,
            Self::Response(_) => EventType::Response,
            Self::ToolInputChunk(_) => EventType::ToolInputChunk,
            Self::ToolCall(_) => EventType::ToolCall,
            Self::ToolOutputChunk(_) => EventType::ToolOutputChunk,
            Self::ToolOutput(_) => EventType::ToolOutput,
            Self::ApprovalRequest(_) => EventType::ApprovalRequest,
            Self::ApprovalStale(_) => EventType::ApprovalStale,
            Self::ApprovalResolved(_) => EventType::ApprovalResolved,
            Self::RuleRevoked(_) => EventType::RuleRevoked,
            Self::Usage(_) => EventType::Usage,
            Self::TaskNotification(_) => EventType::TaskNotification,
            Self::McpStatus(_) => EventType::McpStatus,
            Self::FileChanged(_) => EventType::FileChanged,
            Self::Worktree(_) => EventType::Worktree,
            Self::BudgetSet(_) => EventType::BudgetSet,
            Self::BudgetWarning(_) => EventType::BudgetWarning,
            Self::ImportedEntry(_) => EventType::ImportedEntry,
            Self::ContextWindow(_) => EventType::ContextWindow,
            Self::ContextCompacted(_) => EventType::ContextCompacted,
            Self::HookRan(_) => EventType::HookRan,
            Self::Plan(_) => EventType::Plan,
            Self::AgentFinished(_) => EventType::AgentFinished,
        }
    }

    /// The `type` tag as it appears on the wire.
    pub fn type_name(&self) -> &'static str {
        self.event_type().as_str()
    }

    /// A piece of a stream (thinking, a response, one call's input or output), which
    /// [`EventKind::absorb`] may merge with the pieces after it.
    pub fn is_chunk(&self) -> bool {
        matches!(
            self,
            Self::ResponseChunk(_) | Self::ThoughtsChunk(_) | Self::ToolInputChunk(_) | Self::ToolOutputChunk(_)
        )
    }

    /// Appends `next` to this chunk when it continues the same stream (the same kind,
    /// the same call); false leaves both as they were. The one rule for merging
    /// pieces, wherever they are merged: the runtime before they are numbered, a
    /// front end's frames after.
    pub fn absorb(&mut self, next: &EventKind) -> bool {
        match (self, next) {
            (Self::ResponseChunk(a), Self::ResponseChunk(b)) | (Self::ThoughtsChunk(a), Self::ThoughtsChunk(b)) => {
                a.content.push_str(&b.content);
                true
            }
            (Self::ToolOutputChunk(a), Self::ToolOutputChunk(b)) if a.call_id == b.call_id => {
                a.content.push_str(&b.content);
                true
            }
            (Self::ToolInputChunk(a), Self::ToolInputChunk(b)) if a.call_id == b.call_id => {
                a.content.push_str(&b.content);
                // Some servers complete a call's name over several pieces: the latest is the whole.
                a.tool_name.clone_from(&b.tool_name);
                true
            }
            _ => false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct AgentStarted {
    /// None for the main agent.
    pub parent_id: Option<AgentId>,
    /// The Task call that spawned this agent.
    pub parent_call_id: Option<String>,
    /// 0 for the main agent, 1 for its children, and so on.
    pub depth: u32,
    pub description: String,
    pub subagent_type: Option<String>,
    /// The model actually used.
    pub model: String,
    pub provider: String,
    pub background: bool,
    /// The `seq` of its parent's `tool_call` that started it: its place among its siblings,
    /// which start in any order when called at once. None when a person delegated it.
    #[serde(default)]
    pub call_seq: Option<u64>,
    /// Set when it is a fork of its parent (a Task call with `fork: true`): it started
    /// from its parent's conversation, system prompt and tools, not from a blank page.
    #[serde(default)]
    pub fork: Option<Fork>,
    /// Set when another program runs it (an external ACP agent): which, and in what.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalAgent>,
}

/// An agent another program runs, Arbor being its ACP client.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ExternalAgent {
    /// The command line it was started as (never its environment).
    pub command: String,
    /// What its own process runs in; None: outside Arbor's sandbox (its agent file asks for
    /// none: the agent needs its network and its own config). Commands it runs through
    /// Arbor's terminal run in the node's sandbox either way.
    #[serde(default)]
    pub sandbox: Option<crate::CommandSandbox>,
}

/// What a forked subagent started from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Fork {
    /// How many of its parent's messages it carries before its task.
    pub messages: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct StatusChanged {
    pub status: AgentStatus,
}

/// Text: a user message, or streamed or complete thinking or response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Text {
    pub content: String,
}

/// A message given to an agent as its user turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct UserMessage {
    pub content: String,
    /// Events stored before this field was added were all shown as a person's.
    #[serde(default)]
    pub from: MessageFrom,
}

/// Who wrote a user message: what the transcript shows it as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum MessageFrom {
    /// A person: the main agent's prompts, Message…, Delegate…, a resume with their text.
    #[default]
    Person,
    /// The parent agent, through its Task call.
    Parent,
    /// Arbor itself: the request to carry on when a run is resumed or a budget raised.
    Arbor,
}

impl MessageFrom {
    pub const ALL: [MessageFrom; 3] = [Self::Person, Self::Parent, Self::Arbor];

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

impl UserMessage {
    pub fn new(content: impl Into<String>, from: MessageFrom) -> Self {
        Self { content: content.into(), from }
    }
}

/// A piece of a tool call's input (raw JSON text, as the model writes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ToolInputChunk {
    pub call_id: String,
    pub tool_name: String,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ToolCall {
    pub call_id: String,
    pub tool_name: String,
    pub tool_args: Value,
    /// The server and its own name for the tool, when the tool is an MCP
    /// server's: what a person reads instead of `mcp__<server>__<tool>`.
    #[serde(default)]
    pub mcp: Option<McpToolRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ToolOutputChunk {
    pub call_id: String,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ToolOutput {
    pub call_id: String,
    pub content: String,
    pub is_error: bool,
    /// What let the call run or refused it; None when it never got that far
    /// (its arguments were unusable, or no such tool).
    #[serde(default)]
    pub decided_by: Option<DecidedBy>,
}

/// Token usage of one model response (not cumulative).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    /// When the model's price is known.
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// Adds another's figures (saturating: a transcript from elsewhere may hold absurd ones).
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self.cache_read_tokens.saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self.cache_write_tokens.saturating_add(other.cache_write_tokens);
        self.cost_usd = match (self.cost_usd, other.cost_usd) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }

    pub fn total_tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens
    }

    /// What the request put in the model's window: its input, cache included.
    pub fn context_tokens(&self) -> u64 {
        self.input_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}

/// A row of another tool's transcript (an attachment, a row kind Arbor does not know) as it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ImportedEntry {
    /// Where it came from and what it was: `attachment: environment`, or the row's `type`.
    pub kind: String,
    /// Its text as the model saw it, or the row's JSON (cut to 16 KiB, with a note).
    pub content: String,
}

/// A background child finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct TaskNotification {
    pub task_id: AgentId,
    pub status: AgentStatus,
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct AgentFinished {
    pub status: AgentStatus,
    /// The agent's last response text, in full.
    pub result: String,
    /// Why it failed, when it failed.
    pub error: Option<String>,
    pub turns: u32,
    pub duration_ms: u64,
    /// Workspace-relative paths this agent wrote or edited.
    pub files_modified: Vec<String>,
    /// Who stopped it, when it ended `cancelled`: only a person's Stop reads "stopped by you".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped_by: Option<StoppedBy>,
}

/// Who stopped an agent that ended `cancelled`. A session that closes (the
/// window, a signal) stops nobody: its agents end `interrupted`, to be continued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum StoppedBy {
    /// A person's Stop, of it or of an agent above it.
    Person,
    /// Its parent's model, with `TaskStop`.
    Parent,
    /// Its parent's run ended (failed, stopped, out of turns) while it still ran.
    ParentEnded,
    /// A hook answered `"continue": false` (its `hook_ran` event says which, and why).
    Hook,
}

impl StoppedBy {
    /// How it reads to a person (a transcript, an export, the CLI).
    pub fn describe(self) -> &'static str {
        match self {
            Self::Person => "stopped by you",
            Self::Parent => "stopped by its parent (TaskStop)",
            Self::ParentEnded => "stopped because its parent's run ended",
            Self::Hook => "stopped by a hook",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_serialize_flat_with_a_snake_case_type_tag() {
        let ev = AgentEvent {
            agent_id: AgentId("agent-a3f2".into()),
            session_id: SessionId("s-1".into()),
            seq: 7,
            ts: 1_700_000_000_000,
            kind: EventKind::ToolOutput(ToolOutput {
                call_id: "c1".into(),
                content: "ok".into(),
                is_error: false,
                decided_by: None,
            }),
        };
        let v = serde_json::to_value(&ev).unwrap();
        assert_eq!(
            v,
            json!({"agent_id":"agent-a3f2","session_id":"s-1","seq":7,"ts":1_700_000_000_000i64,
                   "type":"tool_output","call_id":"c1","content":"ok","is_error":false,"decided_by":null})
        );
        let back: AgentEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, ev);
        assert_eq!(back.kind.type_name(), "tool_output");
    }

    /// One event of every kind: the match makes a new variant fail to compile here.
    pub(crate) fn one_of_each() -> Vec<EventKind> {
        let text = || Text { content: "x".into() };
        let mut all = Vec::new();
        for t in EventType::ALL {
            all.push(match t {
                EventType::AgentStarted => EventKind::AgentStarted(AgentStarted {
                    parent_id: None,
                    parent_call_id: None,
                    depth: 0,
                    description: "main".into(),
                    subagent_type: None,
                    model: "m".into(),
                    provider: "p".into(),
                    background: false,
                    call_seq: None,
                    fork: None,
                    external: None,
                }),
                EventType::AgentStatus => EventKind::AgentStatus(StatusChanged { status: AgentStatus::Running }),
                EventType::BudgetSet => EventKind::BudgetSet(crate::BudgetSet {
                    budget: crate::Budget { max_tokens: Some(1000), ..Default::default() },
                    origin: crate::BudgetOrigin::TaskCall,
                    carved: vec![crate::BudgetKind::Tokens],
                }),
                EventType::BudgetWarning => EventKind::BudgetWarning(crate::BudgetWarning {
                    kind: crate::BudgetKind::Tokens,
                    standing: crate::Budget { max_tokens: Some(1000), ..Default::default() }
                        .standing(crate::BudgetUse { tokens: 850, ..Default::default() }, 0),
                }),
                EventType::ImportedEntry => EventKind::ImportedEntry(ImportedEntry {
                    kind: "attachment: date".into(),
                    content: "Today's date is 2026-11-24.".into(),
                }),
                EventType::ContextWindow => EventKind::ContextWindow(crate::ContextWindow {
                    tokens: 200_000,
                    source: crate::WindowSource::Model,
                }),
                EventType::ContextCompacted => EventKind::ContextCompacted(crate::ContextCompacted {
                    trigger: crate::CompactTrigger::Overflow,
                    before_tokens: 31_830,
                    window_tokens: Some(30_000),
                    after_tokens: 9_000,
                    cleared_results: 12,
                    summarized_messages: 0,
                    summary: None,
                    usage: None,
                }),
                EventType::HookRan => EventKind::HookRan(crate::HookRan {
                    hook_event: crate::HookEvent::PreToolUse,
                    source: "/w/.claude/settings.json".into(),
                    origin: crate::HookOrigin::Workspace,
                    matcher: Some("Bash".into()),
                    command: "./guard.sh".into(),
                    call_id: Some("c1".into()),
                    exit_code: Some(2),
                    duration_ms: 12,
                    decision: crate::HookDecision::Deny,
                    message: Some("rm -rf is not allowed".into()),
                }),
                EventType::Plan => EventKind::Plan(crate::Plan {
                    entries: vec![crate::PlanEntry {
                        content: "Read the notes".into(),
                        priority: crate::PlanPriority::High,
                        status: crate::PlanStatus::InProgress,
                    }],
                }),
                EventType::Worktree => EventKind::Worktree(crate::WorktreeUpdate {
                    state: crate::WorktreeState::Ready,
                    branch: "arbor/agent-1".into(),
                    path: "/w/.git/arbor/worktrees/agent-1".into(),
                    parent_root: "/w".into(),
                    base: "abc".into(),
                    files: Vec::new(),
                    conflicts: Vec::new(),
                }),
                EventType::FileChanged => EventKind::FileChanged(crate::FileChanged {
                    change_id: "chg-1".into(),
                    call_id: Some("c".into()),
                    root: "/w".into(),
                    path: "a.txt".into(),
                    kind: crate::ChangeKind::Created,
                    before_hash: None,
                    after_hash: Some("00".into()),
                    lines_added: 1,
                    lines_removed: 0,
                    before: crate::Kept::Absent,
                    after: crate::Kept::Text { text: "x\n".into() },
                    ambiguous_with: Vec::new(),
                    revert_of: Vec::new(),
                }),
                EventType::UserMessage => EventKind::UserMessage(UserMessage::new("x", MessageFrom::Parent)),
                EventType::ThoughtsChunk => EventKind::ThoughtsChunk(text()),
                EventType::Thoughts => EventKind::Thoughts(text()),
                EventType::ResponseChunk => EventKind::ResponseChunk(text()),
                EventType::Response => EventKind::Response(text()),
                EventType::ToolCall => EventKind::ToolCall(ToolCall {
                    call_id: "c".into(),
                    tool_name: "Read".into(),
                    tool_args: json!({}),
                    mcp: None,
                }),
                EventType::ToolInputChunk => EventKind::ToolInputChunk(ToolInputChunk {
                    call_id: "c".into(),
                    tool_name: "Write".into(),
                    content: "{\"file_path\": \"a".into(),
                }),
                EventType::ToolOutputChunk => {
                    EventKind::ToolOutputChunk(ToolOutputChunk { call_id: "c".into(), content: "x".into() })
                }
                EventType::ToolOutput => EventKind::ToolOutput(ToolOutput {
                    call_id: "c".into(),
                    content: "x".into(),
                    is_error: false,
                    decided_by: Some(DecidedBy::Policy),
                }),
                EventType::ApprovalRequest => EventKind::ApprovalRequest(ApprovalRequest {
                    request_id: "r".into(),
                    call_id: "c".into(),
                    tool_name: "Write".into(),
                    tool_args: json!({}),
                    agent_path: vec!["main".into()],
                    preview: None,
                    options: Vec::new(),
                }),
                EventType::ApprovalStale => EventKind::ApprovalStale(ApprovalStale {
                    request_id: "r".into(),
                    message: "changed on disk".into(),
                }),
                EventType::ApprovalResolved => EventKind::ApprovalResolved(ApprovalResolved::withdrawn("r".into())),
                EventType::RuleRevoked => EventKind::RuleRevoked(RuleRevoked { rule_id: "rule-1".into() }),
                EventType::Usage => EventKind::Usage(Usage::default()),
                EventType::TaskNotification => EventKind::TaskNotification(TaskNotification {
                    task_id: AgentId("agent-0001".into()),
                    status: AgentStatus::Completed,
                    summary: "s".into(),
                }),
                EventType::McpStatus => EventKind::McpStatus(McpStatus {
                    server: "s".into(),
                    state: crate::McpState::Connected,
                    pid: None,
                    error: None,
                }),
                EventType::AgentFinished => EventKind::AgentFinished(AgentFinished {
                    status: AgentStatus::Completed,
                    result: String::new(),
                    error: None,
                    turns: 0,
                    duration_ms: 0,
                    files_modified: Vec::new(),
                    stopped_by: None,
                }),
            });
        }
        all
    }

    #[test]
    fn every_event_type_tag_is_the_one_serde_writes() {
        let all = one_of_each();
        assert_eq!(all.len(), EventType::ALL.len());
        for kind in all {
            let v = serde_json::to_value(&kind).unwrap();
            assert_eq!(v["type"], json!(kind.type_name()));
            assert_eq!(serde_json::to_value(kind.event_type()).unwrap(), json!(kind.type_name()));
            let back: EventKind = serde_json::from_value(v).unwrap();
            assert_eq!(back, kind);
        }
        assert!(EventType::TRANSCRIPT.iter().chain(&EventType::SKELETON).all(|t| EventType::ALL.contains(t)));
    }

    #[test]
    fn status_event_uses_snake_case_values() {
        let kind = EventKind::AgentStatus(StatusChanged { status: AgentStatus::WaitingApproval });
        let v = serde_json::to_value(&kind).unwrap();
        assert_eq!(v, json!({"type":"agent_status","status":"waiting_approval"}));
    }
}
