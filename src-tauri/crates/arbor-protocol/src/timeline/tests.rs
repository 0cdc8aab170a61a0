//! The timeline derived from hand-made event logs.

use super::*;
use crate::{
    AgentStarted, ApprovalOutcome, ApprovalRequest, ApprovalResolved, SessionId, StatusChanged, ToolCall, ToolOutput,
    Usage,
};

struct Log {
    seq: u64,
    events: Vec<AgentEvent>,
}

impl Log {
    fn at(&mut self, ts: i64, agent: &str, kind: EventKind) {
        self.seq += 1;
        self.events.push(AgentEvent {
            agent_id: AgentId(agent.into()),
            session_id: SessionId("s".into()),
            seq: self.seq,
            ts,
            kind,
        });
    }
}

fn started(parent: Option<&str>) -> EventKind {
    EventKind::AgentStarted(AgentStarted {
        parent_id: parent.map(|p| AgentId(p.into())),
        parent_call_id: None,
        depth: u32::from(parent.is_some()),
        description: "d".into(),
        subagent_type: None,
        model: "m".into(),
        provider: "p".into(),
        background: false,
        call_seq: None,
        fork: None,
        external: None,
    })
}

fn status(s: AgentStatus) -> EventKind {
    EventKind::AgentStatus(StatusChanged { status: s })
}

fn call(id: &str, tool: &str) -> EventKind {
    EventKind::ToolCall(ToolCall {
        call_id: id.into(),
        tool_name: tool.into(),
        tool_args: serde_json::json!({}),
        mcp: None,
    })
}

fn output(id: &str) -> EventKind {
    EventKind::ToolOutput(ToolOutput { call_id: id.into(), content: "ok".into(), is_error: false, decided_by: None })
}

fn spans(t: &Timeline, agent: &str) -> Vec<(SegmentKind, i64, Option<i64>, String)> {
    t.lane(&AgentId(agent.into())).unwrap().segments.iter().map(|s| (s.kind, s.start, s.end, s.label.clone())).collect()
}

#[test]
fn queue_turns_calls_and_waits_for_people_become_segments() {
    use SegmentKind::*;
    let mut log = Log { seq: 0, events: Vec::new() };
    log.at(0, "main", started(None));
    log.at(0, "main", status(AgentStatus::Running));
    log.at(100, "main", EventKind::Usage(Usage::default()));
    log.at(100, "main", call("t1", "Task"));
    log.at(110, "kid", started(Some("main")));
    log.at(110, "kid", status(AgentStatus::Queued));
    log.at(150, "kid", status(AgentStatus::Running));
    log.at(250, "kid", EventKind::Usage(Usage::default()));
    log.at(250, "kid", call("w1", "Write"));
    log.at(250, "kid", call("r1", "Read"));
    log.at(
        260,
        "kid",
        EventKind::ApprovalRequest(ApprovalRequest {
            request_id: "q1".into(),
            call_id: "w1".into(),
            tool_name: "Write".into(),
            tool_args: serde_json::json!({}),
            agent_path: vec!["main".into(), "d".into()],
            preview: None,
            options: Vec::new(),
        }),
    );
    log.at(260, "kid", status(AgentStatus::WaitingApproval));
    log.at(270, "kid", output("r1"));
    log.at(
        900,
        "kid",
        EventKind::ApprovalResolved(ApprovalResolved {
            request_id: "q1".into(),
            outcome: ApprovalOutcome::Approved,
            scope: crate::ApprovalScope::Once,
            decided_by: None,
            reason: None,
            rule: None,
            edit: None,
        }),
    );
    log.at(900, "kid", status(AgentStatus::Running));
    log.at(910, "kid", output("w1"));
    log.at(1000, "kid", EventKind::Usage(Usage::default()));
    log.at(1000, "kid", status(AgentStatus::Completed));
    log.at(1001, "main", output("t1"));
    log.at(1200, "main", EventKind::Usage(Usage::default()));
    log.at(1200, "main", status(AgentStatus::Completed));
    let t = Timeline::of(&log.events);
    assert_eq!(
        spans(&t, "main"),
        vec![
            (Model, 0, Some(100), "".into()),
            (Tool, 100, Some(1001), "Task".into()),
            (Model, 1001, Some(1200), "".into())
        ]
    );
    assert_eq!(
        spans(&t, "kid"),
        vec![
            (Queued, 110, Some(150), "".into()),
            (Model, 150, Some(250), "".into()),
            (Tool, 250, Some(910), "Write".into()),
            (Tool, 250, Some(270), "Read".into()),
            (Approval, 260, Some(900), "Write".into()),
            (Model, 910, Some(1000), "".into())
        ]
    );
    assert_eq!((t.lane(&AgentId("kid".into())).unwrap().waiting_ms, t.waiting_ms), (640, 640));
    assert_eq!(t.lane(&AgentId("kid".into())).unwrap().time_in(Tool, 0), 660);
}

