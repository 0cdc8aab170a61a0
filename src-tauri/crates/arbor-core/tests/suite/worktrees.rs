//! Subagents in git worktrees of their own, through the real `git`: parallel
//! children edit the same file apart, a merge applies one, the other conflicts
//! and changes nothing, discarding leaves no worktree or branch behind, a
//! child without changes leaves nothing at all.

use super::subagents::*;
use super::*;
use arbor_protocol::{AgentEvent, ChangeKind, WorktreeAction, WorktreeState, WorktreeUpdate};
use arbor_testkit::contract::violations;
use arbor_testkit::git;
use serde_json::json;

fn worktree_updates(events: &[AgentEvent], agent: &AgentId) -> Vec<WorktreeUpdate> {
    events
        .iter()
        .filter(|e| e.agent_id == *agent)
        .filter_map(|e| match &e.kind {
            EventKind::Worktree(w) => Some(w.clone()),
            _ => None,
        })
        .collect()
}

fn isolated(id: &str, description: &str, prompt: &str) -> serde_json::Value {
    json!({"id": id, "name": "Task", "input": {"description": description, "prompt": prompt, "isolation": "worktree"}})
}

#[tokio::test]
async fn parallel_worktrees_merge_once_conflict_without_touching_the_tree_and_leave_nothing_when_discarded() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "w-one"}, "turns": [
                {"tool_calls": [{"name": "Edit", "input": {"file_path": "shared.txt", "old_string": "line", "new_string": "one"}}]},
                {"text": "one done"}
            ]},
            {"match": {"first_user_contains": "w-two"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "sed -i 's/line/two/' shared.txt && echo new > extra.txt"}}]},
                {"text": "two done"}
            ]},
            {"match": {"first_user_contains": "w-look"}, "turns": [
                {"tool_calls": [{"name": "Read", "input": {"file_path": "shared.txt"}}]},
                {"text": "looked"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [isolated("t1", "One", "w-one"), isolated("t2", "Two", "w-two"), isolated("t3", "Look", "w-look")]},
                {"text": "{{last_tool_result}}"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let root = h.root();
    std::fs::write(root.join("shared.txt"), "line\nkept\n").expect("file");
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "start"]);
    // Uncommitted work of the parent is part of what the children start from.
    std::fs::write(root.join("notes.md"), "draft\n").expect("draft");

    let run = h.run("fan out").await;
    assert!(violations(&run.events, true).is_empty(), "{:?}", violations(&run.events, true));
    let (one, _) = child(&run.events, "One");
    let (two, _) = child(&run.events, "Two");
    let (look, _) = child(&run.events, "Look");

    // Both diffs are shown: each finished worktree lists its files.
    let ready = |a: &AgentId| worktree_updates(&run.events, a).into_iter().find(|u| u.state == WorktreeState::Ready);
    let ready_or_say = |a: &AgentId| {
        ready(a).unwrap_or_else(|| {
            let mine: Vec<_> =
                run.events.iter().filter(|e| e.agent_id == *a).map(|e| format!("{:?}", e.kind)).collect();
            panic!("{a} is not ready: {mine:#?}")
        })
    };
    let one_ready = ready_or_say(&one);
    assert_eq!(one_ready.branch, format!("arbor/{one}"));
    assert_eq!(one_ready.files.len(), 1);
    assert_eq!(
        (one_ready.files[0].path.as_str(), one_ready.files[0].lines_added, one_ready.files[0].lines_removed),
        ("shared.txt", 1, 1)
    );
    let two_ready = ready_or_say(&two);
    let two_files: Vec<(&str, ChangeKind)> = two_ready.files.iter().map(|f| (f.path.as_str(), f.kind)).collect();
    assert_eq!(two_files, vec![("extra.txt", ChangeKind::Created), ("shared.txt", ChangeKind::Modified)]);
    // Nothing reached the parent's tree yet.
    assert_eq!(read(&root.join("shared.txt")), "line\nkept\n");
    assert!(!root.join("extra.txt").exists());
    // The child without changes left nothing behind.
    let look_states: Vec<WorktreeState> = worktree_updates(&run.events, &look).iter().map(|u| u.state).collect();
    assert_eq!(look_states, vec![WorktreeState::Created, WorktreeState::Removed]);
    // The parent's model was told where the work is.
    let results = tool_results(run.requests.last().expect("a request"));
    assert!(results.iter().any(|(_, r)| r.contains(&format!("committed on branch arbor/{one}"))), "{results:?}");
    assert!(results.iter().any(|(_, r)| r.contains("no changes; its worktree and branch")), "{results:?}");
    // The children saw the parent's uncommitted draft.
    let listed = git(&root, &["worktree", "list"]);
    assert_eq!(listed.lines().count(), 3, "main + two kept worktrees:\n{listed}");

    // Merging the first applies it; its files are recorded as its changes in the parent's tree.
    let merged = run.session.worktree_action(&one, WorktreeAction::Merge).await.expect("merge");
    assert_eq!(merged.state, WorktreeState::Merged);
    assert_eq!(read(&root.join("shared.txt")), "one\nkept\n");
    assert_eq!(read(&root.join("notes.md")), "draft\n");

    // The second conflicts on shared.txt: nothing of it is applied, extra.txt included.
    let refused = run.session.worktree_action(&two, WorktreeAction::Merge).await.expect("merge answer");
    assert_eq!(refused.state, WorktreeState::Conflicted);
    assert_eq!(
        refused.conflicts.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
        vec!["shared.txt"],
        "{refused:?}"
    );
    assert_eq!(read(&root.join("shared.txt")), "one\nkept\n");
    assert!(!root.join("extra.txt").exists(), "half applied");

    // Discarded: gone from `git worktree list`, branch deleted.
    let discarded = run.session.worktree_action(&two, WorktreeAction::Discard).await.expect("discard");
    assert_eq!(discarded.state, WorktreeState::Discarded);
    let listed = git(&root, &["worktree", "list"]);
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert_eq!(git(&root, &["branch", "--list", "arbor/*"]).trim(), "", "no branch left");
    assert!(matches!(
        run.session.worktree_action(&two, WorktreeAction::Merge).await,
        Err(arbor_core::SessionError::NoWorktree(_))
    ));
}

#[tokio::test]
async fn isolation_outside_a_repository_is_a_clear_error_at_spawn() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [isolated("t1", "Alone", "work")]},
            {"text": "{{last_tool_result}}"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("go").await;
    let outs = run.outputs();
    assert!(outs[0].1 && outs[0].0.contains("is not in a git repository"), "{outs:?}");
    assert!(children(&run.events).is_empty(), "nothing was started");
}
