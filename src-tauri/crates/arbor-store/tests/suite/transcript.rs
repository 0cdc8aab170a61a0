//! Transcript pages and the review screen's skeleton.

use super::*;

const TRANSCRIPT: [&str; 9] = [
    "user_message",
    "thoughts",
    "response",
    "tool_call",
    "tool_output",
    "thoughts_chunk",
    "response_chunk",
    "tool_output_chunk",
    "mcp_status",
];

/// An agent with many turns of streamed text and tool output (each stream
/// followed by its aggregate), then a stream cut off by a cancel, then a new run.
fn long_agent(store: &Store) -> (Log, Vec<u64>) {
    begin(store, "long", 1_000);
    let m = aid(MAIN);
    let mut log = Log::new("long", 1_000);
    let mut visible = Vec::new();
    log.push(&m, started(None, None, 0, "main"));
    log.push(&m, status(AgentStatus::Running));
    visible.push(log.push(&m, said("start")));
    for turn in 0..20 {
        log.push(&m, text(EventKind::ThoughtsChunk, "hm"));
        visible.push(log.push(&m, text(EventKind::Thoughts, "hm")));
        for part in ["a", "b", "c"] {
            log.push(&m, text(EventKind::ResponseChunk, part));
        }
        visible.push(log.push(&m, text(EventKind::Response, "abc")));
        let id = format!("call-{turn}");
        visible.push(log.push(&m, call(&id, "Bash", json!({"command": "ls"}))));
        if turn == 0 {
            let connected =
                McpStatus { server: "everything".into(), state: McpState::Connected, pid: Some(7), error: None };
            visible.push(log.push(&m, EventKind::McpStatus(connected)));
        }
        log.push(&m, output_chunk(&id, "x"));
        log.push(&m, output_chunk(&id, "y"));
        visible.push(log.push(&m, output(&id, "xy")));
        log.push(&m, usage(1, 1, None));
    }
    // Cancelled mid-stream: no aggregate ever repeats these.
    visible.push(log.push(&m, text(EventKind::ResponseChunk, "half a sen")));
    visible.push(log.push(&m, text(EventKind::ResponseChunk, "tence")));
    log.push(&m, finished(AgentStatus::Cancelled, "", None, 20, &[]));
    // Resumed: its next response must not hide the cut-off text.
    log.push(&m, status(AgentStatus::Running));
    visible.push(log.push(&m, said("go on")));
    log.push(&m, text(EventKind::ResponseChunk, "ok"));
    visible.push(log.push(&m, text(EventKind::Response, "ok")));
    for chunk in log.events.chunks(16) {
        store.append(chunk).unwrap();
    }
    (log, visible)
}

#[test]
fn pages_cover_the_visible_transcript_exactly_once() {
    let (_dir, store) = store();
    let (log, visible) = long_agent(&store);
    let (s, m) = (sid("long"), aid(MAIN));

    let all = store.transcript(&s, &m, None, 10_000).unwrap();
    assert!(!all.more_before);
    assert_eq!(all.events.iter().map(|e| e.seq).collect::<Vec<_>>(), visible);
    assert!(all.events.iter().all(|e| TRANSCRIPT.contains(&e.kind.type_name())));
    assert_eq!(
        all.events.iter().filter(|e| e.kind.type_name().ends_with("_chunk")).count(),
        2,
        "only the cut-off stream's chunks stay"
    );
    for e in &all.events {
        assert_eq!(Some(e), log.events.iter().find(|l| l.seq == e.seq), "stored as appended");
    }

    // Newest page first, then older ones until none are left.
    let mut pages = Vec::new();
    let mut before = None;
    loop {
        let page = store.transcript(&s, &m, before, 7).unwrap();
        assert!(page.events.len() <= 7);
        assert!(page.events.windows(2).all(|w| w[0].seq < w[1].seq), "each page in seq order");
        before = page.events.first().map(|e| e.seq);
        let more = page.more_before;
        pages.push(page);
        if !more {
            break;
        }
    }
    assert_eq!(pages.len(), visible.len().div_ceil(7));
    assert!(pages.iter().take(pages.len() - 1).all(|p| p.events.len() == 7));
    let seqs: Vec<u64> = pages.iter().rev().flat_map(|p| p.events.iter().map(|e| e.seq)).collect();
    assert_eq!(seqs, visible);

    // A page ending exactly at the oldest event says nothing is before it.
    let oldest = store.transcript(&s, &m, Some(visible[1]), 1).unwrap();
    assert_eq!(oldest.events.len(), 1);
    assert!(!oldest.more_before);
    let empty = store.transcript(&s, &m, Some(visible[0]), 5).unwrap();
    assert!(empty.events.is_empty() && !empty.more_before);
}

