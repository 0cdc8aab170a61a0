//! An agent that works in a git worktree of its own: the worktree is made when
//! it first runs (its tools, sandbox, change log and subagents then work there),
//! and when its run ends its work is committed on its branch, kept for a person
//! to merge, keep or discard, or removed at once when there is none. Its
//! parent's model reads what became of it after the result.

use crate::changes::Tracker;
use crate::registry::AgentSpec;
use crate::shared::Shared;
use crate::workspace::Workspace;
use crate::worktree::{self, Worktree};
use arbor_protocol::{AgentId, EventKind, Isolation, UserBlock, WorktreeState};
use std::sync::Arc;

/// Makes the agent's worktree when it should have one and has none yet; its
/// spec then points there (and so do its children's). Err: why it cannot.
pub(crate) async fn ensure(
    shared: &Arc<Shared>,
    id: &AgentId,
    run_spec: &mut Arc<AgentSpec>,
    history: &mut [arbor_protocol::Message],
) -> Result<(), String> {
    if run_spec.isolation != Isolation::Worktree || run_spec.worktree.is_some() {
        return Ok(());
    }
    let parent_root = run_spec.workspace.root().to_path_buf();
    let (session, agent) = (shared.ctx.id.to_string(), id.to_string());
    let made = tokio::task::spawn_blocking(move || worktree::create(&parent_root, &session, &agent))
        .await
        .map_err(|e| format!("cannot make a worktree: {e}"))?
        .map_err(|e| format!("cannot make a worktree: {e}"))?;
    let workspace = Workspace::new(&made.root, &[]).map_err(|e| format!("cannot use the worktree: {e}"))?;
    let mut spec = (**run_spec).clone();
    // Git in the worktree writes to the repository's git dir (its index, its branch's commits).
    let mut policy = spec.sandbox.policy().clone();
    // `<common>/arbor/worktrees/<session>/<agent>`: the common git dir is four levels up. Git in
    // the worktree writes objects, its branch and logs, and its own admin dir; not the
    // repository's hooks or config, which run code when Arbor's git runs outside the sandbox.
    for dir in git_writes(&made, id) {
        policy.write.push(dir);
    }
    spec.sandbox = Arc::new(spec.sandbox.child(policy, &made.root));
    spec.changes = Arc::new(Tracker::new(&made.root, format!("{}-{}", id.as_str(), shared.now_ms())));
    spec.workspace = workspace;
    let made = Arc::new(made);
    spec.worktree = Some(made.clone());
    *run_spec = Arc::new(spec);
    if let Some(r) = shared.registry().get_mut(id) {
        r.spec = run_spec.clone();
    }
    // The model is told where it works: its task's paths are its parent's tree's.
    if let Some(arbor_protocol::Message::User { content }) = history.first_mut() {
        content.push(UserBlock::Text {
            text: format!(
                "(You work in your own git worktree at {}, on branch {}: a copy of the parent's tree as it was when \
                 you started. Use paths inside it. Your changes stay on the branch until the user merges them.)",
                made.root.display(),
                made.branch
            ),
        });
    }
    shared.emit(id, EventKind::Worktree(made.update(WorktreeState::Created, Vec::new())));
    Ok(())
}

/// When the run ends: commits the agent's work on its branch and keeps it for
/// a person, or removes the worktree when there is none; notes for the parent's model what became of it.
pub(crate) async fn finish(shared: &Arc<Shared>, id: &AgentId, run_spec: &mut Arc<AgentSpec>) {
    let Some(wt) = run_spec.worktree.clone() else { return };
    // Children still at work in this tree: it is not done yet.
    if !shared.registry().outstanding(id).is_empty() {
        return;
    }
    let description = shared.registry().get(id).map(|r| r.state.description.clone()).unwrap_or_default();
    let message = format!("{id}: {description}");
    let w = wt.clone();
    let files = tokio::task::spawn_blocking(move || worktree::finish(&w, &message)).await;
    let note = match files {
        Ok(Ok(files)) if files.is_empty() => {
            let w = wt.clone();
            let removed =
                tokio::task::spawn_blocking(move || worktree::remove(&w.path, &w.parent_top, &w.branch, false)).await;
            if let Ok(Err(e)) = removed {
                tracing::warn!(error = %e, "removing an empty worktree");
            }
            shared.emit(id, EventKind::Worktree(wt.update(WorktreeState::Removed, Vec::new())));
            // Back in its parent's tree: a later run (a message, a resume) gets a fresh worktree.
            *run_spec = Arc::new(back_in_parent(shared, id, run_spec, &wt));
            if let Some(r) = shared.registry().get_mut(id) {
                r.spec = run_spec.clone();
            }
            format!("[Worktree: no changes; its worktree and branch {} were removed.]", wt.branch)
        }
        Ok(Ok(files)) => {
            let (added, removed) = files.iter().fold((0, 0), |(a, r), f| (a + f.lines_added, r + f.lines_removed));
            let n = files.len();
            shared.emit(id, EventKind::Worktree(wt.update(WorktreeState::Ready, files)));
            format!(
                "[Worktree: its changes ({n} file{}, +{added} −{removed}) are committed on branch {} (worktree {}). \
                 They are NOT in your tree: the user decides whether to merge, keep or discard them. Do not redo them.]",
                if n == 1 { "" } else { "s" },
                wt.branch,
                wt.path.display()
            )
        }
        Ok(Err(e)) => {
            format!("[Worktree: its work could not be committed ({e}); it is left in {}.]", wt.path.display())
        }
        Err(e) => format!("[Worktree: its work could not be committed ({e}); it is left in {}.]", wt.path.display()),
    };
    if let Some(r) = shared.registry().get_mut(id) {
        r.note = Some(note);
    }
}

/// `spec` back in its parent's tree, its worktree gone: the workspace, sandbox
/// and change log of that tree again (so a later run, and a revert of what a
/// merge brought there, work on it).
pub(crate) fn back_in_parent(
    shared: &Shared,
    agent: &arbor_protocol::AgentId,
    spec: &AgentSpec,
    wt: &Worktree,
) -> AgentSpec {
    let mut spec = spec.clone();
    spec.worktree = None;
    if let Ok(ws) = Workspace::new(&wt.parent_root, &[]) {
        spec.workspace = ws;
    }
    let mut policy = spec.sandbox.policy().clone();
    let added = git_writes(wt, agent);
    policy.write.retain(|p| !added.contains(p));
    spec.sandbox = Arc::new(spec.sandbox.child(policy, &wt.parent_root));
    let reg = shared.registry();
    let parent = reg
        .get(agent)
        .and_then(|r| r.state.parent_id.clone())
        .and_then(|p| reg.get(&p).map(|r| r.spec.changes.clone()));
    spec.changes = match parent {
        Some(t) if t.root() == wt.parent_root => t,
        _ => Arc::new(Tracker::new(&wt.parent_root, format!("{agent}-{}", shared.now_ms()))),
    };
    spec
}

/// What git in `wt` writes in the repository's common git dir.
fn git_writes(wt: &Worktree, agent: &arbor_protocol::AgentId) -> Vec<std::path::PathBuf> {
    let Some(common) = wt.path.ancestors().nth(4) else { return Vec::new() };
    ["objects", "refs", "logs"]
        .iter()
        .map(|d| common.join(d))
        .chain(std::iter::once(common.join("worktrees").join(agent.as_str())))
        .collect()
}
