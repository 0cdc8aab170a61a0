//! A session's timeline, derived from its events in one place: for each agent,
//! when it waited for a scheduler slot, when a model turn ran (from the moment
//! the agent could ask until the response was complete), each tool call, and
//! each wait for a person's answer. The app streams what changes to the UI, the
//! store rebuilds it for past sessions, and the CLI draws it as text.
//!
//! A model turn has no event of its own at its start: it opens when a run
//! starts, when the last tool call of a turn returns, or when a message or a
//! child's result reaches an agent that was idle, and closes at its `usage`.

use crate::{AgentEvent, AgentId, AgentStatus, EventKind};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// What an agent was doing during a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    /// Waiting for a scheduler slot.
    Queued,
    /// A model request, up to its complete response.
    Model,
    /// A tool call, from the call to its output.
    Tool,
    /// A tool call waiting for a person's answer.
    Approval,
    /// Compacting its conversation (clearing old results, writing a summary), with the
    /// request the provider refused as too long when that is what set it off.
    Compaction,
}

impl SegmentKind {
    pub const ALL: [SegmentKind; 5] = [Self::Queued, Self::Model, Self::Tool, Self::Approval, Self::Compaction];

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

/// One stretch of an agent's time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Segment {
    pub kind: SegmentKind,
    pub start: i64,
    /// None while it lasts.
    pub end: Option<i64>,
    /// The tool's name (tool and approval segments); empty otherwise.
    pub label: String,
    /// The event it starts at: where the agent's output shows it.
    pub seq: u64,
    /// The call it belongs to (tool and approval segments).
    pub call_id: Option<String>,
}

/// One agent's segments, in the order they started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Lane {
    pub agent_id: AgentId,
    pub segments: Vec<Segment>,
    /// Time its calls waited for a person (overlapping waits counted once).
    pub waiting_ms: u64,
}

/// A whole session's timeline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Timeline {
    /// In the order the agents started.
    pub lanes: Vec<Lane>,
    /// Time any agent waited for a person (overlapping waits counted once), waits that ended.
    pub waiting_ms: u64,
    /// While some call waits for a person now: how to count that time as it passes.
    #[serde(default)]
    pub live_wait: Option<LiveWait>,
}

/// The session's waiting time while a call waits: at instant `now`, it is
/// `before_ms + (now - since)` (`since`: when the longest open wait began;
/// `before_ms`: the ended waits' time before it, overlaps counted once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct LiveWait {
    pub since: i64,
    pub before_ms: u64,
}

/// A segment that began or changed: the UI puts it at `index` of the agent's lane.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct SegmentUpdate {
    pub agent_id: AgentId,
    pub index: u32,
    pub segment: Segment,
}

/// What a batch of events changed of the timeline.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct TimelineUpdate {
    pub segments: Vec<SegmentUpdate>,
    /// Lanes whose waiting time changed: (agent, its waiting_ms).
    pub waiting: Vec<(AgentId, u64)>,
    /// The session's waiting time, when it changed.
    pub session_waiting_ms: Option<u64>,
    /// `live_wait` is the timeline's new one (a wait began or ended).
    #[serde(default)]
    pub live_wait_changed: bool,
    #[serde(default)]
    pub live_wait: Option<LiveWait>,
}

impl TimelineUpdate {
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
            && self.waiting.is_empty()
            && self.session_waiting_ms.is_none()
            && !self.live_wait_changed
    }
}

/// What an event means for the timeline: the few fields it reads.
#[derive(Debug, Clone, Copy)]
pub enum Step<'a> {
    Started,
    Status(AgentStatus),
    /// A model response completed.
    Usage,
    Call {
        call_id: &'a str,
        tool: &'a str,
    },
    Output {
        call_id: &'a str,
    },
    Ask {
        request_id: &'a str,
        call_id: &'a str,
        tool: &'a str,
    },
    Answered {
        request_id: &'a str,
    },
    /// A message or a child's result reached the agent: it wakes if it was idle.
    Wake,
    /// Its conversation was compacted, before the request that follows.
    Compacted,
    Finished,
}

