//! Subagents' worktrees through the one API: what a person does with a
//! finished one (in the running session, or one a past run or a crash left),
//! and every worktree Arbor has in a repository, whatever became of its session.

use crate::error::{AppError, AppErrorKind};
use crate::host::{Host, err};
use crate::transcripts::store_err;
use arbor_core::worktree;
use arbor_core::{Clock, SystemClock};
use arbor_protocol::{
    AgentEvent, AgentId, EventKind, SessionId, WorktreeAction, WorktreeFile, WorktreeState, WorktreeUpdate,
};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One of Arbor's worktrees in a repository.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct WorktreeInfo {
    pub session_id: String,
    pub agent_id: String,
    pub branch: String,
    pub path: String,
    /// What its branch changed so far (committed work).
    pub files: Vec<WorktreeFile>,
    /// Work in it not yet committed (its agent is still running, or the process died first).
    pub uncommitted: bool,
    /// Whether the session is the one running now.
    pub live: bool,
}

impl Host {
    /// Merges, keeps or discards an agent's finished worktree: through the
    /// running session when it is that one's; else from what the worktree's
    /// file says, its decision then appended to the stored session.
    pub async fn worktree_action(
        &self,
        session: SessionId,
        agent: AgentId,
        action: WorktreeAction,
    ) -> Result<WorktreeUpdate, AppError> {
        if let Some(live) = self.live(&session) {
            return live.worktree_action(&agent, action).await.map_err(|e| err(AppErrorKind::Session, e));
        }
        let store = self.store()?;
        let (s, a) = (session.clone(), agent.clone());
        let (events, detail) = tokio::task::spawn_blocking(move || Ok((store.skeleton(&s)?, store.session(&s)?)))
            .await
            .map_err(|e| err(AppErrorKind::Store, e))?
            .map_err(store_err)?;
        // Its agent ended (finished, or interrupted when its process died): no one works there now.
        let ended = detail.agents.iter().any(|x| x.id == a && x.status.is_terminal());
        let path = events
            .into_iter()
            .filter(|e| e.agent_id == a)
            .filter_map(|e| match e.kind {
                EventKind::Worktree(u) => Some(u),
                _ => None,
            })
            .next_back()
            .filter(|u| u.state.is_open() || (u.state == WorktreeState::Created && ended))
            .map(|u| PathBuf::from(u.path))
            .ok_or_else(|| {
                err(
                    AppErrorKind::NotFound,
                    format!("agent {agent} has no worktree waiting for a decision (or it is still at work)"),
                )
            })?;
        let update = tokio::task::spawn_blocking(move || decide(&path, action))
            .await
            .map_err(|e| err(AppErrorKind::Session, e))??;
        let store = self.store()?;
        let (s, u) = (session.clone(), update.clone());
        tokio::task::spawn_blocking(move || {
            let seq = store.last_seq(&s)? + 1;
            let ts = SystemClock.now_ms();
            store.append(&[AgentEvent { agent_id: agent, session_id: s, seq, ts, kind: EventKind::Worktree(u) }])
        })
        .await
        .map_err(|e| err(AppErrorKind::Store, e))?
        .map_err(store_err)?;
        Ok(update)
    }

    /// Arbor's worktrees in the repository `dir` is in.
    pub async fn worktrees(&self, dir: PathBuf) -> Result<Vec<WorktreeInfo>, AppError> {
        let live: Vec<String> = self.live.infos().into_iter().map(|i| i.session_id.to_string()).collect();
        tokio::task::spawn_blocking(move || list(&dir, &live)).await.map_err(|e| err(AppErrorKind::Workspace, e))?
    }
}

/// Carries out `action` on the worktree at `path`, from its description.
fn decide(path: &Path, action: WorktreeAction) -> Result<WorktreeUpdate, AppError> {
    let wt = worktree::described(path).ok_or_else(|| {
        err(
            AppErrorKind::NotFound,
            format!("{} has no description of its worktree: act on it with git", path.display()),
        )
    })?;
    let git = |e: worktree::WorktreeError| err(AppErrorKind::Workspace, e);
    // What the agent left uncommitted (a crash) is part of its work.
    let files = worktree::finish(&wt, "arbor: work left in the worktree").map_err(git)?;
    worktree::act(&wt, action, files).map_err(git)
}

fn list(dir: &Path, live: &[String]) -> Result<Vec<WorktreeInfo>, AppError> {
    let listed = worktree::list(dir).map_err(|e| err(AppErrorKind::Workspace, e))?;
    Ok(listed
        .into_iter()
        .map(|l| {
            let described = worktree::described(&l.path);
            let files =
                described.as_ref().and_then(|wt| worktree::files(&l.path, &wt.base, "HEAD").ok()).unwrap_or_default();
            WorktreeInfo {
                live: live.contains(&l.session),
                uncommitted: worktree::uncommitted(&l.path),
                session_id: l.session,
                agent_id: l.agent,
                branch: l.branch,
                path: l.path.display().to_string(),
                files,
            }
        })
        .collect())
}
