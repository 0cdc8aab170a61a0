//! Every file change attributed to the agent that made it (docs/contracts.md,
//! "File changes").
//!
//! One [`Tracker`] per working tree keeps what the tree held when last looked
//! at. A call that names the files it writes (Write, Edit) is checked on those
//! files alone; any other call that can change things (Bash, MCP tools) is
//! checked by walking the tree before and after it. Changes found after a call
//! are that call's, unless other agents ran calls in the same tree meanwhile:
//! then the change is marked ambiguous, naming them, never guessed. Changes
//! found before a call, made while no call ran, were made outside Arbor and
//! only update what the tracker knows.

mod revert;
mod scan;

pub use revert::{Restore, apply as apply_revert, plan_revert, restored_change};

use arbor_protocol::{AgentId, FileChanged, RevertConflict, RevertOutcome};
use scan::{Entry, Snapshot};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use tokio::sync::Mutex;

/// The change log and the last look at one working tree.
#[derive(Debug)]
pub struct Tracker {
    root: PathBuf,
    /// Change ids are `chg-<prefix>-<n>`: the prefix keeps trackers (and runs) apart.
    prefix: String,
    state: Mutex<TreeState>,
}

#[derive(Debug, Default)]
struct TreeState {
    /// None until the first call that can change anything.
    snapshot: Option<Snapshot>,
    /// Calls running now that may change anything (walked), by token.
    active: HashMap<u64, AgentId>,
    /// Calls running now that name their files, by token: a walk leaves those files to them.
    naming: HashMap<u64, (AgentId, Vec<String>)>,
    /// Agents with a walked call running at some moment since the last walk.
    touched: BTreeSet<AgentId>,
    next_token: u64,
    next_change: u64,
    /// Every change recorded here, in order (what a revert works from).
    log: Vec<(AgentId, FileChanged)>,
}

/// A call being watched; hand it back to [`Tracker::end`].
pub(crate) struct Watch {
    token: u64,
    agent: AgentId,
    call_id: Option<String>,
    /// The files the call names, as they were before it; None: the whole tree is walked.
    named: Option<Vec<(String, Option<Entry>)>>,
}

/// A change to emit, on the agent it is attributed to.
pub(crate) type Found = (AgentId, FileChanged);