impl<'a> Step<'a> {
    pub fn of(kind: &'a EventKind) -> Option<Self> {
        Some(match kind {
            EventKind::AgentStarted(_) => Step::Started,
            EventKind::AgentStatus(s) => Step::Status(s.status),
            EventKind::Usage(_) => Step::Usage,
            EventKind::ToolCall(c) => Step::Call { call_id: &c.call_id, tool: &c.tool_name },
            EventKind::ToolOutput(o) => Step::Output { call_id: &o.call_id },
            EventKind::ApprovalRequest(r) => {
                Step::Ask { request_id: &r.request_id, call_id: &r.call_id, tool: &r.tool_name }
            }
            EventKind::ApprovalResolved(r) => Step::Answered { request_id: &r.request_id },
            EventKind::UserMessage(_) | EventKind::TaskNotification(_) => Step::Wake,
            EventKind::ContextCompacted(_) => Step::Compacted,
            EventKind::AgentFinished(_) => Step::Finished,
            _ => return None,
        })
    }

    /// The event types that make steps: what a store reads to rebuild a timeline.
    pub const EVENT_TYPES: [crate::EventType; 11] = [
        crate::EventType::AgentStarted,
        crate::EventType::AgentStatus,
        crate::EventType::Usage,
        crate::EventType::ToolCall,
        crate::EventType::ToolOutput,
        crate::EventType::ApprovalRequest,
        crate::EventType::ApprovalResolved,
        crate::EventType::UserMessage,
        crate::EventType::TaskNotification,
        crate::EventType::ContextCompacted,
        crate::EventType::AgentFinished,
    ];
}

/// What is still open in a lane.
#[derive(Debug, Default, Clone)]
struct Open {
    queued: Option<usize>,
    model: Option<usize>,
    /// Tool segments by call id.
    tools: Vec<(String, usize)>,
    /// Approval segments by request id.
    approvals: Vec<(String, usize)>,
    ended: bool,
}

/// Builds a timeline event by event, noting what each event changed.
#[derive(Debug, Default, Clone)]
pub struct TimelineBuilder {
    timeline: Timeline,
    index: HashMap<AgentId, usize>,
    open: Vec<Open>,
    /// Every closed approval wait: (start, end), for the session's union.
    waits: Vec<(i64, i64)>,
    changed: Vec<(usize, usize)>,
    waiting_changed: Vec<usize>,
    session_waiting_changed: bool,
    live_wait_changed: bool,
}

impl TimelineBuilder {
    /// Goes on from a stored timeline (a resumed session's): its runs all ended.
    pub fn continuing(timeline: Timeline) -> Self {
        let index = timeline.lanes.iter().enumerate().map(|(i, l)| (l.agent_id.clone(), i)).collect();
        let open = timeline.lanes.iter().map(|_| Open { ended: true, ..Open::default() }).collect();
        let waits = timeline
            .lanes
            .iter()
            .flat_map(|l| l.segments.iter())
            .filter_map(|s| match (s.kind, s.end) {
                (SegmentKind::Approval, Some(e)) => Some((s.start, e)),
                _ => None,
            })
            .collect();
        Self { timeline, index, open, waits, ..Self::default() }
    }

    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    pub fn into_timeline(self) -> Timeline {
        self.timeline
    }

    /// Applies one event.
    pub fn apply(&mut self, ev: &AgentEvent) {
        if let Some(step) = Step::of(&ev.kind) {
            self.step(&ev.agent_id, ev.seq, ev.ts, step);
        }
    }

