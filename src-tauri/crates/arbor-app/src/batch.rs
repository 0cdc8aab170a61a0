//! Hands a session's events on in batches, at most one per frame interval, so
//! a UI that draws once a frame receives one message a frame however fast the
//! agents stream (design.md §6.5: route by rate).

use arbor_protocol::AgentEvent;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// About one frame at 60 Hz.
pub const FRAME: Duration = Duration::from_millis(16);

/// Forwards `events` to `send` in order, batched: the first event of a batch
/// waits at most `interval`. Returns when the stream ends or `send` returns false
/// (the receiver is gone).
pub async fn forward(
    mut events: UnboundedReceiver<AgentEvent>,
    interval: Duration,
    mut send: impl FnMut(Vec<AgentEvent>) -> bool,
) {
    loop {
        let Some(first) = events.recv().await else { return };
        let mut batch = vec![first];
        let deadline = tokio::time::Instant::now() + interval;
        let mut closed = false;
        loop {
            // Take what is already queued without waiting, then wait for the frame to end.
            while let Ok(ev) = events.try_recv() {
                batch.push(ev);
            }
            match tokio::time::timeout_at(deadline, events.recv()).await {
                Ok(Some(ev)) => batch.push(ev),
                Ok(None) => {
                    closed = true;
                    break;
                }
                Err(_) => break,
            }
        }
        if !send(batch) || closed {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{AgentId, EventKind, SessionId, Text};

    fn ev(seq: u64) -> AgentEvent {
        AgentEvent {
            agent_id: AgentId("agent-0001".into()),
            session_id: SessionId("s".into()),
            seq,
            ts: 0,
            kind: EventKind::ResponseChunk(Text { content: "x".into() }),
        }
    }

    #[tokio::test]
    async fn events_arrive_in_order_in_one_batch_per_interval() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (out_tx, mut out) = tokio::sync::mpsc::unbounded_channel();
        for s in 1..=1000 {
            tx.send(ev(s)).unwrap();
        }
        let task = tokio::spawn(forward(rx, FRAME, move |b| out_tx.send(b).is_ok()));
        let first = out.recv().await.unwrap();
        assert_eq!(first.len(), 1000, "everything queued within a frame goes in one batch");
        tokio::time::sleep(FRAME * 3).await;
        tx.send(ev(1001)).unwrap();
        tx.send(ev(1002)).unwrap();
        drop(tx);
        let second = out.recv().await.unwrap();
        let seqs: Vec<u64> = first.iter().chain(&second).map(|e| e.seq).collect();
        assert_eq!(seqs, (1..=1002).collect::<Vec<_>>());
        task.await.unwrap();
    }

    #[tokio::test]
    async fn forwarding_stops_when_the_receiver_is_gone() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tx.send(ev(1)).unwrap();
        let mut calls = 0;
        forward(rx, Duration::from_millis(1), |_| {
            calls += 1;
            false
        })
        .await;
        assert_eq!(calls, 1);
        assert!(tx.is_closed(), "the stream is dropped with the forwarder");
    }
}
