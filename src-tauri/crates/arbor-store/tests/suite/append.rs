//! Appending events and the derived tables it keeps current.

use super::*;
use arbor_store::StoreError;

#[test]
fn derived_tables_follow_the_events() {
    let (_dir, store) = store();
    let log = store_synthetic(&store, "sess-1", 1_000, 7);
    let detail = store.session(&sid("sess-1")).unwrap();
    let s = &detail.session;
    assert_eq!(s.status, SessionStatus::Completed);
    assert_eq!(s.first_prompt, "Fix the parser bug in lexer.rs", "filled from the main agent's first user message");
    assert_eq!(s.main_agent_id, Some(aid(MAIN)));
    assert_eq!(s.agent_count, 3);
    assert_eq!(s.event_count, log.events.len() as u64);
    assert_eq!(s.ended_at, Some(log.events.last().unwrap().ts));
    assert_eq!(s.workspace, "/work/sess-1");
    assert_eq!((s.usage.usage.input_tokens, s.usage.usage.output_tokens), (190, 38));
    assert_eq!((s.usage.usage.cache_read_tokens, s.usage.usage.cache_write_tokens), (7, 3));
    assert!((s.usage.usage.cost_usd.unwrap() - 0.012).abs() < 1e-9);
    assert_eq!(s.usage.tokens, 190 + 38 + 7 + 3, "the tokens of all four kinds");

    let ids: Vec<&str> = detail.agents.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, [MAIN, READER, WRITER], "parents first, then in start order");
    let [main, reader, writer] = &detail.agents[..] else { panic!() };
    assert_eq!(main.status, AgentStatus::Completed);
    assert_eq!(main.result.as_deref(), Some("Done: the parser is fixed"));
    assert_eq!(main.files_modified, ["src/parser.rs"]);
    // Turns count the model's responses (its usage events), as arbor_protocol::StoredAgent::apply does.
    let responses =
        log.events.iter().filter(|e| e.agent_id == aid(MAIN) && matches!(e.kind, EventKind::Usage(_))).count();
    assert_eq!(main.turns as usize, responses);
    assert_eq!(main.usage.input_tokens, 110);
    assert_eq!(main.parent_id, None);

    assert_eq!(reader.parent_id, Some(aid(MAIN)));
    assert_eq!(reader.parent_call_id.as_deref(), Some("c1"));
    assert_eq!(reader.depth, 1);
    assert_eq!(reader.subagent_type.as_deref(), Some("explore"));
    assert_eq!(reader.status, AgentStatus::Completed);
    assert_eq!(reader.result.as_deref(), Some("The lexer tokenises identifiers greedily"));
    assert_eq!(reader.duration_ms, Some(2000));
    assert_eq!(reader.usage.input_tokens, 50);
    assert_eq!(reader.usage.cost_usd, None);
    assert_eq!(reader.started_at, log.events[11].ts);
    assert_eq!(reader.ended_at, Some(log.events[22].ts));

    assert!(writer.background);
    assert_eq!(writer.status, AgentStatus::Failed);
    assert_eq!(writer.error.as_deref(), Some("model refused to continue"));
    assert_eq!(writer.files_modified, ["tests/lexer.rs"]);
    assert_eq!(writer.usage.cache_read_tokens, 7);
    assert_eq!(writer.usage.cost_usd, Some(0.002));
}

#[test]
fn batch_size_does_not_change_the_result() {
    let (_dir, store) = store();
    store_synthetic(&store, "one-by-one", 1_000, 1);
    store_synthetic(&store, "all-at-once", 1_000, 1000);
    let a = store.session(&sid("one-by-one")).unwrap();
    let mut b = store.session(&sid("all-at-once")).unwrap();
    b.session.id = a.session.id.clone();
    b.session.workspace = a.session.workspace.clone();
    assert_eq!(a, b);
}