    /// Applies what one event means for the timeline (a store reads only these fields).
    pub fn step(&mut self, agent: &AgentId, seq: u64, ts: i64, step: Step<'_>) {
        let lane = match (self.index.get(agent), &step) {
            (Some(&i), _) => i,
            (None, Step::Started) => {
                self.index.insert(agent.clone(), self.timeline.lanes.len());
                self.timeline.lanes.push(Lane { agent_id: agent.clone(), segments: Vec::new(), waiting_ms: 0 });
                self.open.push(Open::default());
                return;
            }
            (None, _) => return,
        };
        match step {
            Step::Started => {}
            Step::Status(AgentStatus::Queued) => {
                self.open[lane].ended = false;
                if self.open[lane].queued.is_none() && self.open[lane].model.is_none() {
                    let i = self.push(lane, SegmentKind::Queued, ts, seq, "", None);
                    self.open[lane].queued = Some(i);
                }
            }
            Step::Status(AgentStatus::Running | AgentStatus::WaitingApproval) => {
                self.open[lane].ended = false;
                self.close_queued(lane, ts);
                let o = &self.open[lane];
                if o.tools.is_empty() && o.model.is_none() {
                    let i = self.push(lane, SegmentKind::Model, ts, seq, "", None);
                    self.open[lane].model = Some(i);
                }
            }
            Step::Status(s) if s.is_terminal() => self.end(lane, ts),
            Step::Status(_) => {}
            Step::Usage => {
                if let Some(i) = self.open[lane].model.take() {
                    self.close(lane, i, ts);
                }
            }
            Step::Call { call_id, tool } => {
                let i = self.push(lane, SegmentKind::Tool, ts, seq, tool, Some(call_id.to_string()));
                self.open[lane].tools.push((call_id.to_string(), i));
            }
            Step::Ask { request_id, call_id, tool } => {
                let i = self.push(lane, SegmentKind::Approval, ts, seq, tool, Some(call_id.to_string()));
                self.open[lane].approvals.push((request_id.to_string(), i));
                self.refresh_live_wait();
            }
            Step::Answered { request_id } => {
                let o = &mut self.open[lane];
                if let Some(p) = o.approvals.iter().position(|(id, _)| id == request_id) {
                    let (_, i) = o.approvals.remove(p);
                    self.close(lane, i, ts);
                }
            }
            Step::Output { call_id } => {
                let o = &mut self.open[lane];
                if let Some(p) = o.tools.iter().position(|(id, _)| id == call_id) {
                    let (_, i) = o.tools.remove(p);
                    self.close(lane, i, ts);
                    // The turn's last call returned: the next model request starts.
                    let o = &self.open[lane];
                    if o.tools.is_empty() && o.model.is_none() && !o.ended {
                        let i = self.push(lane, SegmentKind::Model, ts, seq, "", None);
                        self.open[lane].model = Some(i);
                    }
                }
            }
            Step::Wake => {
                let o = &self.open[lane];
                let busy = o.model.is_some() || !o.tools.is_empty() || o.queued.is_some();
                if !busy && !o.ended && !self.timeline.lanes[lane].segments.is_empty() {
                    let i = self.push(lane, SegmentKind::Model, ts, seq, "", None);
                    self.open[lane].model = Some(i);
                }
            }
            Step::Compacted => self.compacted(lane, seq, ts),
            Step::Finished => self.end(lane, ts),
        }
    }

    /// The model segment that was open since the last call returned (or the run began)
    /// was the compaction: no request of the agent's own ran in it, only, perhaps, one the
    /// provider refused as too long and the summary's, whose usage closed it. It becomes a
    /// compaction segment, pointing at the compaction, and the request that follows opens
    /// a model segment of its own.
    fn compacted(&mut self, lane: usize, seq: u64, ts: i64) {
        let o = &self.open[lane];
        let last = self.timeline.lanes[lane].segments.len().checked_sub(1);
        let segment = match o.model {
            Some(i) => Some(i),
            None if o.tools.is_empty() => last.filter(|&i| {
                let s = &self.timeline.lanes[lane].segments[i];
                s.kind == SegmentKind::Model && s.end.is_some()
            }),
            None => None,
        };
        let Some(i) = segment else { return };
        self.open[lane].model = None;
        let s = &mut self.timeline.lanes[lane].segments[i];
        s.kind = SegmentKind::Compaction;
        s.seq = seq;
        s.end = Some(ts.max(s.start));
        self.changed.push((lane, i));
        if !self.open[lane].ended {
            let next = self.push(lane, SegmentKind::Model, ts, seq, "", None);
            self.open[lane].model = Some(next);
        }
    }

    /// What changed since the last call.
    pub fn take_update(&mut self) -> TimelineUpdate {
        let mut changed = std::mem::take(&mut self.changed);
        changed.sort_unstable();
        changed.dedup();
        let segments = changed
            .into_iter()
            .filter_map(|(lane, i)| {
                let l = self.timeline.lanes.get(lane)?;
                Some(SegmentUpdate {
                    agent_id: l.agent_id.clone(),
                    index: u32::try_from(i).unwrap_or(u32::MAX),
                    segment: l.segments.get(i)?.clone(),
                })
            })
            .collect();
        let mut waiting_changed = std::mem::take(&mut self.waiting_changed);
        waiting_changed.dedup();
        let waiting = waiting_changed
            .into_iter()
            .filter_map(|lane| self.timeline.lanes.get(lane).map(|l| (l.agent_id.clone(), l.waiting_ms)))
            .collect();
        let session_waiting_ms = std::mem::take(&mut self.session_waiting_changed).then_some(self.timeline.waiting_ms);
        let live_wait_changed = std::mem::take(&mut self.live_wait_changed);
        TimelineUpdate { segments, waiting, session_waiting_ms, live_wait_changed, live_wait: self.timeline.live_wait }
    }

