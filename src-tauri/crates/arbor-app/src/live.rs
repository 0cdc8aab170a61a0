//! The live sessions a host holds: any number side by side, each driven by this
//! process alone (its writer holds the session's claim until its last event is
//! stored), each with its own event stream, limits and budgets. Starting one
//! never stops another; closing one interrupts its agents (nobody stopped
//! them) and leaves it to be continued. What a session *is* lives in
//! `arbor_core::Session`; this is only the list, in the order they started.

use crate::error::{AppError, AppErrorKind};
use crate::host::{Host, err};
use crate::record::Writing;
use crate::sessions::SessionInfo;
use arbor_core::Session;
use arbor_protocol::{Command, CommandReply, SessionId};
use parking_lot::Mutex;
use std::path::Path;
use std::time::Duration;

/// A session this host runs.
pub(crate) struct Running {
    pub(crate) session: Session,
    pub(crate) info: SessionInfo,
    /// Its writer, when transcripts are kept.
    pub(crate) writing: Option<Writing>,
}

impl Running {
    /// Closes it: its agents end interrupted, a call waiting for a person stays
    /// open for a continue. The writer, returned, ends once they all have.
    pub(crate) fn close(self) -> Option<Writing> {
        self.session.shutdown();
        self.writing
    }
}

#[derive(Default)]
pub(crate) struct LiveSessions(Mutex<Vec<Running>>);

impl LiveSessions {
    pub(crate) fn add(&self, running: Running) {
        self.0.lock().push(running);
    }

    /// The live session `id`, to act on through it.
    pub(crate) fn session(&self, id: &SessionId) -> Option<Session> {
        self.0.lock().iter().find(|r| r.info.session_id == *id).map(|r| r.session.clone())
    }

    pub(crate) fn contains(&self, id: &SessionId) -> bool {
        self.0.lock().iter().any(|r| r.info.session_id == *id)
    }

    /// Every live session, in the order they started.
    pub(crate) fn sessions(&self) -> Vec<Session> {
        self.0.lock().iter().map(|r| r.session.clone()).collect()
    }

    /// Every live session's info, in the order they started.
    pub(crate) fn infos(&self) -> Vec<SessionInfo> {
        self.0.lock().iter().map(|r| r.info.clone()).collect()
    }

    pub(crate) fn len(&self) -> usize {
        self.0.lock().len()
    }

    /// Takes `id` out of the list (to close it).
    pub(crate) fn take(&self, id: &SessionId) -> Option<Running> {
        let mut all = self.0.lock();
        let at = all.iter().position(|r| r.info.session_id == *id)?;
        Some(all.remove(at))
    }

    /// Takes every session out (the app quits).
    pub(crate) fn take_all(&self) -> Vec<Running> {
        std::mem::take(&mut *self.0.lock())
    }

    /// The session that started first among those with no agent at work: the
    /// one to close when the cap on live sessions is reached.
    /// How many have an agent at work or waiting for a person.
    pub(crate) fn at_work(&self) -> usize {
        self.0.lock().iter().filter(|r| !r.session.is_idle()).count()
    }

    pub(crate) fn oldest_idle(&self) -> Option<SessionId> {
        self.0.lock().iter().find(|r| r.session.is_idle()).map(|r| r.info.session_id.clone())
    }

    /// Calls `f` on each live session working in `workspace`.
    pub(crate) fn in_workspace(&self, workspace: &Path, mut f: impl FnMut(&mut Running)) {
        for r in self.0.lock().iter_mut().filter(|r| Path::new(&r.info.workspace) == workspace) {
            f(r);
        }
    }
}

/// How long a closed session's writer may take to store its last events.
const SETTLE: Duration = Duration::from_secs(10);

impl Host {
    /// The live session `id`: acting on it goes through it, not around it.
    pub(crate) fn live(&self, id: &SessionId) -> Option<Session> {
        self.live.session(id)
    }

