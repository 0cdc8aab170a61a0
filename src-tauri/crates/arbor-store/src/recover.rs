//! Start-up recovery: sessions whose writing process died left agents marked
//! queued, running or waiting for an approval. Each request nobody answered gets
//! an `approval_resolved: withdrawn` (no card waits on a dead process; the call
//! is asked again when the session is continued) and each such agent an
//! `agent_status: interrupted` event, so the event log itself says what happened;
//! the session is marked interrupted and no longer owned.

use crate::Store;
use crate::error::{At, StoreError};
use crate::write::append_in;
use arbor_protocol::{AgentEvent, AgentId, AgentStatus, ApprovalResolved, EventKind, SessionId, StatusChanged};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

impl Store {
    /// Marks the agents of sessions no process has a claim on (their owner died)
    /// as interrupted, appending an `agent_status` event for each with the next
    /// seq and the time of the session's last event. Returns the sessions it touched.
    /// Each is claimed while it is written, so no process takes it over meanwhile.
    pub fn recover(&self, now_ms: i64) -> Result<Vec<SessionId>, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).at(&self.path)?;
        // Candidates: a session still marked running, or one with an agent still at work.
        let candidates: Vec<String> = tx
            .prepare(
                "SELECT id FROM sessions WHERE status = 'running'
                 OR id IN (SELECT session_id FROM agents WHERE status IN ('queued', 'running', 'waiting_approval'))
                 ORDER BY started_at, id",
            )
            .and_then(|mut st| st.query_map([], |r| r.get(0))?.collect())
            .at(&self.path)?;
        let mut touched = Vec::new();
        // Held until the transaction is in: a newcomer then reads what recovery wrote.
        let mut claims = Vec::new();
        for id in candidates {
            let session = SessionId(id);
            // Its owner (another process, or this one) still runs it: a live session is never
            // interrupted. A claim ends with its process, so a dead owner's is free.
            let claim = match self.try_claim(&session) {
                Ok(Some(c)) => c,
                Ok(None) => continue,
                Err(e) => {
                    tracing::warn!(session = %session, error = %e, "could not check who runs a session; left as it is");
                    continue;
                }
            };
            if recover_in(&tx, &self.path, &session, now_ms)? {
                touched.push(session);
            }
            claims.push(claim);
        }
        tx.commit().at(&self.path)?;
        drop(claims);
        Ok(touched)
    }

    /// Recovers one session this process has just claimed (its owner may have died
    /// after this process started): what its last owner left at work is
    /// interrupted and its open requests withdrawn, before it is read to go on.
    /// True when there was anything to recover.
    pub fn recover_claimed(&self, claim: &crate::Claim, now_ms: i64) -> Result<bool, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).at(&self.path)?;
        let done = recover_in(&tx, &self.path, claim.session(), now_ms)?;
        tx.commit().at(&self.path)?;
        Ok(done)
    }
}

/// Within `tx`: withdraws the session's unanswered requests and interrupts its
/// agents still at work, in the log itself; marks the session interrupted and no
/// longer owned. False when nothing was at work (it is left as it is).
fn recover_in(
    tx: &rusqlite::Transaction<'_>,
    path: &std::path::Path,
    session: &SessionId,
    now_ms: i64,
) -> Result<bool, StoreError> {
    let running: bool = tx
        .prepare_cached("SELECT status = 'running' FROM sessions WHERE id = ?1")
        .and_then(|mut st| st.query_row([session.as_str()], |r| r.get(0)).optional())
        .at(path)?
        .unwrap_or(false);
    let active: Vec<String> = tx
        .prepare_cached(
            "SELECT id FROM agents WHERE session_id = ?1
                   AND status IN ('queued', 'running', 'waiting_approval')
                 ORDER BY depth, started_at, id",
        )
        .and_then(|mut st| st.query_map([session.as_str()], |r| r.get(0))?.collect())
        .at(path)?;
    if active.is_empty() && !running {
        return Ok(false);
    }
    // Stamped with the time of the session's last event, the nearest known to when the
    // process died: an interrupted run's wall time must not count the hours until now.
    let (last, last_ts): (Option<u64>, Option<i64>) = tx
        .prepare_cached("SELECT MAX(seq), MAX(ts) FROM events WHERE session_id = ?1")
        .and_then(|mut st| st.query_row([session.as_str()], |r| Ok((r.get(0)?, r.get(1)?))).optional())
        .at(path)?
        .unwrap_or((None, None));
    let unanswered: Vec<(String, String)> = tx
        .prepare_cached(
            "SELECT agent_id, json_extract(json, '$.request_id') FROM events
                 WHERE session_id = ?1 AND type = 'approval_request'
                   AND json_extract(json, '$.request_id') NOT IN (
                       SELECT json_extract(json, '$.request_id') FROM events
                       WHERE session_id = ?1 AND type = 'approval_resolved')
                 ORDER BY seq",
        )
        .and_then(|mut st| st.query_map([session.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .at(path)?;
    let mut seq = last.unwrap_or(0);
    let ts = last_ts.unwrap_or(now_ms);
    let mut event = |agent: String, kind: EventKind| {
        seq += 1;
        AgentEvent { agent_id: AgentId(agent), session_id: session.clone(), seq, ts, kind }
    };
    let withdrawn = unanswered
        .into_iter()
        .map(|(agent, request_id)| (agent, EventKind::ApprovalResolved(ApprovalResolved::withdrawn(request_id))));
    let interrupted = active
        .into_iter()
        .map(|agent| (agent, EventKind::AgentStatus(StatusChanged { status: AgentStatus::Interrupted })));
    let events: Vec<AgentEvent> =
        withdrawn.collect::<Vec<_>>().into_iter().chain(interrupted).map(|(a, k)| event(a, k)).collect();
    append_in(tx, path, &events)?;
    tx.prepare_cached("UPDATE sessions SET status = 'interrupted', owner_pid = NULL WHERE id = ?1")
        .and_then(|mut st| st.execute(params![session.as_str()]))
        .at(path)?;
    tracing::info!(session = %session, agents = events.len(), "recovered an interrupted session");
    Ok(true)
}