    fn push(
        &mut self,
        lane: usize,
        kind: SegmentKind,
        start: i64,
        seq: u64,
        label: &str,
        call_id: Option<String>,
    ) -> usize {
        let segments = &mut self.timeline.lanes[lane].segments;
        segments.push(Segment { kind, start, end: None, label: label.to_string(), seq, call_id });
        let i = segments.len() - 1;
        self.changed.push((lane, i));
        i
    }

    /// The open waits' count as it passes: since the longest began (of the requests
    /// still open), over the ended ones before it.
    fn refresh_live_wait(&mut self) {
        let lanes = &self.timeline.lanes;
        let since = self
            .open
            .iter()
            .zip(lanes)
            .flat_map(|(o, l)| o.approvals.iter().filter_map(|(_, i)| l.segments.get(*i).map(|s| s.start)))
            .min();
        let live = since.map(|m| LiveWait {
            since: m,
            before_ms: union_ms(self.waits.iter().filter(|w| w.0 < m).map(|&(s, e)| (s, e.min(m)))),
        });
        if live != self.timeline.live_wait {
            self.timeline.live_wait = live;
            self.live_wait_changed = true;
        }
    }

    fn close(&mut self, lane: usize, i: usize, ts: i64) {
        let Some(s) = self.timeline.lanes[lane].segments.get_mut(i) else { return };
        if s.end.is_some() {
            return;
        }
        let end = ts.max(s.start);
        s.end = Some(end);
        self.changed.push((lane, i));
        if s.kind == SegmentKind::Approval {
            let start = s.start;
            self.waits.push((start, end));
            let l = &mut self.timeline.lanes[lane];
            l.waiting_ms = union_ms(l.segments.iter().filter_map(|s| match (s.kind, s.end) {
                (SegmentKind::Approval, Some(e)) => Some((s.start, e)),
                _ => None,
            }));
            self.waiting_changed.push(lane);
            self.timeline.waiting_ms = union_ms(self.waits.iter().copied());
            self.session_waiting_changed = true;
            self.refresh_live_wait();
        }
    }

    fn close_queued(&mut self, lane: usize, ts: i64) {
        if let Some(i) = self.open[lane].queued.take() {
            self.close(lane, i, ts);
        }
    }

    /// The run ended: everything still open ends with it.
    fn end(&mut self, lane: usize, ts: i64) {
        let o = std::mem::take(&mut self.open[lane]);
        let open = o.queued.into_iter().chain(o.model).chain(o.tools.into_iter().map(|(_, i)| i));
        for i in open.chain(o.approvals.into_iter().map(|(_, i)| i)).collect::<Vec<_>>() {
            self.close(lane, i, ts);
        }
        self.open[lane].ended = true;
    }
}

/// The length of the union of the intervals.
fn union_ms(intervals: impl Iterator<Item = (i64, i64)>) -> u64 {
    let mut v: Vec<(i64, i64)> = intervals.collect();
    v.sort_unstable();
    let mut total = 0i64;
    let mut cur: Option<(i64, i64)> = None;
    for (s, e) in v {
        match cur {
            Some((cs, ce)) if s <= ce => cur = Some((cs, ce.max(e))),
            Some((cs, ce)) => {
                total += ce - cs;
                cur = Some((s, e));
            }
            None => cur = Some((s, e)),
        }
    }
    if let Some((cs, ce)) = cur {
        total += ce - cs;
    }
    u64::try_from(total).unwrap_or(0)
}

impl Timeline {
    /// The timeline of a whole event log.
    pub fn of<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> Timeline {
        let mut b = TimelineBuilder::default();
        for e in events {
            b.apply(e);
        }
        b.into_timeline()
    }

    pub fn lane(&self, id: &AgentId) -> Option<&Lane> {
        self.lanes.iter().find(|l| l.agent_id == *id)
    }
}

impl Lane {
    /// Time spent in segments of `kind` (overlapping ones counted once), open ones up to `now`.
    pub fn time_in(&self, kind: SegmentKind, now: i64) -> u64 {
        union_ms(self.segments.iter().filter(|s| s.kind == kind).map(|s| (s.start, s.end.unwrap_or(now).max(s.start))))
    }
}

#[cfg(test)]
mod tests;
