//! Writing: sessions begin and end, events are appended (one transaction per
//! batch) and the derived tables — agents, session totals, the full-text index,
//! superseded chunks — are kept current in that same transaction, so a reader
//! never sees an event without its effects. Histories are saved beside them.

use crate::error::{At, StoreError};
use crate::{NewSession, Store};
use arbor_protocol::{AgentEvent, AgentId, EventKind, Message, SessionId, SessionStatus, StoredAgent, Usage};
use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use std::collections::HashMap;
use std::path::Path;

impl Store {
    /// Records a session as started by this process, which holds its `claim`. For
    /// an id already stored (a resumed session) it re-owns it and clears
    /// `ended_at`; nothing else changes.
    pub fn begin_session(&self, s: &NewSession, claim: &crate::Claim) -> Result<(), StoreError> {
        if claim.session() != &s.id {
            return Err(StoreError::Owned { session: s.id.to_string(), pid: self.owner_pid(&s.id)? });
        }
        let conn = self.writer();
        conn.prepare_cached(
            "INSERT INTO sessions (id, workspace, first_prompt, provider, model, started_at, status, owner_pid, client)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, ?8)
             ON CONFLICT (id) DO UPDATE SET owner_pid = excluded.owner_pid, ended_at = NULL,
                 client = COALESCE(excluded.client, sessions.client),
                 first_prompt = CASE WHEN sessions.first_prompt = '' THEN excluded.first_prompt
                                     ELSE sessions.first_prompt END",
        )
        .and_then(|mut st| {
            st.execute(params![
                s.id.as_str(),
                s.workspace,
                s.first_prompt,
                s.provider,
                s.model,
                s.started_at,
                std::process::id(),
                s.client
            ])
        })
        .at(&self.path)?;
        Ok(())
    }

    /// Appends events in one transaction: all of them with their effects, or
    /// none. An event whose `(session, seq)` is stored already fails the batch
    /// with [`StoreError::Duplicate`]; one of a session never begun, with
    /// [`StoreError::UnknownSession`].
    pub fn append(&self, events: &[AgentEvent]) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let mut conn = self.writer();
        // IMMEDIATE: take the write lock first. A deferred transaction that read
        // and then wrote would fail at once, without waiting, if another process
        // wrote in between (SQLITE_BUSY_SNAPSHOT).
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).at(&self.path)?;
        append_in(&tx, &self.path, events)?;
        tx.commit().at(&self.path)
    }

    /// Replaces the agent's stored messages from index `start` on with `messages`.
    pub fn save_history(
        &self,
        session: &SessionId,
        agent: &AgentId,
        start: usize,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).at(&self.path)?;
        ensure_session(&tx, &self.path, session)?;
        tx.prepare_cached("DELETE FROM histories WHERE session_id = ?1 AND agent_id = ?2 AND idx >= ?3")
            .and_then(|mut st| st.execute(params![session.as_str(), agent.as_str(), start]))
            .at(&self.path)?;
        {
            let mut insert = tx
                .prepare_cached("INSERT INTO histories (session_id, agent_id, idx, json) VALUES (?1, ?2, ?3, ?4)")
                .at(&self.path)?;
            for (i, m) in messages.iter().enumerate() {
                let json = serde_json::to_string(m)?;
                insert.execute(params![session.as_str(), agent.as_str(), start + i, json]).at(&self.path)?;
            }
        }
        tx.commit().at(&self.path)
    }

    /// Marks the session as no longer written by this process. `ended_at` is
    /// kept when the main agent's `agent_finished` already set it.
    pub fn end_session(&self, session: &SessionId, ended_at: i64) -> Result<(), StoreError> {
        let conn = self.writer();
        let n = conn
            .prepare_cached("UPDATE sessions SET owner_pid = NULL, ended_at = COALESCE(ended_at, ?2) WHERE id = ?1")
            .and_then(|mut st| st.execute(params![session.as_str(), ended_at]))
            .at(&self.path)?;
        if n == 0 {
            return Err(StoreError::UnknownSession(session.to_string()));
        }
        Ok(())
    }
}

