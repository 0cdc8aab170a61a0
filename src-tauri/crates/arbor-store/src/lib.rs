//! Arbor's transcript store: one SQLite file holding every session, its agents,
//! every event as it was emitted, the agents' model histories and a full-text
//! index of what was said. The runtime appends (persist first); the UI and the
//! CLI read lists, pages, searches and exports back.
//!
//! It knows nothing of the runtime: it takes `AgentEvent`s and `Message`s from
//! arbor-protocol and answers with that crate's `stored` types. It never deletes,
//! truncates or recreates an existing file: a file it cannot use is reported and
//! left as it was.

mod checkpoint;
mod error;
mod export;
mod import;
mod owner;
mod read;
mod recover;
mod schema;
mod search;
mod timeline;
mod write;

pub use error::StoreError;
pub use import::Imported;
pub use owner::Claim;
pub use schema::SCHEMA_VERSION;

use arbor_protocol::{SessionId, SessionStatus};
use error::At;
use parking_lot::{Mutex, MutexGuard};
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How a [`Store`] opens its file.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    /// How long a statement waits for another process's lock before failing
    /// with [`StoreError::Locked`].
    pub busy_timeout: Duration,
    /// Run first on the store's own thread, which copies the WAL into the file
    /// (checkpoint.rs): the app lowers its priority, as it does its writers'.
    pub background: Option<fn()>,
}

impl Default for OpenOptions {
    fn default() -> Self {
        Self { busy_timeout: Duration::from_secs(2), background: None }
    }
}

/// A session as it starts (or is resumed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSession {
    pub id: SessionId,
    pub workspace: String,
    /// May be empty: the main agent's first `user_message` fills it in.
    pub first_prompt: String,
    pub provider: String,
    pub model: String,
    pub started_at: i64,
    /// The front end that drives it when that is an editor over ACP (its name).
    pub client: Option<String>,
}

/// Which sessions [`Store::sessions`] lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionQuery {
    /// Case-insensitive (ASCII) substring of the first prompt or the workspace.
    pub text: Option<String>,
    pub status: Option<SessionStatus>,
    /// 0 lists them all.
    pub limit: u32,
    pub offset: u32,
}

impl Default for SessionQuery {
    fn default() -> Self {
        Self { text: None, status: None, limit: 100, offset: 0 }
    }
}

/// The open store. Cheap to share (`Arc<Store>`): writes go through one
/// connection and reads through another, each behind its own lock, so in WAL
/// mode a long read never holds up the runtime's appends. The WAL is copied
/// into the file by a thread of the store's, not by the append that fills it
/// (checkpoint.rs).
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    write: Arc<Mutex<Connection>>,
    read: Mutex<Connection>,
    _checkpoints: checkpoint::Checkpointer,
}

impl Store {
    /// The file's name in Arbor's data directory: `data_dir.join(Store::FILE_NAME)`.
    pub const FILE_NAME: &str = "arbor.db";

    /// Opens or creates the store at `path` (creating its directory), waiting up
    /// to 2 s for another process's lock.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Self::open_with(path, OpenOptions::default())
    }

    /// [`Store::open`] with explicit options.
    pub fn open_with(path: &Path, options: OpenOptions) -> Result<Store, StoreError> {
        preflight(path)?;
        let mut write = connect(path, options)?;
        // Before anything that could write (WAL mode changes the header): a newer
        // build's file must stay exactly as it was.
        schema::check_not_newer(&write, path)?;
        let mode: String = write.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).at(path)?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!(path = %path.display(), mode, "store could not switch to WAL; readers may wait for writers");
        }
        // NORMAL in WAL mode: a committed transaction survives a killed process;
        // only a power loss may take the last ones. FULL would fsync every append.
        write.pragma_update(None, "synchronous", "NORMAL").at(path)?;
        schema::migrate(&mut write, path)?;

        let read = connect(path, options)?;
        // The read side never writes; SQLite enforces that.
        read.pragma_update(None, "query_only", true).at(path)?;
        tracing::debug!(path = %path.display(), "store opened");
        let write = Arc::new(Mutex::new(write));
        let checkpoints = checkpoint::Checkpointer::start(path, options, &write)?;
        Ok(Store { path: path.to_path_buf(), write, read: Mutex::new(read), _checkpoints: checkpoints })
    }

    /// The file this store reads and writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    // A poisoned lock only means another thread panicked while holding it; the
    // connection rolled its transaction back when the guard dropped, so it is sound.
    fn writer(&self) -> MutexGuard<'_, Connection> {
        self.write.lock()
    }

    fn reader(&self) -> MutexGuard<'_, Connection> {
        self.read.lock()
    }
}

/// Turns directory and permission problems into `Io` errors with the OS's own
/// reason, before SQLite would report them as a bare "unable to open".
fn preflight(path: &Path) -> Result<(), StoreError> {
    let io = |source| StoreError::Io { path: path.to_path_buf(), source };
    if path.exists() {
        // Opening read-write without create or truncate: only asks whether we may.
        std::fs::OpenOptions::new().read(true).write(true).open(path).map_err(io)?;
    } else if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    Ok(())
}

fn connect(path: &Path, options: OpenOptions) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).at(path)?;
    conn.busy_timeout(options.busy_timeout).at(path)?;
    conn.pragma_update(None, "foreign_keys", true).at(path)?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}
