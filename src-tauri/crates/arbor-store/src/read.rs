//! Reading: the session list, one session with its agents, its events (all, the
//! review screen's skeleton, or a page of one agent's transcript), histories and
//! the JSON export. Everything here goes through the read connection.

use crate::error::{At, StoreError};
use crate::schema::SKELETON_TYPES_SQL;
use crate::{SessionQuery, Store};
use arbor_protocol::{
    AgentEvent, AgentId, AgentStatus, EventPage, Message, SessionDetail, SessionExport, SessionId, SessionSource,
    SessionStatus, SessionSummary, StoredAgent, Usage, wire,
};
use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Row, params};
use std::path::Path;

pub(crate) const SESSION_COLUMNS: &str = "id, workspace, first_prompt, provider, model, started_at, ended_at, status, \
     main_agent_id, agent_count, event_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, \
     cost_usd, source, client";

pub(crate) const AGENT_COLUMNS: &str = "id, parent_id, parent_call_id, depth, description, subagent_type, model, \
     provider, background, status, started_at, ended_at, turns, duration_ms, input_tokens, output_tokens, \
     cache_read_tokens, cache_write_tokens, cost_usd, files_modified, result, error, budget, elapsed_ms, run_started_at, budget_exhausted, \
     context_used, context_window, fork_messages, external";

/// The event types of an agent's transcript (the protocol's list).
static TRANSCRIPT_TYPES_SQL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| crate::schema::types_sql(&arbor_protocol::EventType::TRANSCRIPT));

/// Parents before children: depth first, then the order they started in.
const AGENT_ORDER_SQL: &str = "ORDER BY depth, started_at, id";

fn conversion(col: usize, e: impl std::error::Error + Send + Sync + 'static) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(col, Type::Text, Box::new(e))
}

pub(crate) fn parse_session_status(s: &str) -> Result<SessionStatus, StoreError> {
    Ok(serde_json::from_value(serde_json::Value::String(s.to_owned()))?)
}

fn parse_agent_status(s: String) -> Result<AgentStatus, serde_json::Error> {
    serde_json::from_value(serde_json::Value::String(s))
}

pub(crate) fn usage_at(r: &Row<'_>, first: usize) -> rusqlite::Result<Usage> {
    Ok(Usage {
        input_tokens: r.get(first)?,
        output_tokens: r.get(first + 1)?,
        cache_read_tokens: r.get(first + 2)?,
        cache_write_tokens: r.get(first + 3)?,
        cost_usd: r.get(first + 4)?,
    })
}

pub(crate) fn session_row(r: &Row<'_>) -> rusqlite::Result<SessionSummary> {
    let status: String = r.get(7)?;
    Ok(SessionSummary {
        id: SessionId(r.get(0)?),
        workspace: r.get(1)?,
        first_prompt: r.get(2)?,
        provider: r.get(3)?,
        model: r.get(4)?,
        started_at: r.get(5)?,
        ended_at: r.get(6)?,
        status: serde_json::from_value(serde_json::Value::String(status)).map_err(|e| conversion(7, e))?,
        main_agent_id: r.get::<_, Option<String>>(8)?.map(AgentId),
        agent_count: r.get(9)?,
        event_count: r.get(10)?,
        usage: arbor_protocol::UsageFigures::of(usage_at(r, 11)?),
        source: wire::parse(&SessionSource::ALL, &r.get::<_, String>(16)?).unwrap_or_default(),
        client: r.get(17)?,
    })
}

