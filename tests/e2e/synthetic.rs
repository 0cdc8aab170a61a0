//! A big stored session for the UI benchmark: a main agent that starts its
//! subagents in waves of 20 (the rest queued), each of them streaming model
//! turns and running tools, some waiting for a person, until the log holds the
//! number of events asked for. Written straight into a store file, as if run.

use arbor_protocol::{
    AgentEvent, AgentFinished, AgentId, AgentStarted, AgentStatus, ApprovalOutcome, ApprovalRequest, ApprovalResolved,
    ApprovalScope, DecidedBy, EventKind, SessionId, StatusChanged, Text, ToolCall, ToolOutput, Usage,
};
use arbor_store::{NewSession, Store};
use std::path::Path;

struct Log {
    session: SessionId,
    events: Vec<AgentEvent>,
}

impl Log {
    fn push(&mut self, agent: &AgentId, ts: i64, kind: EventKind) {
        let seq = self.events.len() as u64 + 1;
        self.events.push(AgentEvent { agent_id: agent.clone(), session_id: self.session.clone(), seq, ts, kind });
    }
}

fn status(s: AgentStatus) -> EventKind {
    EventKind::AgentStatus(StatusChanged { status: s })
}

fn started(parent: Option<&AgentId>, call: Option<String>, description: String) -> EventKind {
    EventKind::AgentStarted(AgentStarted {
        parent_id: parent.cloned(),
        parent_call_id: call,
        depth: u32::from(parent.is_some()),
        description,
        subagent_type: parent.map(|_| "general-purpose".to_string()),
        model: "claude-sonnet-4-5".into(),
        provider: "anthropic".into(),
        background: false,
        call_seq: None,
        fork: None,
        external: None,
    })
}

fn finished(status: AgentStatus, turns: u32, ms: i64) -> EventKind {
    EventKind::AgentFinished(AgentFinished {
        status,
        result: "done".into(),
        error: None,
        turns,
        duration_ms: ms as u64,
        files_modified: Vec::new(),
        stopped_by: None,
    })
}

