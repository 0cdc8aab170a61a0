//! Hands a session's events on in frames, at most one per frame interval, so
//! a UI that draws once a frame receives one message a frame however fast the
//! agents stream (design.md §6.5: route by rate). Within a frame, an agent's
//! consecutive stream chunks are merged into one event: twenty agents streaming
//! a few characters per event would otherwise send the UI thousands of objects
//! a second whose envelope (ids, seq, time) outweighs their text many times over.
//! A frame also carries the agents its events changed and the usage figures,
//! derived here by the one [`arbor_protocol::AgentStates`], so no front end
//! derives an agent's status, runs or turns, nor sums usage, itself; and what they
//! changed of the timeline ([`arbor_protocol::TimelineBuilder`]).

use arbor_protocol::{
    ActiveRules, AgentEvent, AgentId, ApprovalRule, EventKind, StoredAgent, TimelineUpdate, UsageUpdate,
};
use serde::Serialize;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// About one frame at 60 Hz.
pub const FRAME: Duration = Duration::from_millis(16);

/// The frame interval of a session nobody looks at: its row in a list, its
/// cards in an inbox, a notification, all fine at ten updates a second.
pub const BACKGROUND: Duration = Duration::from_millis(100);

/// A session's frame interval, which a front end changes while it runs: one
/// display frame for the session a person looks at, [`BACKGROUND`] for the
/// others (design.md §6.5, route by rate). Three live sessions at 60 frames a
/// second were 180 messages a second into one webview, two thirds of them for
/// sessions drawn as a row of the sessions list.
#[derive(Debug, Clone)]
pub struct Pace(Arc<PaceCell>);

#[derive(Debug)]
struct PaceCell {
    millis: AtomicU64,
    changed: tokio::sync::Notify,
}

impl Pace {
    pub fn every(interval: Duration) -> Self {
        Self(Arc::new(PaceCell { millis: AtomicU64::new(millis(interval)), changed: tokio::sync::Notify::new() }))
    }

    /// Takes effect at once, for the frame under way too: a session a person
    /// turns to (or turns back to when they stop typing) is sent what waited
    /// for its background frame now, not up to [`BACKGROUND`] later.
    pub fn set(&self, interval: Duration) {
        let next = millis(interval);
        if self.0.millis.swap(next, Ordering::Relaxed) != next {
            self.0.changed.notify_waiters();
        }
    }