pub(crate) fn ensure_session(tx: &Transaction<'_>, path: &Path, session: &SessionId) -> Result<(), StoreError> {
    let found = tx
        .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")
        .and_then(|mut st| st.query_row([session.as_str()], |_| Ok(())).optional())
        .at(path)?;
    found.ok_or_else(|| StoreError::UnknownSession(session.to_string()))
}

/// The session row's derived columns, as the batch changes them.
struct SessionState {
    status: SessionStatus,
    ended_at: Option<i64>,
    main_agent_id: Option<String>,
    first_prompt: String,
    agent_count: u32,
    event_count: u64,
    usage: Usage,
}

/// What one batch touched, per session: loaded on first use, written once at the end.
#[derive(Default)]
struct Batch {
    sessions: HashMap<String, SessionState>,
    /// `None`: looked up and not stored (an event of an agent never started).
    /// Each row as the protocol's one derivation (`StoredAgent::apply`) leaves it.
    agents: HashMap<(String, String), Option<StoredAgent>>,
}

/// Appends `events` inside `tx`: the body of [`Store::append`], also used by recovery.
pub(crate) fn append_in(tx: &Transaction<'_>, path: &Path, events: &[AgentEvent]) -> Result<(), StoreError> {
    let mut batch = Batch::default();
    let mut insert = tx
        .prepare_cached(
            "INSERT INTO events (session_id, seq, agent_id, type, ts, json, search_text, stream_key)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .at(path)?;
    for ev in events {
        if !batch.sessions.contains_key(ev.session_id.as_str()) {
            let state = load_session(tx, path, &ev.session_id)?;
            batch.sessions.insert(ev.session_id.0.clone(), state);
        }
        let json = serde_json::to_string(ev)?;
        let search_text = search_text(&ev.kind);
        let (chunk_key, aggregate_key) = stream_keys(&ev.kind);
        let kind = ev.kind.type_name();
        let res = insert.execute(params![
            ev.session_id.as_str(),
            ev.seq,
            ev.agent_id.as_str(),
            kind,
            ev.ts,
            json,
            search_text,
            chunk_key
        ]);
        match res {
            Ok(_) => {}
            Err(e) if e.sqlite_extended_error_code() == Some(rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE) => {
                return Err(StoreError::Duplicate { session: ev.session_id.to_string(), seq: ev.seq });
            }
            Err(e) => return Err(StoreError::sqlite(path, e)),
        }
        let rowid = tx.last_insert_rowid();
        if let Some(text) = &search_text {
            tx.prepare_cached("INSERT INTO events_fts (rowid, search_text) VALUES (?1, ?2)")
                .and_then(|mut st| st.execute(params![rowid, text]))
                .at(path)?;
        }
        if let Some(key) = aggregate_key {
            tx.prepare_cached(
                "UPDATE events SET superseded = 1
                 WHERE session_id = ?1 AND agent_id = ?2 AND stream_key = ?3
                   AND stream_key IS NOT NULL AND superseded = 0",
            )
            .and_then(|mut st| st.execute(params![ev.session_id.as_str(), ev.agent_id.as_str(), key]))
            .at(path)?;
        }
        apply(tx, path, &mut batch, ev)?;
    }
    drop(insert);
    flush(tx, path, batch)
}

/// The text the full-text index holds for an event. Chunks are left out: the
/// aggregate event that follows them carries the same text.
fn search_text(kind: &EventKind) -> Option<String> {
    match kind {
        EventKind::UserMessage(m) => Some(m.content.clone()),
        EventKind::Thoughts(t) | EventKind::Response(t) => Some(t.content.clone()),
        EventKind::ToolCall(c) => Some(format!("{} {}", c.tool_name, c.tool_args)),
        EventKind::ToolOutput(o) => Some(o.content.clone()),
        EventKind::AgentFinished(f) => Some(match &f.error {
            Some(e) => format!("{}\n{e}", f.result),
            None => f.result.clone(),
        }),
        EventKind::TaskNotification(n) => Some(n.summary.clone()),
        EventKind::ImportedEntry(e) => Some(e.content.clone()),
        _ => None,
    }
}

/// (the stream a chunk belongs to, the stream an aggregate event completes).
fn stream_keys(kind: &EventKind) -> (Option<String>, Option<String>) {
    match kind {
        EventKind::ThoughtsChunk(_) => (Some("thoughts".into()), None),
        EventKind::ResponseChunk(_) => (Some("response".into()), None),
        EventKind::ToolOutputChunk(c) => (Some(format!("tool_output:{}", c.call_id)), None),
        EventKind::ToolInputChunk(c) => (Some(format!("tool_input:{}", c.call_id)), None),
        EventKind::ToolCall(c) => (None, Some(format!("tool_input:{}", c.call_id))),
        EventKind::Thoughts(_) => (None, Some("thoughts".into())),
        EventKind::Response(_) => (None, Some("response".into())),
        EventKind::ToolOutput(o) => (None, Some(format!("tool_output:{}", o.call_id))),
        _ => (None, None),
    }
}

/// Keeps the chunks of streams an agent left unfinished (it stopped, failed or
/// was interrupted mid-stream) visible for good: a later run's aggregate must not
/// hide text that no aggregate ever repeated.
fn close_streams(tx: &Transaction<'_>, path: &Path, ev: &AgentEvent) -> Result<(), StoreError> {
    tx.prepare_cached(
        "UPDATE events SET stream_key = NULL
         WHERE session_id = ?1 AND agent_id = ?2 AND stream_key IS NOT NULL AND superseded = 0",
    )
    .and_then(|mut st| st.execute(params![ev.session_id.as_str(), ev.agent_id.as_str()]))
    .at(path)?;
    Ok(())
}

/// Applies one event's effects on the session and agent rows held by `batch`.
fn apply(tx: &Transaction<'_>, path: &Path, batch: &mut Batch, ev: &AgentEvent) -> Result<(), StoreError> {
    // Only an event that shapes an agent (`StoredAgent::apply` leaves the rest
    // alone) loads and rewrites its row: a stream's chunks, most of what a running
    // session stores, had every agent they touched read and replaced in each batch.
    let key = ev.kind.shapes_agent().then(|| (ev.session_id.0.clone(), ev.agent_id.0.clone()));
    if let Some(key) = &key
        && !batch.agents.contains_key(key)
    {
        let state = load_agent(tx, path, &ev.session_id, &ev.agent_id)?;
        batch.agents.insert(key.clone(), state);
    }
    let Some(session) = batch.sessions.get_mut(ev.session_id.as_str()) else {
        return Ok(());
    };
    session.event_count += 1;
    let is_main = session.main_agent_id.as_deref() == Some(ev.agent_id.as_str());

    if let Some(slot) = key.as_ref().and_then(|k| batch.agents.get_mut(k)) {
        match (slot.as_mut(), &ev.kind) {
            (Some(agent), _) => agent.apply(ev),
            (None, EventKind::AgentStarted(started)) => {
                *slot = Some(StoredAgent::new(ev.agent_id.clone(), started, ev.ts));
                session.agent_count += 1;
            }
            (None, _) => {
                tracing::debug!(session = %ev.session_id, agent = %ev.agent_id, kind = ev.kind.type_name(),
                    "event of an agent with no agent_started; stored without an agents row");
            }
        }
    }
    match &ev.kind {
        EventKind::AgentStarted(started) if started.depth == 0 && session.main_agent_id.is_none() => {
            session.main_agent_id = Some(ev.agent_id.0.clone());
            session.status = SessionStatus::Running;
        }
        EventKind::AgentStatus(change) => {
            if change.status.is_terminal() {
                close_streams(tx, path, ev)?;
            }
            if is_main {
                session.status = SessionStatus::from_agent(change.status);
                if !change.status.is_terminal() {
                    session.ended_at = None;
                }
            }
        }
        EventKind::AgentFinished(fin) => {
            close_streams(tx, path, ev)?;
            if is_main {
                session.status = SessionStatus::from_agent(fin.status);
                session.ended_at = Some(ev.ts);
            }
        }
        EventKind::Usage(u) => session.usage.add(u),
        EventKind::UserMessage(t) if is_main && session.first_prompt.is_empty() => {
            session.first_prompt = t.content.clone();
        }
        _ => {}
    }
    Ok(())
}

fn load_session(tx: &Transaction<'_>, path: &Path, id: &SessionId) -> Result<SessionState, StoreError> {
    let row = tx
        .prepare_cached(
            "SELECT status, ended_at, main_agent_id, first_prompt, agent_count, event_count,
                    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd
             FROM sessions WHERE id = ?1",
        )
        .and_then(|mut st| {
            st.query_row([id.as_str()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    SessionState {
                        status: SessionStatus::Running,
                        ended_at: r.get(1)?,
                        main_agent_id: r.get(2)?,
                        first_prompt: r.get(3)?,
                        agent_count: r.get(4)?,
                        event_count: r.get(5)?,
                        usage: crate::read::usage_at(r, 6)?,
                    },
                ))
            })
            .optional()
        })
        .at(path)?;
    let (status, mut state) = row.ok_or_else(|| StoreError::UnknownSession(id.to_string()))?;
    state.status = crate::read::parse_session_status(&status)?;
    Ok(state)
}