pub(crate) fn agent_row(r: &Row<'_>) -> rusqlite::Result<StoredAgent> {
    let files: String = r.get(19)?;
    Ok(StoredAgent {
        id: AgentId(r.get(0)?),
        parent_id: r.get::<_, Option<String>>(1)?.map(AgentId),
        parent_call_id: r.get(2)?,
        depth: r.get(3)?,
        description: r.get(4)?,
        subagent_type: r.get(5)?,
        model: r.get(6)?,
        provider: r.get(7)?,
        background: r.get(8)?,
        status: parse_agent_status(r.get(9)?).map_err(|e| conversion(9, e))?,
        started_at: r.get(10)?,
        ended_at: r.get(11)?,
        turns: r.get(12)?,
        duration_ms: r.get(13)?,
        usage: usage_at(r, 14)?,
        files_modified: serde_json::from_str(&files).map_err(|e| conversion(19, e))?,
        result: r.get(20)?,
        error: r.get(21)?,
        budget: r
            .get::<_, Option<String>>(22)?
            .map(|b| serde_json::from_str(&b))
            .transpose()
            .map_err(|e| conversion(22, e))?,
        elapsed_ms: r.get(23)?,
        run_started_at: r.get(24)?,
        budget_exhausted: r
            .get::<_, Option<String>>(25)?
            .and_then(|k| wire::parse(&arbor_protocol::BudgetKind::ALL, &k)),
        context_used: r.get(26)?,
        context_window: r
            .get::<_, Option<String>>(27)?
            .map(|w| serde_json::from_str(&w))
            .transpose()
            .map_err(|e| conversion(27, e))?,
        fork: r.get::<_, Option<u32>>(28)?.map(|messages| arbor_protocol::Fork { messages }),
        external: r
            .get::<_, Option<String>>(29)?
            .map(|j| serde_json::from_str(&j))
            .transpose()
            .map_err(|e| conversion(29, e))?,
    })
}

/// Deserialises stored event JSON, in the order given.
fn decode_events(rows: Vec<String>) -> Result<Vec<AgentEvent>, StoreError> {
    rows.iter().map(|j| serde_json::from_str(j).map_err(StoreError::from)).collect()
}

