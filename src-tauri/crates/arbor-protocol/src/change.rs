//! File changes on the wire: each file an agent created, changed or deleted
//! (through any tool), attributed to it, with what it held before so the
//! change can be shown and undone; and what a revert did or refused to do.

use crate::AgentId;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Created,
    Modified,
    Deleted,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
        }
    }
}

/// One side of a change, as kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kept {
    /// No file on this side (before a creation, after a deletion).
    Absent,
    /// UTF-8 text, exactly.
    Text { text: String },
    /// Other bytes, exactly, as base64.
    Binary { base64: String },
    /// Not kept: past the bound, or unreadable. Says how large and why.
    NotKept { bytes: u64, reason: String },
}

impl Kept {
    pub fn is_kept(&self) -> bool {
        !matches!(self, Kept::NotKept { .. })
    }
}

/// A file changed by an agent's tool call (or by a person's revert of its changes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct FileChanged {
    /// Unique in the session: what a revert names.
    pub change_id: String,
    /// The call that made it; None when it was found between calls or made by a revert.
    pub call_id: Option<String>,
    /// The working tree `path` is in (the workspace, or the agent's worktree).
    pub root: String,
    /// Relative to `root`, `/`-separated.
    pub path: String,
    pub kind: ChangeKind,
    /// SHA-256 of the bytes, hex; None when absent or not read.
    pub before_hash: Option<String>,
    pub after_hash: Option<String>,
    pub lines_added: u32,
    pub lines_removed: u32,
    pub before: Kept,
    pub after: Kept,
    /// Other agents that ran commands in the same tree at the same time and
    /// could have made this change: it is theirs as much as this agent's.
    #[serde(default)]
    pub ambiguous_with: Vec<AgentId>,
    /// A person's revert: the changes it undid.
    #[serde(default)]
    pub revert_of: Vec<String>,
}

impl FileChanged {
    pub fn is_ambiguous(&self) -> bool {
        !self.ambiguous_with.is_empty()
    }
}

/// Why a file was not reverted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct RevertConflict {
    pub path: String,
    pub reason: String,
}

/// What a revert did: every file, or (when any conflicts) none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct RevertOutcome {
    pub reverted: Vec<String>,
    pub conflicts: Vec<RevertConflict>,
}