    pub fn get(&self) -> Duration {
        Duration::from_millis(self.0.millis.load(Ordering::Relaxed))
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// One message to a front end: events in order, and what they changed of
/// the figures and rules derived from them.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct EventFrame {
    pub events: Vec<AgentEvent>,
    /// Every agent the events changed (status, runs, turns, result, budget), as
    /// Rust's one derivation ([`arbor_protocol::AgentStates`]) leaves it after them:
    /// a front end shows these and derives none of it.
    pub agents: Vec<StoredAgent>,
    /// None when no event of the frame reported usage.
    pub usage: Option<UsageUpdate>,
    /// Every approval rule in force, oldest first; None when the frame changed none.
    pub rules: Option<Vec<ApprovalRule>>,
    /// The timeline's segments the frame began or changed; None when it changed none.
    pub timeline: Option<TimelineUpdate>,
    /// The `seq` of the last event the frame covers, merged chunks included: the
    /// next frame starts right after it. A window that attaches to a running
    /// session reads what the store holds up to here and takes frames after it.
    pub through: u64,
}

/// Forwards `events` to `send` in order, in frames: the first event of a frame
/// waits at most `pace`'s interval (as it is while the frame waits). `states` are the agents before the first event
/// (a resumed session's); they follow every event. Returns when the stream
/// ends or `send` returns false (the receiver is gone).
pub async fn forward(
    mut events: UnboundedReceiver<AgentEvent>,
    pace: Pace,
    seed: crate::Seed,
    mut send: impl FnMut(EventFrame) -> bool,
) {
    let crate::Seed { mut states, mut timeline, .. } = seed;
    // Rules live as long as the process that holds them: a resumed session starts with none.
    let mut active = ActiveRules::default();
    loop {
        let Some(first) = events.recv().await else { return };
        let mut batch = vec![first];
        let began = tokio::time::Instant::now();
        let mut closed = false;
        loop {
            // Take what is already queued without waiting, then wait for the frame to end
            // or its pace to change (registered before the pace is read: no change is missed).
            while let Ok(ev) = events.try_recv() {
                batch.push(ev);
            }
            let changed = pace.0.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let deadline = began + pace.get();
            tokio::select! {
                next = tokio::time::timeout_at(deadline, events.recv()) => match next {
                    Ok(Some(ev)) => batch.push(ev),
                    Ok(None) => {
                        closed = true;
                        break;
                    }
                    Err(_) => break,
                },
                () = &mut changed => {}
            }
        }
        let mut touched: Vec<AgentId> = Vec::new();
        let mut shaped: Vec<AgentId> = Vec::new();
        let mut rules_changed = false;
        for ev in &batch {
            states.apply(ev);
            if ev.kind.shapes_agent() && !shaped.contains(&ev.agent_id) {
                shaped.push(ev.agent_id.clone());
            }
            timeline.apply(ev);
            rules_changed |= active.apply(ev);
            // What changes a usage figure or a budget meter: a response, a budget, a new
            // descendant, a run's start or end (wall time).
            let moves_figures = matches!(
                ev.kind,
                EventKind::Usage(_)
                    | EventKind::BudgetSet(_)
                    | EventKind::BudgetWarning(_)
                    | EventKind::AgentStarted(_)
                    | EventKind::AgentFinished(_)
            );
            if moves_figures && !touched.contains(&ev.agent_id) {
                touched.push(ev.agent_id.clone());
            }
        }
        let usage = (!touched.is_empty()).then(|| states.usage_update(&touched));
        let rules = rules_changed.then(|| active.rules().to_vec());
        let timeline = Some(timeline.take_update()).filter(|u| !u.is_empty());
        let agents = shaped.iter().filter_map(|id| states.get(id).cloned()).collect();
        let through = batch.last().map_or(0, |e| e.seq);
        if !send(EventFrame { events: coalesce(batch), agents, usage, rules, timeline, through }) || closed {
            return;
        }
    }
}

/// Merges each agent's runs of stream chunks (thinking, response, one call's
/// input or output) into the first chunk of the run, which keeps its `seq` and place:
/// every agent's text arrives complete and in order, and `seq` still rises
/// through the batch (the merged chunks' numbers are skipped). A run ends at any
/// other event of the same agent; other agents' events in between do not end it.
pub fn coalesce(batch: Vec<AgentEvent>) -> Vec<AgentEvent> {
    let mut out: Vec<AgentEvent> = Vec::with_capacity(batch.len());
    // Per agent: where its open run is in `out`.
    let mut open: Vec<(arbor_protocol::AgentId, usize)> = Vec::new();
    for ev in batch {
        let slot = open.iter().position(|(a, _)| *a == ev.agent_id);
        let target = slot.map(|i| open[i].1);
        if target.and_then(|t| out.get_mut(t)).is_some_and(|t| t.kind.absorb(&ev.kind)) {
            continue;
        }
        match (slot, ev.kind.is_chunk()) {
            (Some(i), true) => open[i].1 = out.len(),
            (None, true) => open.push((ev.agent_id.clone(), out.len())),
            (Some(i), false) => {
                open.swap_remove(i);
            }
            (None, false) => {}
        }
        out.push(ev);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{AgentStarted, AgentStates, EventKind, SessionId, StoredAgent, Text, Usage};

    fn ev(seq: u64) -> AgentEvent {
        AgentEvent {
            agent_id: AgentId("agent-0001".into()),
            session_id: SessionId("s".into()),
            seq,
            ts: 0,
            // Whole responses: never merged, so the batches' sizes can be counted.
            kind: EventKind::Response(Text { content: "x".into() }),
        }
    }

    #[tokio::test]
    async fn events_arrive_in_order_in_one_batch_per_interval() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (out_tx, mut out) = tokio::sync::mpsc::unbounded_channel();
        for s in 1..=1000 {
            tx.send(ev(s)).unwrap();
        }
        let task = tokio::spawn(forward(rx, Pace::every(FRAME), crate::Seed::default(), move |f| {
            out_tx.send(f.events).is_ok()
        }));
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

    fn chunk(agent: &str, seq: u64, kind: fn(String) -> EventKind, text: &str) -> AgentEvent {
        AgentEvent {
            agent_id: AgentId(agent.into()),
            session_id: SessionId("s".into()),
            seq,
            ts: 0,
            kind: kind(text.into()),
        }
    }

    #[test]
    fn each_agents_chunks_merge_in_order_and_seq_still_rises() {
        let resp = |t: String| EventKind::ResponseChunk(Text { content: t });
        let think = |t: String| EventKind::ThoughtsChunk(Text { content: t });
        let whole = |t: String| EventKind::Response(Text { content: t });
        let batch = vec![
            chunk("a", 1, think, "hm"),
            chunk("a", 2, resp, "Hel"),
            chunk("b", 3, resp, "Wor"),
            chunk("a", 4, resp, "lo"),
            chunk("b", 5, resp, "ld"),
            chunk("a", 6, whole, "Hello"),
            chunk("a", 7, resp, "!"),
            chunk("b", 8, resp, "!"),
        ];
        let out = coalesce(batch);
        let got: Vec<(u64, &str, String)> = out
            .iter()
            .map(|e| {
                let text = match &e.kind {
                    EventKind::ResponseChunk(t) | EventKind::ThoughtsChunk(t) | EventKind::Response(t) => {
                        t.content.clone()
                    }
                    _ => String::new(),
                };
                (e.seq, e.kind.type_name(), text)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (1, "thoughts_chunk", "hm".to_string()),
                (2, "response_chunk", "Hello".to_string()),
                (3, "response_chunk", "World!".to_string()),
                (6, "response", "Hello".to_string()),
                (7, "response_chunk", "!".to_string()),
            ]
        );
        assert!(out.windows(2).all(|w| w[0].seq < w[1].seq));
    }

    #[tokio::test]
    async fn a_session_in_the_background_is_sent_a_frame_a_tenth_of_a_second_and_its_pace_changes_as_it_runs() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (out_tx, mut out) = tokio::sync::mpsc::unbounded_channel();
        let pace = Pace::every(BACKGROUND);
        let task =
            tokio::spawn(forward(rx, pace.clone(), crate::Seed::default(), move |f| out_tx.send(f.events).is_ok()));
        tx.send(ev(1)).unwrap();
        // Well within its frame: the same frame as the first (a busier machine only merges more).
        tokio::time::sleep(Duration::from_millis(30)).await;
        tx.send(ev(2)).unwrap();
        let first = out.recv().await.unwrap();
        assert_eq!(first.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2]);
        pace.set(FRAME);
        assert_eq!(pace.get(), FRAME);
        tx.send(ev(3)).unwrap();
        drop(tx);
        assert_eq!(out.recv().await.unwrap().iter().map(|e| e.seq).collect::<Vec<_>>(), vec![3]);
        task.await.unwrap();
    }

