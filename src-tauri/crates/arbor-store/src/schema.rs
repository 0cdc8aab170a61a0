//! The schema and its migrations: an ordered list of SQL steps, step N taking a
//! file from `PRAGMA user_version` N-1 to N, each applied in the transaction
//! that bumps the version. Steps are only ever appended, never edited: files
//! written by older builds depend on them as they were.

use crate::error::{At, StoreError};
use rusqlite::{Connection, TransactionBehavior};
use std::path::Path;

/// `type IN ('a', 'b', …)` for these event types, in this order.
pub(crate) fn types_sql(types: &[arbor_protocol::EventType]) -> String {
    let names: Vec<String> = types.iter().map(|t| format!("'{}'", t.as_str())).collect();
    format!("type IN ({})", names.join(", "))
}

/// The event types the review screen's tree is built from. The same list, as
/// the same SQL text, is the condition of the `events_skeleton` partial index, so
/// queries that repeat it verbatim can use that index (SQLite matches the terms
/// literally): when the list changes, a new step rebuilds the index with it.
pub(crate) static SKELETON_TYPES_SQL: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| types_sql(&arbor_protocol::EventType::SKELETON));

/// The skeleton's condition as version 1 indexed it.
const SKELETON_V1: &str = "type IN ('agent_started', 'agent_status', 'usage', 'approval_request', \
     'approval_resolved', 'task_notification', 'agent_finished')";

/// The skeleton's condition from version 2: approvals' staleness and rule revocations joined it.
const SKELETON_V2: &str = "type IN ('agent_started', 'agent_status', 'usage', 'approval_request', \
     'approval_stale', 'approval_resolved', 'rule_revoked', 'task_notification', 'agent_finished')";

/// The skeleton's condition from version 3: worktrees' states joined it.
const SKELETON_V3: &str = "type IN ('agent_started', 'agent_status', 'usage', 'approval_request', \
     'approval_stale', 'approval_resolved', 'rule_revoked', 'task_notification', 'worktree', 'agent_finished')";

/// The skeleton's condition from version 4: budgets joined it.
const SKELETON_V4: &str = "type IN ('agent_started', 'agent_status', 'usage', 'approval_request', \
     'approval_stale', 'approval_resolved', 'rule_revoked', 'task_notification', 'worktree', 'budget_set', \
     'budget_warning', 'agent_finished')";

const V1: &str = "
CREATE TABLE sessions (
    id TEXT PRIMARY KEY NOT NULL,
    workspace TEXT NOT NULL,
    first_prompt TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    status TEXT NOT NULL,
    main_agent_id TEXT,
    agent_count INTEGER NOT NULL DEFAULT 0,
    event_count INTEGER NOT NULL DEFAULT 0,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL,
    -- The process writing the session; NULL once it ended or was recovered.
    owner_pid INTEGER
);
CREATE INDEX sessions_started ON sessions (started_at);

CREATE TABLE agents (
    session_id TEXT NOT NULL REFERENCES sessions (id),
    id TEXT NOT NULL,
    parent_id TEXT,
    parent_call_id TEXT,
    depth INTEGER NOT NULL,
    description TEXT NOT NULL,
    subagent_type TEXT,
    model TEXT NOT NULL,
    provider TEXT NOT NULL,
    background INTEGER NOT NULL,
    status TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    turns INTEGER NOT NULL DEFAULT 0,
    duration_ms INTEGER,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL,
    files_modified TEXT NOT NULL DEFAULT '[]',
    result TEXT,
    error TEXT,
    PRIMARY KEY (session_id, id)
) WITHOUT ROWID;

CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    seq INTEGER NOT NULL,
    agent_id TEXT NOT NULL,
    type TEXT NOT NULL,
    ts INTEGER NOT NULL,
    -- The event exactly as serde_json serialised it.
    json TEXT NOT NULL,
    -- What the full-text index holds for this event; NULL for events it skips.
    search_text TEXT,
    -- 1 for a chunk whose aggregate event arrived: transcripts skip it.
    superseded INTEGER NOT NULL DEFAULT 0,
    -- Which aggregate would supersede this chunk ('response', 'thoughts',
    -- 'tool_output:<call_id>'); NULL for other events and for chunks of a stream
    -- that ended without one.
    stream_key TEXT,
    UNIQUE (session_id, seq)
);
CREATE INDEX events_agent ON events (session_id, agent_id, seq);
-- Only the chunks still waiting for their aggregate: stays tiny, keeps superseding cheap.
CREATE INDEX events_stream ON events (session_id, agent_id, stream_key)
    WHERE stream_key IS NOT NULL AND superseded = 0;
