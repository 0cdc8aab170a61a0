//! The session's one ordered event stream: stamps each event with the session
//! id, a gap-free sequence number and the clock's time, and hands it on in that
//! order. It lives in the session's state, behind the state's one lock, so an
//! event is numbered, applied to its agent's record and sent as one step.

use crate::clock::Clock;
use arbor_protocol::{AgentEvent, AgentId, EventKind, SessionId};
use std::sync::Arc;
use tokio::sync::mpsc;

/// Receives a session's events, in `seq` order.
pub type EventStream = mpsc::UnboundedReceiver<AgentEvent>;

pub(crate) struct EventSink {
    session_id: SessionId,
    clock: Arc<dyn Clock>,
    seq: u64,
    tx: mpsc::UnboundedSender<AgentEvent>,
}

impl EventSink {
    /// Numbers events from `last_seq + 1`: 1 for a new session, on from the stored
    /// events for a resumed one, so a session's `seq` stays gap-free across runs.
    pub(crate) fn new(session_id: SessionId, clock: Arc<dyn Clock>, last_seq: u64) -> (Self, EventStream) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { session_id, clock, seq: last_seq, tx }, rx)
    }

    /// The next event, numbered and timed.
    pub(crate) fn stamp(&mut self, agent_id: &AgentId, kind: EventKind) -> AgentEvent {
        self.seq += 1;
        AgentEvent {
            agent_id: agent_id.clone(),
            session_id: self.session_id.clone(),
            seq: self.seq,
            ts: self.clock.now_ms(),
            kind,
        }
    }

    pub(crate) fn send(&self, event: AgentEvent) {
        // A subscriber that hung up no longer wants events; the run goes on without it.
        let _ = self.tx.send(event);
    }
}
