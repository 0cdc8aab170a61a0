//! Subagents in git worktrees of their own, on the wire: where a subagent
//! works, what became of its worktree, and what a person can do with it.

use crate::{ChangeKind, RevertConflict};
use serde::{Deserialize, Serialize};

/// Where a subagent does its work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    /// In its parent's working tree.
    #[default]
    Shared,
    /// In a `git worktree` of its own, on a new branch `arbor/<agent-id>`
    /// made from its parent's tree as it is (uncommitted changes included).
    Worktree,
}

impl Isolation {
    pub const ALL: [Isolation; 2] = [Isolation::Shared, Isolation::Worktree];
}

/// One file a worktree's branch changed against where it started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct WorktreeFile {
    pub path: String,
    pub kind: ChangeKind,
    pub lines_added: u32,
    pub lines_removed: u32,
}

/// What became of an agent's worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeState {
    /// Made; the agent works there.
    Created,
    /// The agent finished with changes: they wait on the branch for a person's merge, keep or discard.
    Ready,
    /// The agent finished without changes: worktree and branch removed at once.
    Removed,
    /// Its changes were applied to the parent's tree; worktree and branch removed.
    Merged,
    /// A merge was refused (nothing applied): `conflicts` says file by file why.
    Conflicted,
    /// The branch kept (its commit holds the work), the worktree's checkout removed.
    Kept,
    /// Worktree and branch deleted, changes dropped.
    Discarded,
}

impl WorktreeState {
    pub const ALL: [WorktreeState; 7] = [
        WorktreeState::Created,
        WorktreeState::Ready,
        WorktreeState::Removed,
        WorktreeState::Merged,
        WorktreeState::Conflicted,
        WorktreeState::Kept,
        WorktreeState::Discarded,
    ];

    /// A person may still merge, keep or discard.
    pub fn is_open(self) -> bool {
        matches!(self, WorktreeState::Ready | WorktreeState::Conflicted)
    }
}

/// A worktree's state changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct WorktreeUpdate {
    pub state: WorktreeState,
    pub branch: String,
    /// The worktree's directory (gone once merged, kept as a branch or discarded).
    pub path: String,
    /// The working tree it came from, where a merge applies.
    pub parent_root: String,
    /// The commit it started from.
    pub base: String,
    /// What the branch changed against `base` (when ready, merged, conflicted or kept).
    #[serde(default)]
    pub files: Vec<WorktreeFile>,
    /// Why a merge was refused, file by file.
    #[serde(default)]
    pub conflicts: Vec<RevertConflict>,
}

/// What a person does with a finished worktree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum WorktreeAction {
    Merge,
    Keep,
    Discard,
}
