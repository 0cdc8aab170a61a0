//! Start-up recovery: sessions whose writing process died left agents marked
//! queued, running or waiting for an approval. Each such agent gets an
//! `agent_status: interrupted` event appended, so the event log itself says what
//! happened, and its session is marked interrupted and no longer owned.

use crate::Store;
use crate::error::{At, StoreError};
use crate::write::append_in;
use arbor_protocol::{AgentEvent, AgentId, AgentStatus, EventKind, SessionId, StatusChanged};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

impl Store {
    /// Marks the agents of sessions whose owner process is gone (not this one)
    /// as interrupted, appending an `agent_status` event for each with the next
    /// seq and the time of the session's last event. Returns the sessions it touched.
    pub fn recover(&self, now_ms: i64) -> Result<Vec<SessionId>, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).at(&self.path)?;
        // Candidates: a session still marked running, or one with an agent still at work.
        let candidates: Vec<(String, Option<i64>)> = tx
            .prepare(
                "SELECT id, owner_pid FROM sessions WHERE status = 'running'
                 OR id IN (SELECT session_id FROM agents WHERE status IN ('queued', 'running', 'waiting_approval'))
                 ORDER BY started_at, id",
            )
            .and_then(|mut st| st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
            .at(&self.path)?;
        let me = i64::from(std::process::id());
        let mut touched = Vec::new();
        for (id, owner) in candidates {
            // A NULL owner: the session was ended (or recovered) with agents still marked at work.
            if owner.is_some_and(|pid| pid == me || process_alive(pid)) {
                continue;
            }
            let session = SessionId(id);
            let active: Vec<String> = tx
                .prepare_cached(
                    "SELECT id FROM agents WHERE session_id = ?1
                       AND status IN ('queued', 'running', 'waiting_approval')
                     ORDER BY depth, started_at, id",
                )
                .and_then(|mut st| st.query_map([session.as_str()], |r| r.get(0))?.collect())
                .at(&self.path)?;
            // Stamped with the time of the session's last event, the nearest known to when the
            // process died: an interrupted run's wall time must not count the hours until now.
            let (last, last_ts): (Option<u64>, Option<i64>) = tx
                .prepare_cached("SELECT MAX(seq), MAX(ts) FROM events WHERE session_id = ?1")
                .and_then(|mut st| st.query_row([session.as_str()], |r| Ok((r.get(0)?, r.get(1)?))).optional())
                .at(&self.path)?
                .unwrap_or((None, None));
            let mut seq = last.unwrap_or(0);
            let ts = last_ts.unwrap_or(now_ms);
            let events: Vec<AgentEvent> = active
                .into_iter()
                .map(|agent| {
                    seq += 1;
                    AgentEvent {
                        agent_id: AgentId(agent),
                        session_id: session.clone(),
                        seq,
                        ts,
                        kind: EventKind::AgentStatus(StatusChanged { status: AgentStatus::Interrupted }),
                    }
                })
                .collect();
            append_in(&tx, &self.path, &events)?;
            tx.prepare_cached("UPDATE sessions SET status = 'interrupted', owner_pid = NULL WHERE id = ?1")
                .and_then(|mut st| st.execute(params![session.as_str()]))
                .at(&self.path)?;
            tracing::info!(session = %session, owner = ?owner, agents = events.len(), "recovered an interrupted session");
            touched.push(session);
        }
        tx.commit().at(&self.path)?;
        Ok(touched)
    }
}

/// Whether a process with this pid exists. Where that cannot be asked, every
/// owner is taken as alive: a live session must never be marked interrupted.
#[cfg(unix)]
fn process_alive(pid: i64) -> bool {
    // 0 and negative pids would address process groups, never one owner.
    let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else { return false };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        // EPERM: it exists but belongs to someone else.
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

#[cfg(not(unix))]
fn process_alive(_pid: i64) -> bool {
    true
}
