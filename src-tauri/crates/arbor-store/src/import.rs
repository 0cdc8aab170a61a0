//! Sessions imported from other tools' transcripts: stored whole, each with
//! the key of the files it was made from, so importing the same files again
//! stores nothing and a transcript that grew replaces its earlier import.

use crate::error::{At, StoreError};
use crate::write::append_in;
use crate::{NewSession, Store};
use arbor_protocol::{AgentEvent, SessionSource};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

/// What an import did with a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Imported {
    Added,
    /// Its files changed since the last import: the session was replaced.
    Updated,
    /// Stored already from the same files: nothing was written.
    Unchanged,
}

impl Store {
    /// The key an imported session was stored with; None when it is not stored.
    pub fn import_key(&self, session: &arbor_protocol::SessionId) -> Result<Option<String>, StoreError> {
        let conn = self.reader();
        let key: Option<Option<String>> = conn
            .prepare_cached("SELECT import_key FROM sessions WHERE id = ?1")
            .and_then(|mut st| st.query_row([session.as_str()], |r| r.get(0)).optional())
            .at(&self.path)?;
        Ok(key.flatten())
    }

    /// Stores an imported session and its events in one transaction, unless the
    /// same `key` is stored already; a session stored with another key is replaced.
    /// Only imported sessions can be replaced: an Arbor session of the same id is refused.
    pub fn import_session(
        &self,
        s: &NewSession,
        source: SessionSource,
        key: &str,
        events: &[AgentEvent],
    ) -> Result<Imported, StoreError> {
        let mut conn = self.writer();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).at(&self.path)?;
        let stored: Option<(String, Option<String>)> = tx
            .prepare_cached("SELECT source, import_key FROM sessions WHERE id = ?1")
            .and_then(|mut st| st.query_row([s.id.as_str()], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .at(&self.path)?;
        let outcome = match &stored {
            None => Imported::Added,
            Some((_, Some(k))) if k == key => return Ok(Imported::Unchanged),
            Some((src, _)) if src == SessionSource::Arbor.as_str() => {
                return Err(StoreError::NotImported(s.id.to_string()));
            }
            Some(_) => Imported::Updated,
        };
        if outcome == Imported::Updated {
            let id = s.id.as_str();
            tx.execute_batch("SAVEPOINT replace").at(&self.path)?;
            tx.execute(
                "INSERT INTO events_fts (events_fts, rowid, search_text)
                 SELECT 'delete', id, search_text FROM events WHERE session_id = ?1 AND search_text IS NOT NULL",
                [id],
            )
            .at(&self.path)?;
            for table in ["events", "agents", "histories"] {
                tx.execute(&format!("DELETE FROM {table} WHERE session_id = ?1"), [id]).at(&self.path)?;
            }
            tx.execute("DELETE FROM sessions WHERE id = ?1", [id]).at(&self.path)?;
            tx.execute_batch("RELEASE replace").at(&self.path)?;
        }
        tx.prepare_cached(
            "INSERT INTO sessions (id, workspace, first_prompt, provider, model, started_at, status, source, import_key)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, ?8)",
        )
        .and_then(|mut st| {
            st.execute(params![
                s.id.as_str(),
                s.workspace,
                s.first_prompt,
                s.provider,
                s.model,
                s.started_at,
                source.as_str(),
                key
            ])
        })
        .at(&self.path)?;
        append_in(&tx, &self.path, events)?;
        let last = events.iter().map(|e| e.ts).max().unwrap_or(s.started_at);
        tx.prepare_cached("UPDATE sessions SET ended_at = COALESCE(ended_at, ?2) WHERE id = ?1")
            .and_then(|mut st| st.execute(params![s.id.as_str(), last]))
            .at(&self.path)?;
        tx.commit().at(&self.path)?;
        Ok(outcome)
    }
}