pub(crate) fn summary(conn: &Connection, path: &Path, id: &SessionId) -> Result<SessionSummary, StoreError> {
    conn.prepare_cached(&format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"))
        .and_then(|mut st| st.query_row([id.as_str()], session_row).optional())
        .at(path)?
        .ok_or_else(|| StoreError::UnknownSession(id.to_string()))
}

pub(crate) fn agents(conn: &Connection, path: &Path, id: &SessionId) -> Result<Vec<StoredAgent>, StoreError> {
    conn.prepare_cached(&format!("SELECT {AGENT_COLUMNS} FROM agents WHERE session_id = ?1 {AGENT_ORDER_SQL}"))
        .and_then(|mut st| st.query_map([id.as_str()], agent_row)?.collect())
        .at(path)
}

pub(crate) fn agent(
    conn: &Connection,
    path: &Path,
    session: &SessionId,
    agent: &AgentId,
) -> Result<StoredAgent, StoreError> {
    conn.prepare_cached(&format!("SELECT {AGENT_COLUMNS} FROM agents WHERE session_id = ?1 AND id = ?2"))
        .and_then(|mut st| st.query_row([session.as_str(), agent.as_str()], agent_row).optional())
        .at(path)?
        .ok_or_else(|| StoreError::UnknownAgent(agent.to_string()))
}

/// Every event of the session (or of one agent), in seq order.
pub(crate) fn all_events(
    conn: &Connection,
    path: &Path,
    session: &SessionId,
    agent: Option<&AgentId>,
) -> Result<Vec<AgentEvent>, StoreError> {
    let rows: Vec<String> = match agent {
        None => conn
            .prepare_cached("SELECT json FROM events WHERE session_id = ?1 ORDER BY seq")
            .and_then(|mut st| st.query_map([session.as_str()], |r| r.get(0))?.collect()),
        Some(a) => conn
            .prepare_cached("SELECT json FROM events WHERE session_id = ?1 AND agent_id = ?2 ORDER BY seq")
            .and_then(|mut st| st.query_map([session.as_str(), a.as_str()], |r| r.get(0))?.collect()),
    }
    .at(path)?;
    decode_events(rows)
}

impl Store {
    /// Sessions matching `q`, newest first.
    pub fn sessions(&self, q: &SessionQuery) -> Result<Vec<SessionSummary>, StoreError> {
        let conn = self.reader();
        // LIKE is case-insensitive for ASCII; `\` escapes the person's own % and _.
        let pattern = q.text.as_deref().filter(|t| !t.is_empty()).map(|t| {
            let escaped = t.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
            format!("%{escaped}%")
        });
        let limit: i64 = if q.limit == 0 { -1 } else { i64::from(q.limit) };
        conn.prepare_cached(&format!(
            "SELECT {SESSION_COLUMNS} FROM sessions
             WHERE (?1 IS NULL OR first_prompt LIKE ?1 ESCAPE '\\' OR workspace LIKE ?1 ESCAPE '\\')
               AND (?2 IS NULL OR status = ?2)
             ORDER BY started_at DESC, rowid DESC LIMIT ?3 OFFSET ?4"
        ))
        .and_then(|mut st| {
            st.query_map(params![pattern, q.status.map(SessionStatus::as_str), limit, q.offset], session_row)?.collect()
        })
        .at(&self.path)
    }

    /// The session and its agents, parents before children.
    pub fn session(&self, id: &SessionId) -> Result<SessionDetail, StoreError> {
        let conn = self.reader();
        let session = summary(&conn, &self.path, id)?;
        let agents = agents(&conn, &self.path, id)?;
        Ok(SessionDetail { session, agents })
    }

    /// The session whose id is `id_or_prefix`, or the only one whose id starts
    /// with it (people type `sess-1a2b`).
    pub fn resolve_session(&self, id_or_prefix: &str) -> Result<SessionId, StoreError> {
        if id_or_prefix.is_empty() {
            return Err(StoreError::UnknownSession(String::new()));
        }
        let conn = self.reader();
        let exact = conn
            .prepare_cached("SELECT id FROM sessions WHERE id = ?1")
            .and_then(|mut st| st.query_row([id_or_prefix], |r| r.get::<_, String>(0)).optional())
            .at(&self.path)?;
        if let Some(id) = exact {
            return Ok(SessionId(id));
        }
        let ids: Vec<String> = conn
            .prepare_cached("SELECT id FROM sessions WHERE substr(id, 1, length(?1)) = ?1 LIMIT 2")
            .and_then(|mut st| st.query_map([id_or_prefix], |r| r.get(0))?.collect())
            .at(&self.path)?;
        match ids.as_slice() {
            [one] => Ok(SessionId(one.clone())),
            [] => Err(StoreError::UnknownSession(id_or_prefix.to_owned())),
            _ => Err(StoreError::Ambiguous(id_or_prefix.to_owned())),
        }
    }

    /// Every stored event of the session (or of one agent), in seq order.
    pub fn events(&self, session: &SessionId, agent: Option<&AgentId>) -> Result<Vec<AgentEvent>, StoreError> {
        let conn = self.reader();
        summary(&conn, &self.path, session)?;
        if let Some(a) = agent {
            self::agent(&conn, &self.path, session, a)?;
        }
        all_events(&conn, &self.path, session, agent)
    }

    /// The last stored event's seq; 0 when the session has none (seq starts at 1).
    pub fn last_seq(&self, session: &SessionId) -> Result<u64, StoreError> {
        let conn = self.reader();
        summary(&conn, &self.path, session)?;
        let seq: Option<u64> = conn
            .prepare_cached("SELECT MAX(seq) FROM events WHERE session_id = ?1")
            .and_then(|mut st| st.query_row([session.as_str()], |r| r.get(0)))
            .at(&self.path)?;
        Ok(seq.unwrap_or(0))
    }

    /// How an agent's tool calls from `first_call` on ended, for a resume to settle
    /// the calls its history leaves without results: the agent's `tool_call`,
    /// `tool_output`, `approval_request` and `approval_resolved` events from that
    /// call's `tool_call` on, in seq order (none when the call was never announced).
    pub fn calls_from(
        &self,
        session: &SessionId,
        agent: &AgentId,
        first_call: &str,
    ) -> Result<Vec<AgentEvent>, StoreError> {
        let conn = self.reader();
        let rows: Vec<String> = conn
            .prepare_cached(
                "SELECT json FROM events WHERE session_id = ?1 AND agent_id = ?2
                   AND type IN ('tool_call', 'tool_output', 'approval_request', 'approval_resolved')
                   AND seq >= (SELECT MIN(seq) FROM events WHERE session_id = ?1 AND agent_id = ?2
                               AND type = 'tool_call' AND json_extract(json, '$.call_id') = ?3)
                 ORDER BY seq",
            )
            .and_then(|mut st| st.query_map([session.as_str(), agent.as_str(), first_call], |r| r.get(0))?.collect())
            .at(&self.path)?;
        decode_events(rows)
    }

    /// The tree's events for the review screen: agent_started, agent_status,
    /// usage, approval_request, approval_resolved, task_notification and
    /// agent_finished of every agent, in seq order.
    pub fn skeleton(&self, session: &SessionId) -> Result<Vec<AgentEvent>, StoreError> {
        let conn = self.reader();
        summary(&conn, &self.path, session)?;
        let rows: Vec<String> = conn
            .prepare_cached(&format!(
                "SELECT json FROM events WHERE session_id = ?1 AND {} ORDER BY seq",
                *SKELETON_TYPES_SQL
            ))
            .and_then(|mut st| st.query_map([session.as_str()], |r| r.get(0))?.collect())
            .at(&self.path)?;
        decode_events(rows)
    }

    /// Every file change of the session, in order: `file_changed` events (the
    /// Changes view, `arbor changes`, a stored session's revert).
    pub fn changes(&self, session: &SessionId) -> Result<Vec<AgentEvent>, StoreError> {
        let conn = self.reader();
        summary(&conn, &self.path, session)?;
        let rows: Vec<String> = conn
            .prepare_cached("SELECT json FROM events WHERE session_id = ?1 AND type = 'file_changed' ORDER BY seq")
            .and_then(|mut st| st.query_map([session.as_str()], |r| r.get(0))?.collect())
            .at(&self.path)?;
        decode_events(rows)
    }

    /// One page of an agent's transcript: the `limit` newest of its user
    /// messages, thoughts, responses, tool calls and outputs (and chunks no
    /// aggregate superseded) with seq below `before` (all when None), oldest first.
    pub fn transcript(
        &self,
        session: &SessionId,
        agent: &AgentId,
        before: Option<u64>,
        limit: u32,
    ) -> Result<EventPage, StoreError> {
        let conn = self.reader();
        self::agent(&conn, &self.path, session, agent).map_err(|e| match e {
            StoreError::UnknownAgent(_) if summary(&conn, &self.path, session).is_err() => {
                StoreError::UnknownSession(session.to_string())
            }
            e => e,
        })?;
        let before = before.map_or(i64::MAX, |b| i64::try_from(b).unwrap_or(i64::MAX));
        // One more than asked: whether it comes back says if older events exist.
        let mut rows: Vec<String> = conn
            .prepare_cached(&format!(
                "SELECT json FROM events
                 WHERE session_id = ?1 AND agent_id = ?2 AND seq < ?3 AND superseded = 0 AND {}
                 ORDER BY seq DESC LIMIT ?4",
                *TRANSCRIPT_TYPES_SQL
            ))
            .and_then(|mut st| {
                st.query_map(params![session.as_str(), agent.as_str(), before, i64::from(limit) + 1], |r| r.get(0))?
                    .collect()
            })
            .at(&self.path)?;
        let more_before = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        rows.reverse();
        Ok(EventPage { events: decode_events(rows)?, more_before })
    }

    /// The agent's stored model history, as [`Store::save_history`] left it.
    pub fn history(&self, session: &SessionId, agent: &AgentId) -> Result<Vec<Message>, StoreError> {
        let conn = self.reader();
        summary(&conn, &self.path, session)?;
        let rows: Vec<String> = conn
            .prepare_cached("SELECT json FROM histories WHERE session_id = ?1 AND agent_id = ?2 ORDER BY idx")
            .and_then(|mut st| st.query_map([session.as_str(), agent.as_str()], |r| r.get(0))?.collect())
            .at(&self.path)?;
        rows.iter().map(|j| serde_json::from_str(j).map_err(StoreError::from)).collect()
    }

    /// The session, its agents and every stored event; with `agent`, that
    /// agent's record and events only.
    pub fn export(&self, session: &SessionId, agent: Option<&AgentId>) -> Result<SessionExport, StoreError> {
        let conn = self.reader();
        // One read transaction, so the three parts agree while appends go on.
        let tx = conn.unchecked_transaction().at(&self.path)?;
        let summary = summary(&tx, &self.path, session)?;
        let agents = match agent {
            None => agents(&tx, &self.path, session)?,
            Some(a) => vec![self::agent(&tx, &self.path, session, a)?],
        };
        let events = all_events(&tx, &self.path, session, agent)?;
        let all = match agent {
            None => agents.clone(),
            Some(_) => self::agents(&tx, &self.path, session)?,
        };
        tx.finish().at(&self.path)?;
        let figures = arbor_protocol::AgentStates::from_agents(all).usage_update(agents.iter().map(|a| &a.id));
        Ok(SessionExport { session: summary, agents, events, figures })
    }
}