    /// Every live session, in the order they started.
    /// How many live sessions have an agent at work or waiting for a person:
    /// what closing the app would interrupt.
    pub fn sessions_at_work(&self) -> usize {
        self.live.at_work()
    }

    pub fn live_sessions(&self) -> Vec<SessionInfo> {
        self.live.infos()
    }

    /// A person's command to the live session `id`: answered with what it created.
    pub fn send(&self, id: &SessionId, command: Command) -> Result<CommandReply, AppError> {
        let Some(session) = self.live.session(id) else {
            return Err(AppError::new(
                AppErrorKind::NoSession,
                format!("session {id} is not running here: continue it from the history first"),
            ));
        };
        session.submit(command).map_err(|e| err(AppErrorKind::Session, e))
    }

    /// Closes the live session `id`: its agents end interrupted (a call waiting
    /// for a person stays open, to be asked again when it is continued). Needs
    /// no runtime: quitting the app may call it from any thread. The writer,
    /// returned, ends once the last event is stored.
    pub fn close_session(&self, id: &SessionId) -> Option<Writing> {
        self.live.take(id)?.close()
    }

    /// Closes every live session (the app quits); their writers, to wait for.
    /// Those that had agents at work are offered at the next start, as a crash's
    /// are: their agents are interrupted, not done.
    pub fn close_all(&self) -> Vec<Writing> {
        let all = self.live.take_all();
        let busy: Vec<SessionId> =
            all.iter().filter(|r| !r.session.is_idle()).map(|r| r.info.session_id.clone()).collect();
        if let Some(file) = self.closed_busy_file() {
            let ids: Vec<&str> = busy.iter().map(SessionId::as_str).collect();
            let written =
                serde_json::to_vec(&ids).map_err(std::io::Error::other).and_then(|b| std::fs::write(&file, b));
            if let Err(e) = written {
                tracing::warn!(error = %e, file = %file.display(), "could not note the sessions closed at work");
            }
        }
        all.into_iter().filter_map(Running::close).collect()
    }

    /// Runs the live session `id`'s SessionEnd hooks (`reason`, Claude Code's: `clear`,
    /// `logout`, `prompt_input_exit`, `other`), each within its timeout, before it closes.
    pub async fn end_hooks(&self, id: &SessionId, reason: &str) {
        if let Some(session) = self.live.session(id) {
            session.end_hooks(reason).await;
        }
    }

    /// Runs every live session's SessionEnd hooks at once (the app quits); a front end
    /// bounds how long it waits.
    pub async fn end_all_hooks(&self, reason: &str) {
        let sessions = self.live.sessions();
        futures::future::join_all(sessions.iter().map(|s| s.end_hooks(reason))).await;
    }

    /// Closes the live session `id` and waits until its last events are stored.
    pub async fn close_and_settle(&self, id: &SessionId) {
        self.end_hooks(id, "other").await;
        if let Some(writing) = self.close_session(id)
            && !writing.settle(SETTLE).await
        {
            tracing::warn!(session = %id, "the closed session's writer is still busy");
        }
    }

    /// Before a new live session, at the cap: the oldest one with nothing at work
    /// is closed (it is stored, and can be continued); if every one is at work,
    /// the new one is refused.
    pub(crate) async fn make_room(&self, cap: u32) -> Result<(), AppError> {
        let cap = usize::try_from(cap.max(1)).unwrap_or(usize::MAX);
        while self.live.len() >= cap {
            let Some(idle) = self.live.oldest_idle() else {
                return Err(AppError::new(
                    AppErrorKind::Session,
                    format!(
                        "{} sessions are at work, the most Settings allows at once: stop one, or raise \
                         \"Live sessions\" in Settings",
                        self.live.len()
                    ),
                ));
            };
            tracing::info!(session = %idle, cap, "closing the oldest finished session to make room");
            self.close_and_settle(&idle).await;
        }
        Ok(())
    }
}
