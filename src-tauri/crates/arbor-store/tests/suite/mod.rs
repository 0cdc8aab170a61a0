//! Shared fixtures: a store in a temporary directory and a builder of gap-free
//! synthetic sessions (a main agent and two children).

mod append;
mod export;
mod history;
mod migrations;
mod owner;
mod recover;
mod search;
mod sessions;
mod timeline;
mod transcript;

use arbor_protocol::*;
use arbor_store::{NewSession, Store};
use serde_json::json;
use tempfile::TempDir;

pub fn store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join(Store::FILE_NAME)).unwrap();
    (dir, store)
}

pub fn sid(s: &str) -> SessionId {
    SessionId(s.into())
}

pub fn aid(s: &str) -> AgentId {
    AgentId(s.into())
}

/// Begins a session as its owner would; the session stays this process's while the claim is kept.
pub fn begin(store: &Store, id: &str, started_at: i64) -> arbor_store::Claim {
    let claim = store.claim(&sid(id)).unwrap();
    store
        .begin_session(
            &NewSession {
                id: sid(id),
                workspace: format!("/work/{id}"),
                first_prompt: String::new(),
                provider: "anthropic".into(),
                model: "claude-test".into(),
                started_at,
                client: None,
            },
            &claim,
        )
        .unwrap();
    claim
}

/// Numbers events as the runtime does: seq from 1, gap-free, ts advancing.
pub struct Log {
    pub session: SessionId,
    pub seq: u64,
    pub ts: i64,
    pub events: Vec<AgentEvent>,
}

impl Log {
    pub fn new(session: &str, ts: i64) -> Self {
        Self { session: sid(session), seq: 0, ts, events: Vec::new() }
    }

    pub fn push(&mut self, agent: &AgentId, kind: EventKind) -> u64 {
        self.seq += 1;
        self.ts += 10;
        self.events.push(AgentEvent {
            agent_id: agent.clone(),
            session_id: self.session.clone(),
            seq: self.seq,
            ts: self.ts,
            kind,
        });
        self.seq
    }

    /// The events pushed since `from` (an index into `events`).
    pub fn since(&self, from: usize) -> &[AgentEvent] {
        &self.events[from..]
    }
}

pub fn started(parent: Option<&AgentId>, call: Option<&str>, depth: u32, description: &str) -> EventKind {
    EventKind::AgentStarted(AgentStarted {
        parent_id: parent.cloned(),
        parent_call_id: call.map(Into::into),
        depth,
        description: description.into(),
        subagent_type: (depth > 0).then(|| "explore".to_string()),
        model: "claude-test".into(),
        provider: "anthropic".into(),
        background: false,
        call_seq: None,
        fork: None,
        external: None,
    })
}

pub fn status(s: AgentStatus) -> EventKind {
    EventKind::AgentStatus(StatusChanged { status: s })
}

pub fn text(kind: fn(Text) -> EventKind, s: &str) -> EventKind {
    kind(Text { content: s.into() })
}

/// A person's message.
pub fn said(s: &str) -> EventKind {
    EventKind::UserMessage(arbor_protocol::UserMessage::new(s, arbor_protocol::MessageFrom::Person))
}

pub fn call(id: &str, tool: &str, args: serde_json::Value) -> EventKind {
    EventKind::ToolCall(ToolCall { call_id: id.into(), tool_name: tool.into(), tool_args: args, mcp: None })
}

pub fn output(id: &str, content: &str) -> EventKind {
    EventKind::ToolOutput(ToolOutput { call_id: id.into(), content: content.into(), is_error: false, decided_by: None })
}

pub fn output_chunk(id: &str, content: &str) -> EventKind {
    EventKind::ToolOutputChunk(ToolOutputChunk { call_id: id.into(), content: content.into() })
}

pub fn usage(input: u64, out: u64, cost: Option<f64>) -> EventKind {
    EventKind::Usage(Usage { input_tokens: input, output_tokens: out, cost_usd: cost, ..Usage::default() })
}

pub fn finished(s: AgentStatus, result: &str, error: Option<&str>, turns: u32, files: &[&str]) -> EventKind {
    EventKind::AgentFinished(AgentFinished {
        status: s,
        result: result.into(),
        error: error.map(Into::into),
        turns,
        duration_ms: u64::from(turns) * 1000,
        files_modified: files.iter().map(|f| f.to_string()).collect(),
        stopped_by: None,
    })
}

