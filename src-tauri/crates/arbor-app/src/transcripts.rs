//! Past sessions, for both front ends: the history list, a stored session
//! opened for review (its tree and the selected agent's transcript, a page at a
//! time), search across every transcript, export to Markdown or JSON, and
//! resuming a stored session or one of its agents.

use crate::demo;
use crate::error::{AppError, AppErrorKind};
use crate::host::{Host, err};
use crate::sessions::{LaunchSpec, Launched, Start};
use arbor_core::{ResumeState, ResumedAgent};
use arbor_protocol::ProviderKind;
use arbor_protocol::{
    AgentEvent, AgentId, AgentStates, SearchHit, SessionDetail, SessionId, SessionStatus, SessionSummary, UsageUpdate,
};
use arbor_store::{SessionQuery, Store, StoreError};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// How many transcript events one page holds: the first screen and each "earlier" step.
pub const PAGE: u32 = 400;

/// How many sessions one page of the history list holds.
pub const HISTORY_PAGE: u32 = 200;

/// Most hits a search returns.
pub const SEARCH_LIMIT: u32 = 100;

#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct HistoryQuery {
    /// Matches the first prompt or the workspace (case-insensitive).
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub status: Option<SessionStatus>,
    #[serde(default)]
    pub offset: u32,
    /// How many at most; None: a page of the history list ([`HISTORY_PAGE`]), 0: all.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Where a stored session runs now, if anywhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SessionRuns {
    /// Nowhere: it is as stored, and can be continued.
    Stored,
    /// Live in this process.
    Here,
    /// Another Arbor process drives it (its pid, when the store says): read-only here
    /// until that one has stopped.
    Elsewhere { pid: Option<u32> },
}

/// A stored session opened for review: enough for its first screen.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PastSession {
    pub detail: SessionDetail,
    /// Every agent's lifecycle events plus the last page of `agent`'s transcript, in `seq` order.
    pub events: Vec<AgentEvent>,
    /// The agent whose transcript is loaded (the main agent).
    pub agent: Option<AgentId>,
    /// Older transcript events of `agent` exist.
    pub more_before: bool,
    /// Every agent's usage and its subtree's, and the session's.
    pub usage: UsageUpdate,
    /// Where it runs now: a session another process runs is shown as stored when opened.
    pub runs: SessionRuns,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Markdown,
    Json,
}

impl ExportFormat {
    pub fn extension(self) -> &'static str {
        match self {
            Self::Markdown => "md",
            Self::Json => "json",
        }
    }
}

/// Why a stored session cannot be continued.
#[derive(Debug, thiserror::Error)]
pub enum NotResumable {
    #[error("the demo's scripted model has nothing more to say: start a session on a real provider to go on")]
    Demo,
    #[error("the session ran on an unknown provider {0:?}")]
    UnknownProvider(String),
    #[error("this session was imported from Claude Code: it is kept as it was recorded and cannot be continued here")]
    Imported,
}

/// The provider a stored session ran on, if it can run on it again.
pub fn resumable_provider(summary: &SessionSummary) -> Result<ProviderKind, NotResumable> {
    if !summary.source.is_resumable() {
        return Err(NotResumable::Imported);
    }
    if summary.model == demo::MODEL {
        return Err(NotResumable::Demo);
    }
    ProviderKind::from_name(&summary.provider).ok_or_else(|| NotResumable::UnknownProvider(summary.provider.clone()))
}

pub(crate) fn store_err(e: StoreError) -> AppError {
    let kind = match e {
        StoreError::UnknownSession(_) | StoreError::UnknownAgent(_) | StoreError::Ambiguous(_) => {
            AppErrorKind::NotFound
        }
        StoreError::Owned { .. } => AppErrorKind::Owned,
        _ => AppErrorKind::Store,
    };
    err(kind, e)
}

/// The session or one agent's transcript as text in `format`.
pub fn export_text(
    store: &Store,
    session: &SessionId,
    agent: Option<&AgentId>,
    format: ExportFormat,
) -> Result<String, StoreError> {
    match format {
        ExportFormat::Markdown => store.export_markdown(session, agent),
        ExportFormat::Json => {
            let export = store.export(session, agent)?;
            Ok(serde_json::to_string_pretty(&export)?)
        }
    }
}

/// What the runtime needs to continue a stored session: every agent as it was
/// left, with its model history, and where the session's `seq` stopped.
pub fn resume_state(store: &Store, id: &SessionId) -> Result<ResumeState, StoreError> {
    let detail = store.session(id)?;
    let main = detail.session.main_agent_id.clone().ok_or_else(|| StoreError::UnknownAgent("main".into()))?;
    let mut agents = Vec::with_capacity(detail.agents.len());
    for a in detail.agents {
        let history = store.history(id, &a.id)?;
        let calls = match ResumedAgent::first_open_call(&history) {
            Some(call) => store.calls_from(id, &a.id, &call)?,
            None => Vec::new(),
        };
        agents.push(ResumedAgent { state: a, history, calls });
    }
    Ok(ResumeState { session_id: id.clone(), main_agent_id: main, last_seq: store.last_seq(id)?, agents })
}

/// Runs a store query off the async runtime's workers (SQLite blocks).
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, AppError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| err(AppErrorKind::Store, e))?.map_err(store_err)
}

impl Host {
    /// Stored sessions, newest first.
    pub async fn sessions(&self, query: HistoryQuery) -> Result<Vec<SessionSummary>, AppError> {
        let q = SessionQuery {
            text: query.text.filter(|t| !t.trim().is_empty()),
            status: query.status,
            limit: query.limit.unwrap_or(HISTORY_PAGE),
            offset: query.offset,
        };
        let store = self.store()?;
        blocking(move || store.sessions(&q)).await
    }