#[test]
fn transcripts_are_per_agent() {
    let (_dir, store) = store();
    let log = store_synthetic(&store, "sess-1", 1_000, 9);
    let page = store.transcript(&sid("sess-1"), &aid(READER), None, 100).unwrap();
    let kinds: Vec<&str> = page.events.iter().map(|e| e.kind.type_name()).collect();
    assert_eq!(kinds, ["user_message", "tool_call", "tool_output", "response"]);
    assert!(page.events.iter().all(|e| e.agent_id.as_str() == READER));
    assert_eq!(page.events[1], log.events[14]);
    assert!(matches!(
        store.transcript(&sid("sess-1"), &aid("agent-ffff"), None, 5),
        Err(arbor_store::StoreError::UnknownAgent(_))
    ));
    assert!(matches!(
        store.transcript(&sid("nope"), &aid(READER), None, 5),
        Err(arbor_store::StoreError::UnknownSession(_))
    ));
}

#[test]
fn skeleton_holds_only_lifecycle_events() {
    let (_dir, store) = store();
    let log = store_synthetic(&store, "sess-1", 1_000, 4);
    let lifecycle = [
        "agent_started",
        "agent_status",
        "usage",
        "approval_request",
        "approval_resolved",
        "task_notification",
        "agent_finished",
    ];
    let expected: Vec<AgentEvent> =
        log.events.iter().filter(|e| lifecycle.contains(&e.kind.type_name())).cloned().collect();
    let skeleton = store.skeleton(&sid("sess-1")).unwrap();
    assert_eq!(skeleton, expected);
    for kind in ["agent_started", "agent_status", "usage", "task_notification", "agent_finished"] {
        assert!(skeleton.iter().any(|e| e.kind.type_name() == kind), "{kind} present");
    }
}

#[test]
fn approvals_are_part_of_the_skeleton() {
    let (_dir, store) = store();
    begin(&store, "s", 0);
    let m = aid(MAIN);
    let mut log = Log::new("s", 0);
    log.push(&m, started(None, None, 0, "main"));
    log.push(&m, call("c1", "Write", json!({})));
    log.push(
        &m,
        EventKind::ApprovalRequest(ApprovalRequest {
            request_id: "r1".into(),
            call_id: "c1".into(),
            tool_name: "Write".into(),
            tool_args: json!({}),
            agent_path: vec!["main".into()],
            preview: None,
            options: Vec::new(),
        }),
    );
    log.push(
        &m,
        EventKind::ApprovalStale(arbor_protocol::ApprovalStale {
            request_id: "r1".into(),
            message: "The file changed on disk.".into(),
        }),
    );
    log.push(
        &m,
        EventKind::ApprovalResolved(ApprovalResolved {
            request_id: "r1".into(),
            outcome: arbor_protocol::ApprovalOutcome::Approved,
            scope: ApprovalScope::Agent,
            decided_by: Some(arbor_protocol::DecidedBy::Person),
            reason: None,
            rule: None,
            edit: None,
        }),
    );
    log.push(&m, EventKind::RuleRevoked(arbor_protocol::RuleRevoked { rule_id: "rule-1".into() }));
    store.append(&log.events).unwrap();
    let kinds: Vec<&str> = store.skeleton(&sid("s")).unwrap().iter().map(|e| e.kind.type_name()).collect();
    assert_eq!(kinds, ["agent_started", "approval_request", "approval_stale", "approval_resolved", "rule_revoked"]);
}