fn load_agent(
    tx: &Transaction<'_>,
    path: &Path,
    session: &SessionId,
    agent: &AgentId,
) -> Result<Option<StoredAgent>, StoreError> {
    tx.prepare_cached(&format!("SELECT {} FROM agents WHERE session_id = ?1 AND id = ?2", crate::read::AGENT_COLUMNS))
        .and_then(|mut st| st.query_row([session.as_str(), agent.as_str()], crate::read::agent_row).optional())
        .at(path)
}

/// Writes back every session and agent row the batch changed.
fn flush(tx: &Transaction<'_>, path: &Path, batch: Batch) -> Result<(), StoreError> {
    for (id, s) in &batch.sessions {
        tx.prepare_cached(
            "UPDATE sessions SET status = ?2, ended_at = ?3, main_agent_id = ?4, first_prompt = ?5,
                 agent_count = ?6, event_count = ?7, input_tokens = ?8, output_tokens = ?9,
                 cache_read_tokens = ?10, cache_write_tokens = ?11, cost_usd = ?12
             WHERE id = ?1",
        )
        .and_then(|mut st| {
            st.execute(params![
                id,
                s.status.as_str(),
                s.ended_at,
                s.main_agent_id,
                s.first_prompt,
                s.agent_count,
                s.event_count,
                s.usage.input_tokens,
                s.usage.output_tokens,
                s.usage.cache_read_tokens,
                s.usage.cache_write_tokens,
                s.usage.cost_usd
            ])
        })
        .at(path)?;
    }
    for ((session, id), a) in &batch.agents {
        let Some(a) = a else { continue };
        let files = serde_json::to_string(&a.files_modified)?;
        let budget = a.budget.as_ref().map(serde_json::to_string).transpose()?;
        let context_window = a.context_window.as_ref().map(serde_json::to_string).transpose()?;
        let external = a.external.as_ref().map(serde_json::to_string).transpose()?;
        tx.prepare_cached(
            "INSERT OR REPLACE INTO agents (session_id, id, parent_id, parent_call_id, depth, description,
                 subagent_type, model, provider, background, status, started_at, ended_at, turns, duration_ms,
                 input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
                 files_modified, result, error, budget, elapsed_ms, run_started_at, budget_exhausted,
                 context_used, context_window, fork_messages, external)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
                 ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)",
        )
        .and_then(|mut stmt| {
            stmt.execute(params![
                session,
                id,
                a.parent_id.as_ref().map(AgentId::as_str),
                a.parent_call_id,
                a.depth,
                a.description,
                a.subagent_type,
                a.model,
                a.provider,
                a.background,
                a.status.as_str(),
                a.started_at,
                a.ended_at,
                a.turns,
                a.duration_ms,
                a.usage.input_tokens,
                a.usage.output_tokens,
                a.usage.cache_read_tokens,
                a.usage.cache_write_tokens,
                a.usage.cost_usd,
                files,
                a.result,
                a.error,
                budget,
                a.elapsed_ms,
                a.run_started_at,
                a.budget_exhausted.map(|k| k.as_str()),
                a.context_used,
                context_window,
                a.fork.map(|f| f.messages),
                external
            ])
        })
        .at(path)?;
    }
    Ok(())
}