pub const MAIN: &str = "agent-0000aaaa";
pub const READER: &str = "agent-0000bbbb";
pub const WRITER: &str = "agent-0000cccc";

/// A finished session: the main agent delegates to a reader (completes) and a
/// background writer (fails), gets a notification, and completes.
pub fn synthetic(session: &str, started_at: i64) -> Log {
    let (m, r, w) = (aid(MAIN), aid(READER), aid(WRITER));
    let mut log = Log::new(session, started_at);
    log.push(&m, started(None, None, 0, "Fix the bug"));
    log.push(&m, status(AgentStatus::Running));
    log.push(&m, said("Fix the parser bug in lexer.rs"));
    log.push(&m, text(EventKind::ThoughtsChunk, "Let me "));
    log.push(&m, text(EventKind::ThoughtsChunk, "look"));
    log.push(&m, text(EventKind::Thoughts, "Let me look"));
    log.push(&m, text(EventKind::ResponseChunk, "I'll dele"));
    log.push(&m, text(EventKind::ResponseChunk, "gate."));
    log.push(&m, text(EventKind::Response, "I'll delegate."));
    log.push(&m, call("c1", "Task", json!({"description": "Read lexer", "prompt": "Read lexer.rs"})));
    log.push(&m, usage(100, 20, Some(0.01)));
    log.push(&r, started(Some(&m), Some("c1"), 1, "Read lexer"));
    log.push(&r, status(AgentStatus::Running));
    log.push(&r, said("Read lexer.rs and summarise it"));
    log.push(&r, call("c2", "Read", json!({"file_path": "src/lexer.rs"})));
    log.push(&r, output_chunk("c2", "fn lex"));
    log.push(&r, output("c2", "fn lex() -> Tokens { todo!() }"));
    let mut bg = started(Some(&m), Some("c3"), 1, "Write tests");
    if let EventKind::AgentStarted(s) = &mut bg {
        s.background = true;
        s.subagent_type = None;
    }
    log.push(&w, bg);
    log.push(&w, status(AgentStatus::Running));
    log.push(&w, said("Write tests for the tokenizer"));
    log.push(&r, usage(50, 10, None));
    log.push(&r, text(EventKind::Response, "The lexer tokenises identifiers greedily"));
    log.push(&r, finished(AgentStatus::Completed, "The lexer tokenises identifiers greedily", None, 2, &[]));
    log.push(&w, call("c4", "Write", json!({"file_path": "tests/lexer.rs", "content": "#[test] fn t() {}"})));
    log.push(&w, output("c4", "wrote tests/lexer.rs"));
    log.push(
        &w,
        EventKind::Usage(Usage {
            input_tokens: 30,
            output_tokens: 5,
            cache_read_tokens: 7,
            cache_write_tokens: 3,
            cost_usd: Some(0.002),
        }),
    );
    log.push(&w, finished(AgentStatus::Failed, "", Some("model refused to continue"), 1, &["tests/lexer.rs"]));
    log.push(
        &m,
        EventKind::TaskNotification(TaskNotification {
            task_id: w.clone(),
            status: AgentStatus::Failed,
            summary: "Write tests failed: model refused".into(),
        }),
    );
    log.push(&m, output("c1", "The lexer tokenises identifiers greedily"));
    log.push(&m, text(EventKind::Response, "Done: the parser is fixed"));
    log.push(&m, usage(10, 3, None));
    log.push(&m, finished(AgentStatus::Completed, "Done: the parser is fixed", None, 3, &["src/parser.rs"]));
    log
}

/// Begins the session and appends the synthetic log in batches of `batch`.
pub fn store_synthetic(store: &Store, session: &str, started_at: i64, batch: usize) -> Log {
    begin(store, session, started_at);
    let log = synthetic(session, started_at);
    for chunk in log.events.chunks(batch) {
        store.append(chunk).unwrap();
    }
    log
}

/// Opens the raw file beside the store, for what the API does not show.
pub fn raw(store: &Store) -> rusqlite::Connection {
    rusqlite::Connection::open(store.path()).unwrap()
}
