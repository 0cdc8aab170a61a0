//! Undoing an agent's changes: which bytes each file goes back to, refused
//! file by file when anyone changed it since, and applied all or nothing.
//! Pure over a change log, so a live session and a stored one revert alike.

use super::scan;
use arbor_protocol::{AgentId, ChangeKind, FileChanged, Kept, RevertConflict};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// Reads a file of the tree as it is now: None when absent, Err when it cannot be read.
pub type ReadCurrent<'a> = dyn Fn(&str) -> Result<Option<Vec<u8>>, String> + 'a;

/// One file to put back.
#[derive(Debug, Clone, PartialEq)]
pub struct Restore {
    pub path: String,
    /// What it holds now (None: absent).
    pub current: Option<Vec<u8>>,
    /// What it goes back to (None: it is deleted).
    pub bytes: Option<Vec<u8>>,
    /// The changes this undoes.
    pub undoes: Vec<String>,
}

/// What reverting `agent`'s changes (to `paths`, or all) would do, or every
/// reason it cannot. `log` is every change of the tree in order; `current`
/// reads a file as it is now (None: absent).
pub fn plan_revert(
    log: &[(AgentId, FileChanged)],
    agent: &AgentId,
    paths: &[String],
    current: &ReadCurrent<'_>,
) -> Result<Vec<Restore>, Vec<RevertConflict>> {
    let undone: HashSet<&str> = log.iter().flat_map(|(_, c)| c.revert_of.iter().map(String::as_str)).collect();
    // Per file, the changes still in effect, in order. A revert put back what its file held
    // before the changes it undid, so without both, each chain still ends in the file as it is.
    let mut chains: BTreeMap<&str, Vec<&(AgentId, FileChanged)>> = BTreeMap::new();
    let in_effect = |c: &FileChanged| c.revert_of.is_empty() && !undone.contains(c.change_id.as_str());
    for entry in log.iter().filter(|(_, c)| in_effect(c)) {
        chains.entry(entry.1.path.as_str()).or_default().push(entry);
    }
    let named = |p: &str| paths.is_empty() || paths.iter().any(|n| n == p);
    let mine = |(a, _): &&(AgentId, FileChanged)| a == agent;
    let mut plan = Vec::new();
    let mut conflicts = Vec::new();
    let mut conflict = |path: &str, reason: String| conflicts.push(RevertConflict { path: path.to_string(), reason });
    for (path, chain) in &chains {
        if !named(path) {
            continue;
        }
        let Some(first) = chain.iter().position(&mine) else { continue };
        let ours: Vec<&FileChanged> = chain[first..].iter().filter(|e| mine(e)).map(|e| &e.1).collect();
        if paths.is_empty()
            && let Some(c) = ours.iter().find(|c| c.is_ambiguous())
        {
            let with: Vec<&str> = c.ambiguous_with.iter().map(|a| a.as_str()).collect();
            conflict(
                path,
                format!(
                    "changed while {} also ran commands in this tree, so it may not be this agent's change; revert this file by name if it is",
                    with.join(", ")
                ),
            );
            continue;
        }
        if let Some((other, _)) = chain[first..].iter().find(|(a, _)| a != agent) {
            conflict(path, format!("changed since by agent {other}; reverting would undo that too"));
            continue;
        }
        let now = match current(path) {
            Ok(now) => now,
            Err(e) => {
                conflict(path, e);
                continue;
            }
        };
        let Some(last) = chain.last() else { continue };
        let expected = match &last.1.after_hash {
            Some(h) => Some(h.clone()),
            None if last.1.kind == ChangeKind::Deleted => None,
            None => {
                conflict(
                    path,
                    "its last content was not kept (too large), so a change since cannot be ruled out".into(),
                );
                continue;
            }
        };
        let actual = now.as_deref().map(|b| scan::hex(&scan::sha256(b)));
        if actual != expected {
            conflict(path, "changed since outside Arbor (by you or another program); reverting would lose that".into());
            continue;
        }
        let Some(bytes) = scan::bytes_of(&chain[first].1.before) else {
            conflict(
                path,
                match &chain[first].1.before {
                    Kept::NotKept { reason, .. } => format!("what it held before was not kept: {reason}"),
                    _ => "what it held before was not kept".into(),
                },
            );
            continue;
        };
        plan.push(Restore {
            path: path.to_string(),
            current: now,
            bytes,
            undoes: ours.iter().map(|c| c.change_id.clone()).collect(),
        });
    }
    if !paths.is_empty() {
        for p in paths.iter().filter(|p| !chains.get(p.as_str()).is_some_and(|c| c.iter().any(&mine))) {
            conflict(p, "this agent has no change to it that could be reverted".into());
        }
    }
    if conflicts.is_empty() { Ok(plan) } else { Err(conflicts) }
}