/// Writes the session into `data_dir`'s store; returns its id and how many events it holds.
pub fn big_session(data_dir: &Path, agents: usize, events: usize) -> (SessionId, usize) {
    std::fs::create_dir_all(data_dir).unwrap();
    let store = Store::open(&data_dir.join(Store::FILE_NAME)).unwrap();
    let session = SessionId("sess-bench-timeline".into());
    let t0 = 1_795_000_000_000i64;
    let new = NewSession {
        id: session.clone(),
        workspace: data_dir.display().to_string(),
        first_prompt: "BENCH-TIMELINE: a big fan-out".into(),
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        started_at: t0,
        client: None,
    };
    store.begin_session(&new, &store.claim(&session).unwrap()).unwrap();
    let mut log = Log { session: session.clone(), events: Vec::with_capacity(events + agents * 8) };
    let main = AgentId::from_suffix(0x0a11);
    log.push(&main, t0, started(None, None, "main".into()));
    log.push(
        &main,
        t0,
        EventKind::UserMessage(arbor_protocol::UserMessage::new(
            "BENCH-TIMELINE: a big fan-out",
            arbor_protocol::MessageFrom::Person,
        )),
    );
    log.push(&main, t0, status(AgentStatus::Running));
    let children = agents - 1;
    // Every child's share of the log, spread over its turns.
    let per_child = (events.saturating_sub(children * 8 + 10)) / children.max(1);
    // Five chunks, the response, its usage, a call and its output: nine events a turn.
    let turns = (per_child / 9).max(1);
    let mut t = t0 + 2_000;
    let waves = children.div_ceil(20);
    let mut k = 0usize;
    for wave in 0..waves {
        // The main agent's model turn that asks for this wave.
        log.push(&main, t, EventKind::Usage(Usage { input_tokens: 4000, output_tokens: 800, ..Usage::default() }));
        let ids: Vec<(AgentId, String)> = (0..20.min(children - wave * 20))
            .map(|i| (AgentId::from_suffix(0x1000 + (wave * 20 + i) as u32), format!("call-{}", wave * 20 + i)))
            .collect();
        for (id, call) in &ids {
            log.push(
                &main,
                t,
                EventKind::ToolCall(ToolCall {
                    call_id: call.clone(),
                    tool_name: "Task".into(),
                    tool_args: serde_json::json!({"description": "work", "prompt": "do it"}),
                    mcp: None,
                }),
            );
            let n = log.events.len();
            log.push(id, t, started(Some(&main), Some(call.clone()), format!("Worker {n:05}")));
            log.push(id, t, status(AgentStatus::Queued));
        }
        let wave_start = t;
        let mut wave_end = t;
        for (j, (id, call)) in ids.iter().enumerate() {
            let mut c = wave_start + 50 + (j as i64) * 37;
            log.push(id, c, status(AgentStatus::Running));
            let begin = c;
            for turn in 0..turns {
                for chunk in 0..5 {
                    c += 40;
                    log.push(
                        id,
                        c,
                        EventKind::ResponseChunk(Text { content: format!("part {chunk} of turn {turn} ") }),
                    );
                }
                log.push(id, c, EventKind::Response(Text { content: format!("turn {turn}") }));
                log.push(id, c, EventKind::Usage(Usage { input_tokens: 3000, output_tokens: 200, ..Usage::default() }));
                let tool = ["Read", "Grep", "Bash", "Edit"][(turn + j) % 4];
                let cid = format!("t{turn}");
                log.push(
                    id,
                    c,
                    EventKind::ToolCall(ToolCall {
                        call_id: cid.clone(),
                        tool_name: tool.into(),
                        tool_args: serde_json::json!({}),
                        mcp: None,
                    }),
                );
                k += 1;
                if k.is_multiple_of(97) {
                    let rid = format!("approval-{k}");
                    log.push(
                        id,
                        c,
                        EventKind::ApprovalRequest(ApprovalRequest {
                            request_id: rid.clone(),
                            call_id: cid.clone(),
                            tool_name: tool.into(),
                            tool_args: serde_json::json!({}),
                            agent_path: vec!["main".into(), "Worker".into()],
                            preview: None,
                            options: Vec::new(),
                        }),
                    );
                    log.push(id, c, status(AgentStatus::WaitingApproval));
                    c += 3_000;
                    log.push(
                        id,
                        c,
                        EventKind::ApprovalResolved(ApprovalResolved {
                            request_id: rid,
                            outcome: ApprovalOutcome::Approved,
                            scope: ApprovalScope::Once,
                            decided_by: Some(DecidedBy::Person),
                            reason: None,
                            rule: None,
                            edit: None,
                        }),
                    );
                    log.push(id, c, status(AgentStatus::Running));
                }
                c += 120;
                log.push(
                    id,
                    c,
                    EventKind::ToolOutput(ToolOutput {
                        call_id: cid,
                        content: "ok".into(),
                        is_error: false,
                        decided_by: None,
                    }),
                );
            }
            c += 200;
            log.push(id, c, status(AgentStatus::Completed));
            log.push(id, c, finished(AgentStatus::Completed, turns as u32, c - begin));
            log.push(
                &main,
                c,
                EventKind::ToolOutput(ToolOutput {
                    call_id: call.clone(),
                    content: "done".into(),
                    is_error: false,
                    decided_by: None,
                }),
            );
            wave_end = wave_end.max(c);
        }
        t = wave_end + 1_500;
    }
    log.push(&main, t + 2_000, EventKind::Usage(Usage { input_tokens: 9000, output_tokens: 900, ..Usage::default() }));
    log.push(&main, t + 2_000, EventKind::Response(Text { content: "All workers finished.".into() }));
    log.push(&main, t + 2_000, status(AgentStatus::Completed));
    log.push(&main, t + 2_000, finished(AgentStatus::Completed, waves as u32 + 1, t + 2_000 - t0));
    // Timestamps are not monotonic across children of a wave (each runs its own turns); the
    // store keeps events in seq order, which is all a log promises.
    for chunk in log.events.chunks(5_000) {
        store.append(chunk).unwrap();
    }
    store.end_session(&session, t + 2_000).unwrap();
    (session, log.events.len())
}