    #[tokio::test]
    async fn a_frame_waiting_on_a_slow_pace_goes_at_once_when_the_pace_quickens() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (out_tx, mut out) = tokio::sync::mpsc::unbounded_channel();
        // Far slower than any test waits: only the change can send this frame in time.
        let pace = Pace::every(Duration::from_secs(600));
        let task =
            tokio::spawn(forward(rx, pace.clone(), crate::Seed::default(), move |f| out_tx.send(f.events).is_ok()));
        tx.send(ev(1)).unwrap();
        tokio::time::sleep(FRAME * 3).await;
        tx.send(ev(2)).unwrap();
        assert!(out.try_recv().is_err(), "the frame waits for its pace");
        pace.set(FRAME);
        let sent = tokio::time::timeout(Duration::from_secs(30), out.recv()).await;
        let events = sent.expect("sent when the pace quickened, not when the old one ran out").unwrap();
        assert_eq!(events.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![1, 2]);
        drop(tx);
        task.await.unwrap();
    }

    #[tokio::test]
    async fn forwarding_stops_when_the_receiver_is_gone() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tx.send(ev(1)).unwrap();
        let mut calls = 0;
        forward(rx, Pace::every(Duration::from_millis(1)), crate::Seed::default(), |_| {
            calls += 1;
            false
        })
        .await;
        assert_eq!(calls, 1);
        assert!(tx.is_closed(), "the stream is dropped with the forwarder");
    }

    fn started(agent: &str, parent: Option<&str>, seq: u64) -> AgentEvent {
        AgentEvent {
            agent_id: AgentId(agent.into()),
            session_id: SessionId("s".into()),
            seq,
            ts: 0,
            kind: EventKind::AgentStarted(AgentStarted {
                parent_id: parent.map(|p| AgentId(p.into())),
                parent_call_id: None,
                depth: u32::from(parent.is_some()),
                description: agent.into(),
                subagent_type: None,
                model: "m".into(),
                provider: "p".into(),
                background: false,
                call_seq: None,
                fork: None,
                external: None,
            }),
        }
    }

    fn used(agent: &str, seq: u64, input: u64) -> AgentEvent {
        AgentEvent {
            agent_id: AgentId(agent.into()),
            session_id: SessionId("s".into()),
            seq,
            ts: 0,
            kind: EventKind::Usage(Usage { input_tokens: input, output_tokens: 1, ..Usage::default() }),
        }
    }

    #[tokio::test]
    async fn a_frame_carries_the_usage_its_events_changed_on_top_of_what_was_stored() {
        // A resumed session: the main agent had used 100 input tokens in its earlier run.
        let mut before = AgentStates::default();
        before.apply(&started("main", None, 1));
        before.apply(&used("main", 2, 99));
        let stored: Vec<StoredAgent> = before.agents().to_vec();
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        for e in [started("child", Some("main"), 3), used("child", 4, 10), used("child", 5, 20)] {
            tx.send(e).unwrap();
        }
        drop(tx);
        let mut frames = Vec::new();
        forward(
            rx,
            Pace::every(FRAME),
            crate::Seed { states: AgentStates::from_agents(stored), ..crate::Seed::default() },
            |f| {
                frames.push(f);
                true
            },
        )
        .await;
        assert_eq!(frames.len(), 1);
        let usage = frames[0].usage.clone().expect("usage changed");
        let of = |id: &str| usage.agents.iter().find(|a| a.agent_id.0 == id).expect("named").clone();
        assert_eq!((of("child").own.tokens, of("child").subtree.tokens), (32, 32));
        assert_eq!((of("main").own.tokens, of("main").subtree.tokens), (100, 132), "the child is below main");
        assert_eq!(usage.session.tokens, 132);

        // A frame without usage carries none.
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tx.send(ev(9)).unwrap();
        drop(tx);
        let mut none = Vec::new();
        forward(rx, Pace::every(FRAME), crate::Seed::default(), |f| {
            none.push(f.usage);
            true
        })
        .await;
        assert_eq!(none, vec![None]);
    }

    #[tokio::test]
    async fn a_frame_carries_each_agent_its_events_changed_as_rust_derived_it_and_no_other() {
        let mut before = AgentStates::default();
        before.apply(&started("main", None, 1));
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let status = |agent: &str, seq: u64, ts: i64, status| AgentEvent {
            agent_id: AgentId(agent.into()),
            session_id: SessionId("s".into()),
            seq,
            ts,
            kind: EventKind::AgentStatus(arbor_protocol::StatusChanged { status }),
        };
        for e in [
            started("child", Some("main"), 2),
            status("child", 3, 1_000, arbor_protocol::AgentStatus::Running),
            used("child", 4, 10),
            chunk("main", 5, |t| EventKind::ResponseChunk(Text { content: t }), "streamed text shapes nothing"),
        ] {
            tx.send(e).unwrap();
        }
        drop(tx);
        let mut frames = Vec::new();
        forward(rx, Pace::every(FRAME), crate::Seed { states: before, ..crate::Seed::default() }, |f| {
            frames.push(f);
            true
        })
        .await;
        let agents = &frames[0].agents;
        assert_eq!(agents.len(), 1, "only the child changed: {agents:?}");
        let child = &agents[0];
        assert_eq!(child.id.0, "child");
        assert_eq!(child.status, arbor_protocol::AgentStatus::Running);
        assert_eq!((child.turns, child.run_started_at), (1, Some(1_000)));
        assert_eq!(child.parent_id.as_ref().map(|p| p.0.as_str()), Some("main"));
    }

    #[tokio::test]
    async fn a_frame_says_the_last_event_it_covers_when_its_chunks_were_merged_into_the_first() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        for seq in 7..=9 {
            tx.send(chunk("main", seq, |t| EventKind::ResponseChunk(Text { content: t }), "go")).unwrap();
        }
        drop(tx);
        let mut frames = Vec::new();
        forward(rx, Pace::every(FRAME), crate::Seed::default(), |f| {
            frames.push(f);
            true
        })
        .await;
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].events.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![7], "merged into the first");
        // A page that read the store up to 8 must drop this frame's text whole: 9 is in it too.
        assert_eq!(frames[0].through, 9);
    }

    #[tokio::test]
    async fn a_frame_carries_the_timeline_segments_its_events_began_or_ended_after_a_stored_timeline() {
        let status = |agent: &str, seq: u64, s: arbor_protocol::AgentStatus| AgentEvent {
            kind: EventKind::AgentStatus(arbor_protocol::StatusChanged { status: s }),
            ..used(agent, seq, 0)
        };
        // A resumed session: the main agent's first run is stored, one model turn.
        let stored = arbor_protocol::Timeline::of(&[
            started("main", None, 1),
            status("main", 2, arbor_protocol::AgentStatus::Running),
            used("main", 3, 10),
            status("main", 4, arbor_protocol::AgentStatus::Completed),
        ]);
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        tx.send(status("main", 5, arbor_protocol::AgentStatus::Running)).unwrap();
        drop(tx);
        let mut frames = Vec::new();
        let seed =
            crate::Seed { timeline: arbor_protocol::TimelineBuilder::continuing(stored), ..crate::Seed::default() };
        forward(rx, Pace::every(FRAME), seed, |f| {
            frames.push(f.timeline);
            true
        })
        .await;
        let update = frames[0].clone().expect("the timeline changed");
        assert_eq!(update.segments.len(), 1);
        let s = &update.segments[0];
        assert_eq!(
            (s.agent_id.0.as_str(), s.index, s.segment.kind, s.segment.end),
            ("main", 1, arbor_protocol::SegmentKind::Model, None)
        );
    }
}