CREATE INDEX events_skeleton ON events (session_id, seq) WHERE SKELETON_TYPES;

CREATE VIRTUAL TABLE events_fts USING fts5 (
    search_text,
    content = 'events',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE histories (
    session_id TEXT NOT NULL REFERENCES sessions (id),
    agent_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (session_id, agent_id, idx)
) WITHOUT ROWID;
";

const V2: &str = "
DROP INDEX events_skeleton;
CREATE INDEX events_skeleton ON events (session_id, seq) WHERE SKELETON_TYPES;
";

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: u32 = 8;

/// Version 4: agents keep their budget and the wall time of all their runs; sessions say
/// where they come from (Arbor, or imported from Claude Code).
const V4: &str = "
ALTER TABLE agents ADD COLUMN budget TEXT;
ALTER TABLE agents ADD COLUMN elapsed_ms INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN run_started_at INTEGER;
ALTER TABLE agents ADD COLUMN budget_exhausted TEXT;
UPDATE agents SET elapsed_ms = COALESCE(duration_ms, 0);
ALTER TABLE sessions ADD COLUMN source TEXT NOT NULL DEFAULT 'arbor';
-- What an imported session was made from (its files' sizes and times): unchanged files import nothing.
ALTER TABLE sessions ADD COLUMN import_key TEXT;
";

/// Version 5: agents keep how full their context is and their model's window.
const V5: &str = "
ALTER TABLE agents ADD COLUMN context_used INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agents ADD COLUMN context_window TEXT;
";

/// Version 6: a forked agent keeps how many of its parent's messages it started from.
const V6: &str = "
ALTER TABLE agents ADD COLUMN fork_messages INTEGER;
";

/// Version 7: a session says which editor drove it over ACP, if one did.
const V7: &str = "
ALTER TABLE sessions ADD COLUMN client TEXT;
";

/// Version 8: an agent another program runs (an external ACP agent) keeps which, and in what.
const V8: &str = "
ALTER TABLE agents ADD COLUMN external TEXT;
";

fn steps() -> [String; SCHEMA_VERSION as usize] {
    [
        V1.replace("SKELETON_TYPES", SKELETON_V1),
        V2.replace("SKELETON_TYPES", SKELETON_V2),
        // The same step as 2: the index rebuilt with the new list.
        V2.replace("SKELETON_TYPES", SKELETON_V3),
        format!("{V4}{}", V2.replace("SKELETON_TYPES", SKELETON_V4)),
        V5.to_string(),
        V6.to_string(),
        V7.to_string(),
        V8.to_string(),
    ]
}

/// Reads the file's schema version. This is the first read of the file, so it
/// is also where a file that is not a database (or is locked) shows.
pub(crate) fn user_version(conn: &Connection, path: &Path) -> Result<u32, StoreError> {
    let v: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).at(path)?;
    Ok(u32::try_from(v).unwrap_or(u32::MAX))
}

/// Refuses a file written by a newer build, before anything could change it.
pub(crate) fn check_not_newer(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let found = user_version(conn, path)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    Ok(())
}

/// Applies the steps the file lacks. The version is read again under the write
/// lock, so two processes opening a new file at once apply each step once.
pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).at(path)?;
    let found = user_version(&tx, path)?;
    if found > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema { path: path.to_path_buf(), found, supported: SCHEMA_VERSION });
    }
    if found == SCHEMA_VERSION {
        return Ok(());
    }
    for (i, step) in steps().iter().enumerate().skip(found as usize) {
        tx.execute_batch(step).at(path)?;
        tx.pragma_update(None, "user_version", i as u32 + 1).at(path)?;
        tracing::info!(path = %path.display(), version = i + 1, "store schema migrated");
    }
    tx.commit().at(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skeleton_condition_is_the_text_the_latest_step_indexed_with() {
        assert_eq!(*SKELETON_TYPES_SQL, SKELETON_V4);
    }
}
