//! Persist before display: a session's events go into the store first and only
//! then on to whoever shows them (the UI's bridge, the CLI's printer), so what a
//! person has seen survives a killed process. One writer thread per session
//! appends each burst of events in one transaction, together with the agents'
//! history deltas from the [`Journal`], then hands the events on.
//!
//! A failing store (a full disk, a file taken away) does not freeze the session:
//! the events are still shown, the problem is reported once, and the unsaved
//! events are kept and written with the next batch that succeeds.

use arbor_core::{Clock, EventStream, Journal, SystemClock};
use arbor_protocol::{AgentEvent, AgentId, Message, SessionId};
use arbor_store::{Claim, NewSession, Store, StoreError};
use parking_lot::Mutex;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Most events written in one transaction: bounds the delay before the first is shown.
const MAX_BATCH: usize = 4096;
/// A burst smaller than this waits [`GATHER`] once for more before it is written:
/// a commit's WAL writes cost about the same for 5 events as for 50, and during a
/// fast stream they were most of the app's CPU. Well under a frame, so nothing shows later.
const GATHER_BELOW: usize = 64;
const GATHER: std::time::Duration = std::time::Duration::from_millis(2);

/// One agent's history from `start` on, as the runtime reported it.
struct Delta {
    agent: AgentId,
    start: usize,
    messages: Vec<Message>,
}

/// The session's [`Journal`]: queues history deltas for the writer thread, so
/// an agent's task never waits on the disk.
pub struct Deltas {
    tx: mpsc::UnboundedSender<Delta>,
}

impl Journal for Deltas {
    fn history(&self, _session: &SessionId, agent: &AgentId, start: usize, messages: &[Message]) {
        let _ = self.tx.send(Delta { agent: agent.clone(), start, messages: messages.to_vec() });
    }
}

/// Where the store's first failure is kept for the front end to report.
#[derive(Clone, Default)]
pub struct Problem(Arc<Mutex<Option<String>>>);

impl Problem {
    pub fn get(&self) -> Option<String> {
        self.0.lock().clone()
    }

    fn set(&self, message: String) {
        let mut p = self.0.lock();
        if p.is_none() {
            *p = Some(message);
        }
    }
}

/// A recorder waiting for its session: give [`Recorder::journal`] to the
/// session's config, then [`Recorder::record`] its event stream.
pub struct Recorder {
    journal: Arc<Deltas>,
    deltas: mpsc::UnboundedReceiver<Delta>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self::new()
    }
}

impl Recorder {
    pub fn new() -> Self {
        let (tx, deltas) = mpsc::unbounded_channel();
        Self { journal: Arc::new(Deltas { tx }), deltas }
    }

    pub fn journal(&self) -> Arc<dyn Journal> {
        self.journal.clone()
    }

    /// Starts the writer: `events` are stored, then passed on in the returned
    /// stream, in order. The session row is written (or re-owned, for a resumed
    /// session) before any event. Fails only when that first write does. The
    /// writer ends once the session's last event is stored, and lets go of
    /// `claim` then: the session is this process's until it is.
    pub fn record(
        self,
        store: Arc<Store>,
        session: NewSession,
        claim: Claim,
        events: EventStream,
        problem: Problem,
    ) -> Result<(EventStream, Writing), RecordError> {
        store.begin_session(&session, &claim)?;
        let (out, shown) = mpsc::unbounded_channel();
        let writer = Writer {
            store,
            session: session.id,
            deltas: self.deltas,
            out,
            problem,
            unsaved: Vec::new(),
            _claim: claim,
        };
        let (done_tx, done) = tokio::sync::watch::channel(false);
        std::thread::Builder::new()
            .name("arbor-store-writer".into())
            .spawn(move || {
                crate::priority::lower_this_thread();
                writer.run(events);
                done_tx.send_replace(true);
            })
            .map_err(RecordError::Thread)?;
        Ok((shown, Writing(done)))
    }
}

/// A session's writer thread, to wait for.
#[derive(Clone)]
pub struct Writing(tokio::sync::watch::Receiver<bool>);

impl Writing {
    /// Waits (up to `limit`) until the session's last event is stored and the
    /// session is marked ended: a process about to exit, or a stopped session
    /// about to be read back to be resumed, needs its final events in the file.
    /// The writer ends once the session's agents have all ended.
    pub async fn settle(&self, limit: std::time::Duration) -> bool {
        let mut done = self.0.clone();
        tokio::time::timeout(limit, done.wait_for(|d| *d)).await.is_ok_and(|r| r.is_ok())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("could not start the transcript writer: {0}")]
    Thread(std::io::Error),
}

struct Writer {
    store: Arc<Store>,
    session: SessionId,
    deltas: mpsc::UnboundedReceiver<Delta>,
    out: mpsc::UnboundedSender<AgentEvent>,
    problem: Problem,
    /// History deltas not written yet (queued, or their write failed).
    unsaved: Vec<Delta>,
    /// Held until the writer ends, after the session is marked ended.
    _claim: Claim,
}

impl Writer {
    fn run(mut self, mut events: EventStream) {
        let _span = tracing::info_span!("store_writer", session_id = %self.session).entered();
        // Events whose write failed: shown already, written with the next batch that succeeds.
        let mut pending: Vec<AgentEvent> = Vec::new();
        while let Some(first) = events.blocking_recv() {
            let mut fresh = vec![first];
            drain(&mut events, &mut fresh);
            if fresh.len() < GATHER_BELOW {
                std::thread::sleep(GATHER);
                drain(&mut events, &mut fresh);
            }
            let from = pending.len();
            pending.append(&mut fresh);
            let stored = self.store.append(&pending);
            let fresh = pending.split_off(from);
            match stored {
                Ok(()) => pending.clear(),
                Err(e) => {
                    tracing::error!(error = %e, "events could not be stored; showing them anyway and retrying");
                    self.problem.set(format!("transcripts are not being saved: {e}"));
                    pending.extend(fresh.iter().cloned());
                }
            }
            self.save_histories();
            // Nobody may be showing them any more; the session's events are still stored.
            for e in fresh {
                let _ = self.out.send(e);
            }
        }
        if !pending.is_empty()
            && let Err(e) = self.store.append(&pending)
        {
            tracing::error!(error = %e, lost = pending.len(), "the session's last events could not be stored");
        }
        self.save_histories();
        if let Err(e) = self.store.end_session(&self.session, SystemClock.now_ms()) {
            tracing::warn!(error = %e, "could not mark the session ended");
        }
    }

    /// Writes the history deltas queued so far, in order; a failure keeps the rest for later.
    fn save_histories(&mut self) {
        while let Ok(d) = self.deltas.try_recv() {
            self.unsaved.push(d);
        }
        let mut done = 0;
        for d in &self.unsaved {
            if let Err(e) = self.store.save_history(&self.session, &d.agent, d.start, &d.messages) {
                tracing::error!(error = %e, "an agent's history could not be stored; retrying later");
                self.problem.set(format!("transcripts are not being saved: {e}"));
                break;
            }
            done += 1;
        }
        self.unsaved.drain(..done);
    }
}

/// Moves what is waiting into `batch`, up to [`MAX_BATCH`].
fn drain(events: &mut EventStream, batch: &mut Vec<AgentEvent>) {
    while batch.len() < MAX_BATCH {
        match events.try_recv() {
            Ok(e) => batch.push(e),
            Err(_) => break,
        }
    }
}
