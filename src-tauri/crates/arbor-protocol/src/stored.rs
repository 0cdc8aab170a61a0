//! What the transcript store answers with: session lists, a session's agents,
//! pages of events, search hits and exports. These cross to the UI and the CLI's
//! JSON output; the store (arbor-store) builds them, this module only names them.

use crate::{AgentEvent, AgentId, AgentStarted, AgentStatus, SessionId, Usage};
use serde::{Deserialize, Serialize};

/// A session's state as the history list shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Running,
    Completed,
    Failed,
    Cancelled,
    MaxTurns,
    /// The main agent's final answer was cut off by the output token limit.
    Truncated,
    /// Its process died while agents were still working.
    Interrupted,
    /// The session's budget ran out.
    BudgetExhausted,
}

impl SessionStatus {
    pub const ALL: [SessionStatus; 8] = [
        Self::Running,
        Self::Completed,
        Self::Failed,
        Self::Cancelled,
        Self::MaxTurns,
        Self::Truncated,
        Self::Interrupted,
        Self::BudgetExhausted,
    ];

    /// The session status that mirrors its main agent's: an agent that is queued,
    /// running or waiting for an approval keeps the session running.
    pub fn from_agent(status: AgentStatus) -> Self {
        match status {
            AgentStatus::Queued | AgentStatus::Running | AgentStatus::WaitingApproval => Self::Running,
            AgentStatus::Completed => Self::Completed,
            AgentStatus::Failed => Self::Failed,
            AgentStatus::Cancelled => Self::Cancelled,
            AgentStatus::MaxTurns => Self::MaxTurns,
            AgentStatus::Truncated => Self::Truncated,
            AgentStatus::Interrupted => Self::Interrupted,
            AgentStatus::BudgetExhausted => Self::BudgetExhausted,
        }
    }

    /// The value as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }

    /// Parses the wire value; None for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        crate::wire::parse(&Self::ALL, s)
    }
}

/// Where a stored session comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SessionSource {
    /// Run by Arbor.
    #[default]
    Arbor,
    /// Imported from Claude Code's transcript files: read-only.
    ClaudeCode,
}

impl SessionSource {
    pub const ALL: [SessionSource; 2] = [Self::Arbor, Self::ClaudeCode];

    /// The sources whose sessions Arbor can continue (an imported one is kept as it was recorded).
    pub const RESUMABLE: [SessionSource; 1] = [Self::Arbor];

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }

    pub fn is_resumable(self) -> bool {
        Self::RESUMABLE.contains(&self)
    }
}

/// One row of the history list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct SessionSummary {
    pub id: SessionId,
    pub workspace: String,
    /// The main agent's first prompt; empty until it is known.
    pub first_prompt: String,
    pub provider: String,
    pub model: String,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub status: SessionStatus,
    pub main_agent_id: Option<AgentId>,
    pub agent_count: u32,
    pub event_count: u64,
    /// Summed over every agent of the session.
    pub usage: crate::UsageFigures,
    #[serde(default)]
    pub source: SessionSource,
    /// The editor that drove it over ACP (`arbor acp`), by the name it gave; None: the app or the CLI.
    #[serde(default)]
    pub client: Option<String>,
}

/// One agent of a stored session, as its events left it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct StoredAgent {
    pub id: AgentId,
    pub parent_id: Option<AgentId>,
    pub parent_call_id: Option<String>,
    pub depth: u32,
    pub description: String,
    pub subagent_type: Option<String>,
    pub model: String,
    pub provider: String,
    pub background: bool,
    pub status: AgentStatus,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    pub turns: u32,
    pub duration_ms: Option<u64>,
    pub usage: Usage,
    pub files_modified: Vec<String>,
    pub result: Option<String>,
    pub error: Option<String>,
    /// Its budget (covering its subtree), if it has one.
    #[serde(default)]
    pub budget: Option<crate::Budget>,
    /// Wall time of all its runs that ended (a resumed agent's runs add up).
    #[serde(default)]
    pub elapsed_ms: u64,
    /// When its current run started; None while it is not running.
    #[serde(default)]
    pub run_started_at: Option<i64>,
    /// The limit of its own budget that ran out (until a person changes the budget).
    #[serde(default)]
    pub budget_exhausted: Option<crate::BudgetKind>,
    /// Its context in use: its last request's input, cache included (after a
    /// compaction, the compacted conversation's estimate).
    #[serde(default)]
    pub context_used: u64,
    /// Its model's context window, when its run said it.
    #[serde(default)]
    pub context_window: Option<crate::ContextWindow>,
    /// Set when it is a fork of its parent.
    #[serde(default)]
    pub fork: Option<crate::Fork>,
    /// Set when another program runs it (an external ACP agent): which, and in what.
    #[serde(default)]
    pub external: Option<crate::ExternalAgent>,
}