impl Tracker {
    /// `root` is canonical; `prefix` tells this tracker's change ids from others'.
    pub fn new(root: impl Into<PathBuf>, prefix: impl Into<String>) -> Self {
        Self { root: root.into(), prefix: prefix.into(), state: Mutex::new(TreeState::default()) }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Before a call that may change files: `named` are the files it writes, if it says.
    /// Returns changes found meanwhile that belong to other agents' running calls.
    pub(crate) async fn begin(
        &self,
        agent: &AgentId,
        call_id: Option<&str>,
        named: Option<Vec<PathBuf>>,
    ) -> (Watch, Vec<Found>) {
        let mut st = self.state.lock().await;
        let mut found = Vec::new();
        let named = match named {
            Some(paths) => {
                self.ensure_snapshot(&mut st).await;
                let rels: Vec<String> = paths.iter().filter_map(|p| scan::relative(&self.root, p)).collect();
                let (snap, before) = self.read_named(st.snapshot.take(), rels).await;
                st.snapshot = Some(snap);
                Some(before.into_iter().map(|(rel, e, _)| (rel, e)).collect::<Vec<_>>())
            }
            None => {
                let diffs = self.rescan(&mut st).await;
                let others: Vec<AgentId> = st.touched.iter().cloned().collect();
                // Made while no call ran: outside Arbor (the person, an editor); only noted.
                if let Some((first, rest)) = others.split_first() {
                    for (rel, d) in diffs {
                        let change = self.change(&mut st, None, rel, d, rest.to_vec());
                        found.push((first.clone(), change));
                    }
                }
                st.touched = st.active.values().cloned().collect();
                None
            }
        };
        let token = st.next_token;
        st.next_token += 1;
        match &named {
            Some(files) => {
                st.naming.insert(token, (agent.clone(), files.iter().map(|(r, _)| r.clone()).collect()));
            }
            None => {
                st.active.insert(token, agent.clone());
                st.touched.insert(agent.clone());
            }
        }
        st.log.extend(found.iter().cloned());
        (Watch { token, agent: agent.clone(), call_id: call_id.map(str::to_string), named }, found)
    }

    /// After the call: the changes it made (or may have made).
    pub(crate) async fn end(&self, watch: Watch) -> Vec<Found> {
        let mut st = self.state.lock().await;
        st.active.remove(&watch.token);
        st.naming.remove(&watch.token);
        let mut found = Vec::new();
        match watch.named {
            Some(before) => {
                let rels: Vec<String> = before.iter().map(|(r, _)| r.clone()).collect();
                let snap = st.snapshot.take();
                let (snap, after) = self.read_named(snap, rels).await;
                st.snapshot = Some(snap);
                // A command of another agent that ran meanwhile could have changed the same file.
                let others: Vec<AgentId> = st
                    .touched
                    .iter()
                    .chain(st.active.values())
                    .filter(|a| **a != watch.agent)
                    .cloned()
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect();
                for ((rel, b), (_, a, known)) in before.into_iter().zip(after) {
                    // Already known as it is now: a walk after another agent's command recorded
                    // this change (as ambiguous) while the call ran; it is not recorded twice.
                    if known {
                        continue;
                    }
                    if let Some(d) = scan::diff(b.as_ref(), a.as_ref()) {
                        let change = self.change(&mut st, watch.call_id.clone(), rel, d, others.clone());
                        found.push((watch.agent.clone(), change));
                    }
                }
            }
            None => {
                let diffs = self.rescan(&mut st).await;
                let others: Vec<AgentId> = st.touched.iter().filter(|a| **a != watch.agent).cloned().collect();
                let call = if others.is_empty() { watch.call_id.clone() } else { None };
                for (rel, d) in diffs {
                    let change = self.change(&mut st, call.clone(), rel, d, others.clone());
                    found.push((watch.agent.clone(), change));
                }
                st.touched = st.active.values().cloned().collect();
            }
        }
        st.log.extend(found.iter().cloned());
        found
    }

    /// Undoes `agent`'s changes (all, or those to `paths`), all or nothing.
    pub(crate) async fn revert(&self, agent: &AgentId, paths: &[String]) -> (RevertOutcome, Vec<Found>) {
        let mut st = self.state.lock().await;
        if !st.active.is_empty() || !st.naming.is_empty() {
            let reason = "calls are running in this tree now; revert once they have finished".to_string();
            let conflicts = vec![RevertConflict { path: String::new(), reason }];
            return (RevertOutcome { reverted: Vec::new(), conflicts }, Vec::new());
        }
        self.ensure_snapshot(&mut st).await;
        let root = self.root.clone();
        let log = st.log.clone();
        let (agent2, paths2) = (agent.clone(), paths.to_vec());
        let planned = tokio::task::spawn_blocking(move || {
            let current = |rel: &str| read_current(&root, rel);
            let plan = plan_revert(&log, &agent2, &paths2, &current)?;
            revert::apply(&root, &plan).map_err(|e| vec![RevertConflict { path: String::new(), reason: e }])?;
            Ok::<_, Vec<RevertConflict>>(plan)
        })
        .await
        .unwrap_or_else(|e| {
            Err(vec![RevertConflict { path: String::new(), reason: format!("the revert failed: {e}") }])
        });
        let plan = match planned {
            Ok(plan) => plan,
            Err(conflicts) => return (RevertOutcome { reverted: Vec::new(), conflicts }, Vec::new()),
        };
        // What the tracker knows follows the restored files, so no later walk finds the revert again.
        let rels: Vec<String> = plan.iter().map(|r| r.path.clone()).collect();
        let (snap, _) = self.read_named(st.snapshot.take(), rels.clone()).await;
        st.snapshot = Some(snap);
        let mut found = Vec::new();
        for r in &plan {
            let id = self.next_id(&mut st);
            let change = restored_change(id, &self.root, r);
            st.log.push((agent.clone(), change.clone()));
            found.push((agent.clone(), change));
        }
        (RevertOutcome { reverted: rels, conflicts: Vec::new() }, found)
    }

    async fn ensure_snapshot(&self, st: &mut TreeState) {
        if st.snapshot.is_none() {
            let root = self.root.clone();
            st.snapshot = tokio::task::spawn_blocking(move || Snapshot::take(&root)).await.ok();
        }
    }

    /// Walks the tree against what was known; returns what changed.
    async fn rescan(&self, st: &mut TreeState) -> Vec<(String, scan::Diffed)> {
        let Some(snap) = st.snapshot.take() else {
            self.ensure_snapshot(st).await;
            return Vec::new();
        };
        let root = self.root.clone();
        let skip: HashSet<String> = st.naming.values().flat_map(|(_, files)| files.iter().cloned()).collect();
        // A failed walk forgets what it knew (the next call looks afresh) rather than
        // taking every file for new.
        match tokio::task::spawn_blocking(move || rescan(&root, snap, &skip)).await {
            Ok((snap, diffs)) => {
                st.snapshot = Some(snap);
                diffs
            }
            Err(e) => {
                tracing::warn!(error = %e, "walking the tree for changes failed");
                Vec::new()
            }
        }
    }

    /// The named files as they are now (and whether the snapshot knew them so
    /// already), the snapshot updated to them.
    async fn read_named(
        &self,
        snap: Option<Snapshot>,
        rels: Vec<String>,
    ) -> (Snapshot, Vec<(String, Option<Entry>, bool)>) {
        let root = self.root.clone();
        let snap = snap.unwrap_or_default();
        tokio::task::spawn_blocking(move || {
            let mut snap = snap;
            let now = rels.into_iter().map(|rel| {
                let (e, known) = refresh(&root, &mut snap, &rel);
                (rel, e, known)
            });
            let now = now.collect();
            (snap, now)
        })
        .await
        .unwrap_or_default()
    }

    fn next_id(&self, st: &mut TreeState) -> String {
        st.next_change += 1;
        format!("chg-{}-{}", self.prefix, st.next_change)
    }

    fn change(
        &self,
        st: &mut TreeState,
        call_id: Option<String>,
        path: String,
        d: scan::Diffed,
        ambiguous_with: Vec<AgentId>,
    ) -> FileChanged {
        FileChanged {
            change_id: self.next_id(st),
            call_id,
            root: self.root.display().to_string(),
            path,
            kind: d.kind,
            before_hash: d.before_hash,
            after_hash: d.after_hash,
            lines_added: d.lines_added,
            lines_removed: d.lines_removed,
            before: d.before,
            after: d.after,
            ambiguous_with,
            revert_of: Vec::new(),
        }
    }
}

/// One file as it is now, updating the snapshot (re-read when its metadata
/// moved), and whether the snapshot already knew it so.
fn refresh(root: &Path, snap: &mut Snapshot, rel: &str) -> (Option<Entry>, bool) {
    let meta = std::fs::symlink_metadata(root.join(rel)).ok().filter(|m| m.is_file());
    let Some(meta) = meta else {
        let known = !snap.files.contains_key(rel);
        snap.drop_entry(rel);
        return (None, known);
    };
    let meta = scan::Meta::of(&meta);
    if let Some(e) = snap.files.get(rel).filter(|e| e.meta == meta) {
        return (Some(e.clone()), true);
    }
    snap.drop_entry(rel);
    let e = snap.read(root, rel, meta);
    snap.files.insert(rel.to_string(), e.clone());
    (Some(e), false)
}

/// `skip`: files a running call names; its own end records them.
fn rescan(root: &Path, mut snap: Snapshot, skip: &HashSet<String>) -> (Snapshot, Vec<(String, scan::Diffed)>) {
    let now = scan::walk(root);
    let mut diffs = Vec::new();
    let gone: Vec<String> =
        snap.files.keys().filter(|k| !now.contains_key(*k) && !skip.contains(*k)).cloned().collect();
    for (rel, meta) in now {
        if skip.contains(&rel) || snap.files.get(&rel).is_some_and(|e| e.meta == meta) {
            continue;
        }
        let old = snap.drop_entry(&rel);
        let new = snap.read(root, &rel, meta);
        if let Some(d) = scan::diff(old.as_ref(), Some(&new)) {
            diffs.push((rel.clone(), d));
        }
        snap.files.insert(rel, new);
    }
    for rel in gone {
        let old = snap.drop_entry(&rel);
        if let Some(d) = scan::diff(old.as_ref(), None) {
            diffs.push((rel, d));
        }
    }
    diffs.sort_by(|a, b| a.0.cmp(&b.0));
    (snap, diffs)
}

/// A file's bytes now: None if it is absent; Err if it cannot be read.
pub fn read_current(root: &Path, rel: &str) -> Result<Option<Vec<u8>>, String> {
    let path = scan::unlinked(root, rel)?;
    match std::fs::read(&path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {rel}: {e}")),
    }
}

/// A tree as last walked, for benchmarks: what a first call pays ([`TreeScan::take`])
/// and what each later command pays ([`TreeScan::rescan`]).
pub struct TreeScan {
    root: PathBuf,
    snap: Snapshot,
}

impl TreeScan {
    pub fn take(root: &Path) -> TreeScan {
        TreeScan { root: root.to_path_buf(), snap: Snapshot::take(root) }
    }

    pub fn files(&self) -> usize {
        self.snap.files.len()
    }

    /// Walks again; how many files changed since.
    pub fn rescan(&mut self) -> usize {
        let (snap, diffs) = rescan(&self.root, std::mem::take(&mut self.snap), &HashSet::new());
        self.snap = snap;
        diffs.len()
    }
}
