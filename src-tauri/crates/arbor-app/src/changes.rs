//! File changes through the one API: a session's changes as stored (live ones
//! are stored before they are shown, so the same read serves both), and
//! reverting an agent's changes, in the running session or a stored one.

use crate::error::{AppError, AppErrorKind};
use crate::host::{Host, err};
use crate::transcripts::store_err;
use arbor_core::changes::{apply_revert, plan_revert, read_current, restored_change};
use arbor_core::{Clock, SystemClock};
use arbor_protocol::{AgentEvent, AgentId, EventKind, FileChanged, RevertConflict, RevertOutcome, SessionId};
use serde::Serialize;
use std::path::Path;

/// One change and the agent it is attributed to.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct AgentChange {
    pub seq: u64,
    pub ts: i64,
    pub agent_id: AgentId,
    pub change: FileChanged,
}

impl AgentChange {
    fn of(e: AgentEvent) -> Option<AgentChange> {
        match e.kind {
            EventKind::FileChanged(change) => Some(AgentChange { seq: e.seq, ts: e.ts, agent_id: e.agent_id, change }),
            _ => None,
        }
    }
}

impl Host {
    /// Every file change of a session, in order (of one agent, when given).
    pub async fn changes(&self, session: SessionId, agent: Option<AgentId>) -> Result<Vec<AgentChange>, AppError> {
        let store = self.store()?;
        let events = tokio::task::spawn_blocking(move || store.changes(&session))
            .await
            .map_err(|e| err(AppErrorKind::Store, e))?
            .map_err(store_err)?;
        Ok(events
            .into_iter()
            .filter_map(AgentChange::of)
            .filter(|c| agent.as_ref().is_none_or(|a| c.agent_id == *a))
            .collect())
    }

    /// Undoes `agent`'s changes (all, or those to `paths`): all or nothing, each
    /// file refused when anyone changed it since. In the running session the
    /// session does it (and its events say so); in a stored one the revert's
    /// events are appended to the stored session.
    pub async fn revert(
        &self,
        session: SessionId,
        agent: AgentId,
        paths: Vec<String>,
    ) -> Result<RevertOutcome, AppError> {
        if let Some(live) = self.live(&session) {
            return live.revert_changes(&agent, &paths).await.map_err(|e| err(AppErrorKind::Session, e));
        }
        let store = self.store()?;
        tokio::task::spawn_blocking(move || revert_stored(&store, &session, &agent, &paths))
            .await
            .map_err(|e| err(AppErrorKind::Store, e))?
    }
}

fn revert_stored(
    store: &arbor_store::Store,
    session: &SessionId,
    agent: &AgentId,
    paths: &[String],
) -> Result<RevertOutcome, AppError> {
    let changes: Vec<AgentChange> =
        store.changes(session).map_err(store_err)?.into_iter().filter_map(AgentChange::of).collect();
    // The agent's tree: where its changes were made (its own worktree, or the workspace).
    let Some(root) = changes.iter().find(|c| c.agent_id == *agent).map(|c| c.change.root.clone()) else {
        return Ok(RevertOutcome {
            reverted: Vec::new(),
            conflicts: vec![RevertConflict { path: String::new(), reason: format!("agent {agent} changed no files") }],
        });
    };
    let log: Vec<(AgentId, FileChanged)> =
        changes.into_iter().filter(|c| c.change.root == root).map(|c| (c.agent_id, c.change)).collect();
    let root = Path::new(&root);
    if !root.is_dir() {
        return Err(err(AppErrorKind::NotFound, format!("the working tree {} is gone", root.display())));
    }
    let current = |rel: &str| read_current(root, rel);
    let plan = match plan_revert(&log, agent, paths, &current) {
        Ok(plan) => plan,
        Err(conflicts) => return Ok(RevertOutcome { reverted: Vec::new(), conflicts }),
    };
    apply_revert(root, &plan).map_err(|e| err(AppErrorKind::Session, e))?;
    let last = store.last_seq(session).map_err(store_err)?;
    let now = SystemClock.now_ms();
    let events: Vec<AgentEvent> = plan
        .iter()
        .enumerate()
        .map(|(i, r)| AgentEvent {
            agent_id: agent.clone(),
            session_id: session.clone(),
            seq: last + 1 + i as u64,
            ts: now,
            kind: EventKind::FileChanged(restored_change(format!("chg-revert-{now}-{}", i + 1), root, r)),
        })
        .collect();
    store.append(&events).map_err(store_err)?;
    Ok(RevertOutcome { reverted: plan.into_iter().map(|r| r.path).collect(), conflicts: Vec::new() })
}
