//! The typed error every desktop command returns: a kind the UI can branch on
//! and a message a person can read.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum AppErrorKind {
    /// The command needs a session and none is running.
    NoSession,
    Workspace,
    Provider,
    Keyring,
    Settings,
    Session,
    Demo,
    /// The transcript store: it cannot be opened, or a write or query failed.
    Store,
    /// No such stored session or agent.
    NotFound,
    /// Writing an export file failed.
    Export,
    /// Reading another tool's transcripts failed (their folder is missing or unreadable).
    Import,
    /// The session runs in another Arbor process: only its owner may drive it.
    Owned,
    /// The window's page shows the session already (it started or joined it).
    AlreadyShown,
    /// The window's page sent a command again after its request failed (a reload
    /// aborts those in flight): refused, so nothing runs twice.
    Resent,
    /// The page that asked has gone (the window reloaded): the page loaded now
    /// shows what it asked for.
    PageGone,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub kind: AppErrorKind,
    pub message: String,
}

impl AppError {
    pub fn new(kind: AppErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }
}