    /// The stored session an id, or an unambiguous start of one, names.
    pub async fn resolve_session(&self, id_or_prefix: String) -> Result<SessionId, AppError> {
        let store = self.store()?;
        blocking(move || store.resolve_session(&id_or_prefix)).await
    }

    /// A stored session: its summary and every agent as its events left them.
    pub async fn session_detail(&self, id: SessionId) -> Result<SessionDetail, AppError> {
        let store = self.store()?;
        blocking(move || store.session(&id)).await
    }

    /// Where the session runs now: here, in another process (the one holding its
    /// claim), or nowhere.
    pub async fn session_runs(&self, id: &SessionId) -> Result<SessionRuns, AppError> {
        if self.live.contains(id) {
            return Ok(SessionRuns::Here);
        }
        let store = self.store()?;
        let id = id.clone();
        blocking(move || {
            Ok(match store.is_claimed(&id)? {
                true => SessionRuns::Elsewhere { pid: store.owner_pid(&id)? },
                false => SessionRuns::Stored,
            })
        })
        .await
    }

    /// A stored session's first screen: its tree and the main agent's latest transcript page.
    pub async fn open_session(&self, id: SessionId) -> Result<PastSession, AppError> {
        let runs = self.session_runs(&id).await?;
        self.read_session(id, None, runs).await
    }

    /// A session this process runs, as the store holds it up to event `through`:
    /// a window attaching to it (after a reload) takes every later event from the
    /// frames it is sent, so what it reads and what it is sent meet without a gap
    /// or an overlap.
    pub async fn live_view(&self, id: SessionId, through: u64) -> Result<PastSession, AppError> {
        if !self.live.contains(&id) {
            return Err(AppError::new(
                AppErrorKind::NoSession,
                format!("session {id} is not running in this window's process"),
            ));
        }
        self.read_session(id, Some(through), SessionRuns::Here).await
    }

    async fn read_session(
        &self,
        id: SessionId,
        through: Option<u64>,
        runs: SessionRuns,
    ) -> Result<PastSession, AppError> {
        let store = self.store()?;
        blocking(move || {
            let detail = store.session(&id)?;
            let mut events = store.skeleton(&id)?;
            if let Some(last) = through {
                events.retain(|e| e.seq <= last);
            }
            let agent = detail.session.main_agent_id.clone();
            let mut more_before = false;
            if let Some(main) = &agent {
                let page = store.transcript(&id, main, through.map(|t| t.saturating_add(1)), PAGE)?;
                more_before = page.more_before;
                events.extend(page.events);
                events.sort_by_key(|e| e.seq);
            }
            let states = AgentStates::from_agents(detail.agents.iter().cloned());
            let usage = states.usage_update(detail.agents.iter().map(|a| &a.id));
            Ok(PastSession { detail, events, agent, more_before, usage, runs })
        })
        .await
    }

    /// A page of one agent's transcript: the events before `before` (the newest when None).
    pub async fn transcript(
        &self,
        session: SessionId,
        agent: AgentId,
        before: Option<u64>,
    ) -> Result<arbor_protocol::EventPage, AppError> {
        let store = self.store()?;
        blocking(move || store.transcript(&session, &agent, before, PAGE)).await
    }

    /// A session's timeline as its stored events make it (a live session's too:
    /// events are stored before they are shown; frames carry what changes after).
    pub async fn timeline(&self, session: SessionId) -> Result<arbor_protocol::Timeline, AppError> {
        let store = self.store()?;
        blocking(move || store.timeline(&session)).await
    }

    /// Every transcript's text, newest hits first (at most [`SEARCH_LIMIT`]).
    pub async fn search(&self, text: String) -> Result<Vec<SearchHit>, AppError> {
        self.search_with(text, SEARCH_LIMIT).await
    }

    /// [`Host::search`] with a limit of one's own.
    pub async fn search_with(&self, text: String, limit: u32) -> Result<Vec<SearchHit>, AppError> {
        let store = self.store()?;
        blocking(move || store.search(&text, limit)).await
    }

    /// The session (or one agent's transcript) as text in `format`.
    pub async fn export_text(
        &self,
        session: SessionId,
        agent: Option<AgentId>,
        format: ExportFormat,
    ) -> Result<String, AppError> {
        let store = self.store()?;
        blocking(move || export_text(&store, &session, agent.as_ref(), format)).await
    }

    /// The session as its export holds it: summary, agents, figures and every event.
    pub async fn export_session(
        &self,
        session: SessionId,
        agent: Option<AgentId>,
    ) -> Result<arbor_protocol::SessionExport, AppError> {
        let store = self.store()?;
        blocking(move || store.export(&session, agent.as_ref())).await
    }

    /// Writes the session (or one agent's transcript) to `path`; returns the path written.
    pub async fn export(
        &self,
        session: SessionId,
        agent: Option<AgentId>,
        format: ExportFormat,
        path: String,
    ) -> Result<String, AppError> {
        let text = self.export_text(session, agent, format).await?;
        let path = PathBuf::from(path);
        tokio::fs::write(&path, text)
            .await
            .map_err(|e| AppError::new(AppErrorKind::Export, format!("cannot write {}: {e}", path.display())))?;
        Ok(path.display().to_string())
    }

    /// Continues a stored session live, beside the others: its agents come back as
    /// they were left, `prompt` (if any) goes to the main agent.
    pub async fn resume_session(&self, id: SessionId, prompt: Option<String>) -> Result<Launched, AppError> {
        self.launch(LaunchSpec { start: Start::Resume { session: id, prompt }, ..LaunchSpec::default() }).await
    }
}
