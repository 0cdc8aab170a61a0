//! Opening files: creating, migrating, and refusing files it must not touch.

use super::*;
use arbor_store::{OpenOptions, SCHEMA_VERSION, StoreError};
use std::time::Duration;

fn user_version(path: &std::path::Path) -> i64 {
    rusqlite::Connection::open(path).unwrap().query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap()
}

#[test]
fn a_new_file_gets_the_schema_and_reopening_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir").join(Store::FILE_NAME);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.path(), path);
    assert_eq!(SCHEMA_VERSION, 8);
    assert_eq!(user_version(&path), 8);
    let log = store_synthetic(&store, "sess-1", 1_000, 10);
    let journal: String = raw(&store).query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(journal, "wal");
    drop(store);

    let store = Store::open(&path).unwrap();
    assert_eq!(user_version(&path), 8);
    assert_eq!(store.events(&sid("sess-1"), None).unwrap(), log.events);
    assert_eq!(store.search("greedily", 10).unwrap().len(), 3);
}

#[test]
fn a_version_1_file_is_migrated_and_its_skeleton_index_takes_the_new_events() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(Store::FILE_NAME);
    let store = Store::open(&path).unwrap();
    let log = store_synthetic(&store, "sess-1", 1_000, 10);
    drop(store);
    // As version 1 left it: the skeleton index without the newer event types, agents
    // without budgets or the wall time of all their runs.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "ALTER TABLE agents DROP COLUMN budget;
         ALTER TABLE agents DROP COLUMN elapsed_ms;
         ALTER TABLE agents DROP COLUMN run_started_at;
         ALTER TABLE agents DROP COLUMN budget_exhausted;
         ALTER TABLE agents DROP COLUMN context_used;
         ALTER TABLE agents DROP COLUMN context_window;
         ALTER TABLE agents DROP COLUMN fork_messages;
         ALTER TABLE agents DROP COLUMN external;
         ALTER TABLE sessions DROP COLUMN source;
         ALTER TABLE sessions DROP COLUMN import_key;
         ALTER TABLE sessions DROP COLUMN client;
         DROP INDEX events_skeleton;
         CREATE INDEX events_skeleton ON events (session_id, seq) WHERE type IN ('agent_started', 'agent_status', \
         'usage', 'approval_request', 'approval_resolved', 'task_notification', 'agent_finished');
         PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(conn);

    let store = Store::open(&path).unwrap();
    assert_eq!(user_version(&path), 8);
    let index: String = raw(&store)
        .query_row("SELECT sql FROM sqlite_master WHERE name = 'events_skeleton'", [], |r| r.get(0))
        .unwrap();
    assert!(
        index.contains("'rule_revoked'")
            && index.contains("'approval_stale'")
            && index.contains("'worktree'")
            && index.contains("'budget_warning'"),
        "{index}"
    );
    // An older file's agents count the wall time of their last run, and have no budget, known window nor fork.
    let agents = store.session(&sid("sess-1")).unwrap().agents;
    assert!(agents.iter().all(|a| a.elapsed_ms == a.duration_ms.unwrap_or(0) && a.budget.is_none()), "{agents:?}");
    assert!(agents.iter().all(|a| a.context_window.is_none() && a.context_used == 0 && a.fork.is_none()), "{agents:?}");
    assert_eq!(
        store.session(&sid("sess-1")).unwrap().session.source,
        SessionSource::Arbor,
        "older sessions are Arbor's"
    );
    assert_eq!(store.events(&sid("sess-1"), None).unwrap(), log.events, "nothing lost");
    // The skeleton query still uses the index (its condition is the index's text).
    let plan: String = raw(&store)
        .query_row(
            &format!(
                "EXPLAIN QUERY PLAN SELECT seq FROM events WHERE session_id = 'sess-1' AND {} ORDER BY seq",
                skeleton_condition()
            ),
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("events_skeleton"), "{plan}");
}

/// The skeleton condition as the store writes it: every type the protocol lists.
fn skeleton_condition() -> String {
    let names: Vec<String> = arbor_protocol::EventType::SKELETON.iter().map(|t| format!("'{}'", t.as_str())).collect();
    format!("type IN ({})", names.join(", "))
}

#[test]
fn a_newer_schema_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(Store::FILE_NAME);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE future (x); PRAGMA user_version = 99;").unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::NewerSchema { found: 99, supported: SCHEMA_VERSION, .. }), "{err:?}");
    assert!(err.to_string().contains(&path.display().to_string()), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no journal or WAL left beside it");
}

#[test]
fn a_file_that_is_not_a_database_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(Store::FILE_NAME);
    let text = "These are my notes, not a database.\n".repeat(200);
    std::fs::write(&path, &text).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    assert_eq!(err.kind(), "corrupt");
    let msg = err.to_string();
    assert!(msg.contains(&path.display().to_string()) && msg.contains("left untouched"), "{msg}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_file_locked_by_another_process_reports_locked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(Store::FILE_NAME);
    let store = Store::open(&path).unwrap();
    begin(&store, "s", 1);
    let quick = OpenOptions { busy_timeout: Duration::from_millis(100), ..OpenOptions::default() };

    let other = rusqlite::Connection::open(&path).unwrap();
    other.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let err = Store::open_with(&path, quick).unwrap_err();
    assert!(matches!(err, StoreError::Locked { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("another Arbor process holds") && msg.contains(&path.display().to_string()), "{msg}");
    // An open store's writes report the same, and nothing is half-written.
    let err = store.end_session(&sid("s"), 5).unwrap_err();
    assert_eq!(err.kind(), "locked", "{err:?}");
    other.execute_batch("COMMIT").unwrap();

    drop(store);
    let store = Store::open_with(&path, quick).unwrap();
    store.end_session(&sid("s"), 5).unwrap();
    assert_eq!(store.session(&sid("s")).unwrap().session.ended_at, Some(5));
}

#[test]
fn an_unwritable_directory_is_an_io_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let path = blocker.join("sub").join(Store::FILE_NAME);
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains(&path.display().to_string()), "{err}");
}