/// A stream's chunks, most of what a running session stores, do not rewrite
/// their agent's row (a trigger added to the file counts the writes); an event
/// that shapes the agent does, and the session's count still covers every event.
#[test]
fn only_events_that_shape_an_agent_rewrite_its_row() {
    let (_dir, store) = store();
    let _claim = begin(&store, "s", 1_000);
    let mut log = Log::new("s", 1_000);
    let main = aid(MAIN);
    log.push(&main, started(None, None, 0, "main"));
    log.push(&main, status(AgentStatus::Running));
    store.append(log.since(0)).unwrap();
    raw(&store)
        .execute_batch(
            "CREATE TABLE agent_writes (id TEXT);
             CREATE TRIGGER agent_written AFTER INSERT ON agents BEGIN INSERT INTO agent_writes VALUES (new.id); END;",
        )
        .unwrap();
    let writes = || -> i64 { raw(&store).query_row("SELECT count(*) FROM agent_writes", [], |r| r.get(0)).unwrap() };

    let from = log.events.len();
    for i in 0..40 {
        log.push(&main, text(EventKind::ResponseChunk, &format!("part {i} ")));
        log.push(&main, output_chunk("c1", "line\n"));
    }
    for batch in log.since(from).chunks(8) {
        store.append(batch).unwrap();
    }
    assert_eq!(writes(), 0, "chunks left the agent's row alone");

    let from = log.events.len();
    log.push(&main, usage(10, 5, None));
    store.append(log.since(from)).unwrap();
    assert_eq!(writes(), 1, "a usage event rewrote it");
    let detail = store.session(&sid("s")).unwrap();
    assert_eq!(detail.agents[0].usage.input_tokens, 10);
    assert_eq!(detail.agents[0].status, AgentStatus::Running);
    assert_eq!(detail.session.event_count, log.events.len() as u64, "every event counted, chunks too");
}

#[test]
fn session_status_mirrors_the_main_agent_while_it_runs() {
    let (_dir, store) = store();
    begin(&store, "s", 1_000);
    let mut log = Log::new("s", 1_000);
    let m = aid(MAIN);
    log.push(&m, started(None, None, 0, "main"));
    log.push(&m, status(AgentStatus::WaitingApproval));
    store.append(log.since(0)).unwrap();
    let s = store.session(&sid("s")).unwrap().session;
    assert_eq!(s.status, SessionStatus::Running);
    assert_eq!(s.ended_at, None);
    assert_eq!(s.first_prompt, "");

    log.push(&m, finished(AgentStatus::MaxTurns, "stopped", None, 10, &[]));
    store.append(log.since(2)).unwrap();
    let s = store.session(&sid("s")).unwrap().session;
    assert_eq!(s.status, SessionStatus::MaxTurns);
    assert_eq!(s.ended_at, Some(log.ts));

    // Given a new prompt, it runs again: no longer ended.
    log.push(&m, status(AgentStatus::Running));
    log.push(&m, said("go on"));
    store.append(log.since(3)).unwrap();
    let s = store.session(&sid("s")).unwrap().session;
    assert_eq!(s.status, SessionStatus::Running);
    assert_eq!(s.ended_at, None);
    assert_eq!(s.first_prompt, "go on", "the main agent's first user message, when none was given");
}

#[test]
fn events_come_back_exactly_as_appended() {
    let (_dir, store) = store();
    let log = store_synthetic(&store, "sess-1", 1_000, 5);
    assert_eq!(store.events(&sid("sess-1"), None).unwrap(), log.events);
    let reader: Vec<AgentEvent> = log.events.iter().filter(|e| e.agent_id.as_str() == READER).cloned().collect();
    assert_eq!(store.events(&sid("sess-1"), Some(&aid(READER))).unwrap(), reader);
    assert_eq!(store.last_seq(&sid("sess-1")).unwrap(), log.seq);

    let stored: Vec<String> = raw(&store)
        .prepare("SELECT json FROM events ORDER BY seq")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let expected: Vec<String> = log.events.iter().map(|e| serde_json::to_string(e).unwrap()).collect();
    assert_eq!(stored, expected);
}