impl StoredAgent {
    /// What its `agent_started` said: where it sits in the tree and what it runs on.
    pub fn started(&self) -> AgentStarted {
        AgentStarted {
            parent_id: self.parent_id.clone(),
            parent_call_id: self.parent_call_id.clone(),
            depth: self.depth,
            description: self.description.clone(),
            subagent_type: self.subagent_type.clone(),
            model: self.model.clone(),
            provider: self.provider.clone(),
            background: self.background,
            call_seq: None,
            fork: self.fork,
            external: self.external.clone(),
        }
    }
}

/// A session and its agents, parents before their children.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct SessionDetail {
    pub session: SessionSummary,
    pub agents: Vec<StoredAgent>,
}

/// One page of an agent's transcript, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct EventPage {
    pub events: Vec<AgentEvent>,
    /// Whether older events exist before this page.
    pub more_before: bool,
}

/// One event matching a full-text search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct SearchHit {
    pub session_id: SessionId,
    pub session_prompt: String,
    pub agent_id: AgentId,
    /// Descriptions from the main agent down to this agent (the main agent's own
    /// description first).
    pub agent_path: Vec<String>,
    pub seq: u64,
    pub ts: i64,
    pub event_type: String,
    /// Where the hit's session comes from.
    #[serde(default)]
    pub source: SessionSource,
    /// The matching passage, in parts: the words that matched are the parts marked `hit`.
    /// (Marks inside the text itself, like `[` or `]`, could not tell them apart.)
    pub snippet: Vec<SnippetPart>,
}

/// A piece of a search snippet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct SnippetPart {
    pub text: String,
    /// One of the words searched for.
    pub hit: bool,
}

impl SnippetPart {
    /// The parts as one line with each hit between `open` and `close` (a terminal's bold, say).
    pub fn marked(parts: &[SnippetPart], open: &str, close: &str) -> String {
        parts.iter().map(|p| if p.hit { format!("{open}{}{close}", p.text) } else { p.text.clone() }).collect()
    }
}

/// `arbor show --format json` and the JSON export: the session, its agents, every stored event,
/// and what is derived from them: each agent's usage, its subtree's, and its budget's standing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct SessionExport {
    pub session: SessionSummary,
    pub agents: Vec<StoredAgent>,
    pub events: Vec<AgentEvent>,
    #[serde(default)]
    pub figures: crate::UsageUpdate,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_status_round_trips_its_wire_names() {
        for st in SessionStatus::ALL {
            match st {
                SessionStatus::Running
                | SessionStatus::Completed
                | SessionStatus::Failed
                | SessionStatus::Cancelled
                | SessionStatus::MaxTurns
                | SessionStatus::Truncated
                | SessionStatus::Interrupted
                | SessionStatus::BudgetExhausted => {}
            }
            let wire = serde_json::to_value(st).unwrap();
            assert_eq!(wire, serde_json::Value::String(st.as_str().into()));
            assert_eq!(SessionStatus::parse(st.as_str()), Some(st));
        }
        assert_eq!(SessionStatus::parse("queued"), None);
        assert_eq!(SessionStatus::from_agent(AgentStatus::WaitingApproval), SessionStatus::Running);
        for a in AgentStatus::TERMINAL {
            assert_eq!(SessionStatus::from_agent(a).as_str(), a.as_str(), "a finished session reads as its main agent");
        }
    }
}
