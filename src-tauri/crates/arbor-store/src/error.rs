//! The store's one error enum. SQLite's result codes are sorted into what a
//! person can act on (another process holds the file, the file is not ours or is
//! damaged, the disk is full, a newer Arbor wrote it); every variant that is
//! about the file names it.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("another Arbor process holds {} (it stayed locked past the wait); close it and try again", .path.display())]
    Locked { path: PathBuf },

    #[error("{} is not an Arbor database or is damaged; it was left untouched ({detail})", .path.display())]
    Corrupt { path: PathBuf, detail: String },

    #[error(
        "{} was written by a newer Arbor (schema version {found}, this build knows up to {supported}); it was left untouched",
        .path.display()
    )]
    NewerSchema { path: PathBuf, found: u32, supported: u32 },

    #[error("the disk holding {} is full", .path.display())]
    Full { path: PathBuf },

    #[error("cannot open {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("no stored session {0}")]
    UnknownSession(String),

    #[error("no stored agent {0}")]
    UnknownAgent(String),

    #[error("{0} matches more than one session; give more of its id")]
    Ambiguous(String),

    #[error("session {session} is running in another Arbor process{}; it can be continued once that one has stopped", .pid.map(|p| format!(" (pid {p})")).unwrap_or_default())]
    Owned { session: String, pid: Option<u32> },

    #[error("event {seq} of session {session} is already stored")]
    Duplicate { session: String, seq: u64 },

    #[error("{0} is a session Arbor ran, not an import: it is left as it is")]
    NotImported(String),

    #[error("SQLite failed on {}: {source}", .path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    #[error("a stored record is not valid JSON for its type: {0}")]
    Json(#[from] serde_json::Error),
}

impl StoreError {
    /// A stable name for the variant, for the UI and the CLI's JSON output, so
    /// they never match on messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Locked { .. } => "locked",
            Self::Corrupt { .. } => "corrupt",
            Self::NewerSchema { .. } => "newer_schema",
            Self::Full { .. } => "full",
            Self::Io { .. } => "io",
            Self::UnknownSession(_) => "unknown_session",
            Self::UnknownAgent(_) => "unknown_agent",
            Self::Ambiguous(_) => "ambiguous",
            Self::Owned { .. } => "owned",
            Self::Duplicate { .. } => "duplicate",
            Self::NotImported(_) => "not_imported",
            Self::Sqlite { .. } => "sqlite",
            Self::Json(_) => "json",
        }
    }

    /// Sorts a SQLite error on the file at `path` into the variant a person can act on.
    pub(crate) fn sqlite(path: &Path, source: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as C;
        let path = path.to_path_buf();
        match source.sqlite_error_code() {
            Some(C::DatabaseBusy | C::DatabaseLocked) => Self::Locked { path },
            Some(C::NotADatabase | C::DatabaseCorrupt) => Self::Corrupt { path, detail: source.to_string() },
            Some(C::DiskFull) => Self::Full { path },
            Some(C::CannotOpen) => Self::Io { path, source: std::io::Error::other(source.to_string()) },
            Some(C::PermissionDenied | C::ReadOnly) => {
                Self::Io { path, source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, source.to_string()) }
            }
            _ => Self::Sqlite { path, source },
        }
    }
}

/// Attaches the database's path to SQLite errors.
pub(crate) trait At<T> {
    fn at(self, path: &Path) -> Result<T, StoreError>;
}

impl<T> At<T> for Result<T, rusqlite::Error> {
    fn at(self, path: &Path) -> Result<T, StoreError> {
        self.map_err(|e| StoreError::sqlite(path, e))
    }
}