#[test]
fn duplicates_and_unknown_sessions_are_refused_whole() {
    let (_dir, store) = store();
    let log = store_synthetic(&store, "sess-1", 1_000, 100);
    let before = store.session(&sid("sess-1")).unwrap();

    // A new event followed by one already stored: neither is kept.
    let mut next = log.events[3].clone();
    next.seq = log.seq + 1;
    let err = store.append(&[next, log.events[3].clone()]).unwrap_err();
    assert!(matches!(&err, StoreError::Duplicate { session, seq: 4 } if session == "sess-1"), "{err:?}");
    assert_eq!(err.kind(), "duplicate");
    assert_eq!(store.session(&sid("sess-1")).unwrap(), before);
    assert_eq!(store.last_seq(&sid("sess-1")).unwrap(), log.seq);

    let mut stray = log.events[0].clone();
    stray.session_id = sid("nope");
    let err = store.append(&[stray]).unwrap_err();
    assert!(matches!(&err, StoreError::UnknownSession(s) if s == "nope"), "{err:?}");
    assert!(matches!(store.session(&sid("nope")), Err(StoreError::UnknownSession(_))));
    assert!(matches!(store.last_seq(&sid("nope")), Err(StoreError::UnknownSession(_))));
    assert_eq!(store.last_seq(&sid("sess-1")).unwrap(), log.seq);
}

#[test]
fn begin_session_again_resumes_without_losing_anything() {
    let (_dir, store) = store();
    store_synthetic(&store, "sess-1", 1_000, 100);
    store.end_session(&sid("sess-1"), 99_999).unwrap();
    let ended = store.session(&sid("sess-1")).unwrap();
    assert!(ended.session.ended_at.is_some_and(|t| t < 99_999), "the main agent's finish time is kept");

    begin(&store, "sess-1", 5_000);
    let resumed = store.session(&sid("sess-1")).unwrap();
    assert_eq!(resumed.session.ended_at, None);
    assert_eq!(resumed.session.started_at, 1_000);
    assert_eq!(resumed.session.event_count, ended.session.event_count);
    assert_eq!(resumed.agents, ended.agents);
    let owner: Option<i64> = raw(&store).query_row("SELECT owner_pid FROM sessions", [], |r| r.get(0)).unwrap();
    assert_eq!(owner, Some(i64::from(std::process::id())));

    assert!(matches!(store.end_session(&sid("nope"), 1), Err(StoreError::UnknownSession(_))));
}

/// The WAL is copied into the file beside the writer (checkpoint.rs), which ends a few
/// commits short while appends never pause. It must still be started over: here
/// 400 commits of 128 KB each, back to back, would take it to ~60 MB without the
/// copy finished under the writer's lock; with it, it stays near 4,000 pages.
#[test]
fn the_wal_starts_over_while_appends_never_pause() {
    let (_dir, store) = store();
    let _claim = begin(&store, "s", 1_000);
    let mut log = Log::new("s", 1_000);
    let main = aid(MAIN);
    log.push(&main, started(None, None, 0, "main"));
    store.append(log.since(0)).unwrap();
    let piece = "lorem ipsum ".repeat(16 * 1024 / 12);
    for _ in 0..400 {
        let from = log.events.len();
        for _ in 0..8 {
            log.push(&main, text(EventKind::ResponseChunk, &piece));
        }
        store.append(log.since(from)).unwrap();
    }
    let page: u64 = raw(&store).query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    let wal = std::fs::metadata(format!("{}-wal", store.path().display())).unwrap().len();
    assert!(wal <= 8_000 * page, "the WAL grew to {} pages", wal / page);
    assert_eq!(store.session(&sid("s")).unwrap().session.event_count, log.events.len() as u64);
}
