//! The session's one ordered event stream: stamps each event with the session
//! id, a gap-free sequence number and the clock's time, and hands it on in that order.

use crate::clock::Clock;
use arbor_protocol::{AgentEvent, AgentId, EventKind, SessionId};
use parking_lot::Mutex;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Receives a session's events, in `seq` order.
pub type EventStream = mpsc::UnboundedReceiver<AgentEvent>;

pub(crate) struct EventSink {
    session_id: SessionId,
    clock: Arc<dyn Clock>,
    /// The lock makes numbering and sending one step, so `seq` order is delivery order.
    state: Mutex<(u64, mpsc::UnboundedSender<AgentEvent>)>,
}

impl EventSink {
    /// Numbers events from `last_seq + 1`: 1 for a new session, on from the stored
    /// events for a resumed one, so a session's `seq` stays gap-free across runs.
    pub(crate) fn new(session_id: SessionId, clock: Arc<dyn Clock>, last_seq: u64) -> (Self, EventStream) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { session_id, clock, state: Mutex::new((last_seq, tx)) }, rx)
    }

    pub(crate) fn emit(&self, agent_id: &AgentId, kind: EventKind) {
        let mut state = self.state.lock();
        state.0 += 1;
        let event = AgentEvent {
            agent_id: agent_id.clone(),
            session_id: self.session_id.clone(),
            seq: state.0,
            ts: self.clock.now_ms(),
            kind,
        };
        // A subscriber that hung up no longer wants events; the run goes on without it.
        let _ = state.1.send(event);
    }

    pub(crate) fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}