/// Writes every file of `plan` (each through a temporary file, renamed into
/// place once all are written, so a failure leaves the tree as it was).
pub fn apply(root: &Path, plan: &[Restore]) -> Result<(), String> {
    let mut staged = Vec::new();
    let cleanup = |staged: &[(std::path::PathBuf, std::path::PathBuf)]| {
        for (tmp, _) in staged {
            let _ = std::fs::remove_file(tmp);
        }
    };
    for r in plan {
        let path = match scan::unlinked(root, &r.path) {
            Ok(p) => p,
            Err(e) => {
                cleanup(&staged);
                return Err(e);
            }
        };
        let Some(bytes) = &r.bytes else { continue };
        let dir = path.parent().unwrap_or(root);
        // A fresh file of its own (created exclusively), renamed over the target at the end.
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| tempfile::Builder::new().prefix(".arbor-revert-").tempfile_in(dir))
            .and_then(|mut f| std::io::Write::write_all(&mut f, bytes).map(|()| f))
            .and_then(|f| f.keep().map_err(|e| e.error));
        match written {
            Ok((_, tmp)) => staged.push((tmp, path)),
            Err(e) => {
                cleanup(&staged);
                return Err(format!("cannot write {}: {e}", r.path));
            }
        }
    }
    for (tmp, path) in &staged {
        std::fs::rename(tmp, path).map_err(|e| format!("cannot put back {}: {e}", path.display()))?;
    }
    for r in plan.iter().filter(|r| r.bytes.is_none()) {
        if let Ok(path) = scan::unlinked(root, &r.path) {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("cannot remove {}: {e}", r.path)),
            }
        }
    }
    Ok(())
}

/// The change a revert made to one file, as recorded.
pub fn restored_change(change_id: String, root: &Path, r: &Restore) -> FileChanged {
    let entry = |b: &Option<Vec<u8>>| {
        b.as_ref().map(|bytes| scan::Entry {
            meta: scan::Meta::empty(bytes.len() as u64),
            hash: Some(scan::sha256(bytes)),
            bytes: Some(std::sync::Arc::new(bytes.clone())),
        })
    };
    let (before, after) = (entry(&r.current), entry(&r.bytes));
    let d = scan::diff(before.as_ref(), after.as_ref());
    let kind = match (&r.current, &r.bytes) {
        (None, _) => ChangeKind::Created,
        (_, None) => ChangeKind::Deleted,
        _ => ChangeKind::Modified,
    };
    FileChanged {
        change_id,
        call_id: None,
        root: root.display().to_string(),
        path: r.path.clone(),
        kind,
        before_hash: before.as_ref().and_then(|e| e.hash.as_ref()).map(scan::hex),
        after_hash: after.as_ref().and_then(|e| e.hash.as_ref()).map(scan::hex),
        lines_added: d.as_ref().map_or(0, |d| d.lines_added),
        lines_removed: d.as_ref().map_or(0, |d| d.lines_removed),
        before: scan::kept(before.as_ref()),
        after: scan::kept(after.as_ref()),
        ambiguous_with: Vec::new(),
        revert_of: r.undoes.clone(),
    }
}