#[test]
fn a_stopped_run_closes_what_was_open_and_a_live_update_says_what_changed() {
    let mut b = TimelineBuilder::default();
    let mut log = Log { seq: 0, events: Vec::new() };
    log.at(0, "main", started(None));
    log.at(0, "main", status(AgentStatus::Running));
    log.at(50, "main", EventKind::Usage(Usage::default()));
    log.at(50, "main", call("b1", "Bash"));
    for e in &log.events {
        b.apply(e);
    }
    let u = b.take_update();
    assert_eq!(u.segments.len(), 2, "the model turn and the open call");
    assert_eq!(u.segments[1].segment.end, None);
    let mut log2 = Log { seq: 4, events: Vec::new() };
    log2.at(70, "main", status(AgentStatus::Cancelled));
    b.apply(&log2.events[0]);
    let u = b.take_update();
    assert_eq!(u.segments.len(), 1);
    assert_eq!((u.segments[0].index, u.segments[0].segment.end), (1, Some(70)));
    assert!(b.take_update().is_empty());
    // A message after the end does not open a turn until the run starts again.
    log2.at(80, "main", EventKind::UserMessage(crate::UserMessage::new("again", crate::MessageFrom::Person)));
    b.apply(&log2.events[1]);
    assert!(b.take_update().is_empty());
    log2.at(81, "main", status(AgentStatus::Running));
    b.apply(&log2.events[2]);
    assert_eq!(b.take_update().segments[0].segment.kind, SegmentKind::Model);
}

#[test]
fn overlapping_waits_count_once() {
    assert_eq!(union_ms([(0, 10), (5, 20), (30, 40)].into_iter()), 30);
    assert_eq!(union_ms(std::iter::empty()), 0);
}

#[test]
fn a_compaction_is_a_segment_of_its_own_before_the_request_that_follows() {
    use SegmentKind::*;
    let compacted = || {
        EventKind::ContextCompacted(crate::ContextCompacted {
            trigger: crate::CompactTrigger::Overflow,
            before_tokens: 31_000,
            window_tokens: Some(30_000),
            after_tokens: 9_000,
            cleared_results: 3,
            summarized_messages: 0,
            summary: None,
            usage: None,
        })
    };
    let mut log = Log { seq: 0, events: Vec::new() };
    // Refused as too long after its call returned, then summarized (the summary's usage), then asked again.
    log.at(0, "a", started(None));
    log.at(0, "a", status(AgentStatus::Running));
    log.at(100, "a", EventKind::Usage(Usage::default()));
    log.at(100, "a", call("c1", "Bash"));
    log.at(200, "a", output("c1"));
    log.at(900, "a", EventKind::Usage(Usage::default()));
    log.at(905, "a", compacted());
    log.at(1300, "a", EventKind::Usage(Usage::default()));
    log.at(1300, "a", status(AgentStatus::Completed));
    // Asked by a person: older results cleared as its run starts, no model call of its own.
    log.at(0, "b", started(None));
    log.at(0, "b", status(AgentStatus::Running));
    log.at(5, "b", compacted());
    log.at(300, "b", EventKind::Usage(Usage::default()));
    log.at(300, "b", status(AgentStatus::Completed));
    let t = Timeline::of(&log.events);
    assert_eq!(
        spans(&t, "a"),
        vec![
            (Model, 0, Some(100), "".into()),
            (Tool, 100, Some(200), "Bash".into()),
            (Compaction, 200, Some(905), "".into()),
            (Model, 905, Some(1300), "".into())
        ]
    );
    assert_eq!(spans(&t, "b"), vec![(Compaction, 0, Some(5), "".into()), (Model, 5, Some(300), "".into())]);
    // It points at the compaction, where the output shows its divider.
    let lane = t.lane(&AgentId("a".into())).unwrap();
    assert_eq!(lane.segments[2].seq, 7);
}
