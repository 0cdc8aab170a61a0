//! Every change attributed to the agent that made it, whichever tool made it,
//! and reverts that put back the exact bytes or refuse with the conflict named.

use super::subagents::*;
use super::*;
use arbor_protocol::{AgentEvent, ChangeKind, FileChanged, Kept};
use arbor_testkit::contract::violations;
use serde_json::json;

fn changes(events: &[AgentEvent]) -> Vec<(AgentId, FileChanged)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::FileChanged(c) => Some((e.agent_id.clone(), c.clone())),
            _ => None,
        })
        .collect()
}

/// Bytes that are not text, so only an exact copy matches.
const B_BYTES: &[u8] = b"beta\x00\xff\xfe binary\n";

#[tokio::test]
async fn sed_write_and_rm_are_each_the_right_agents_and_reverts_restore_exact_bytes_or_refuse() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "child-a"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "sed -i 's/alpha/ALPHA/' a.txt"}}]},
                {"tool_calls": [{"name": "Write", "input": {"file_path": "new.txt", "content": "one\n"}}]},
                {"text": "a done"}
            ]},
            {"match": {"first_user_contains": "child-b"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "rm b.txt"}}]},
                {"tool_calls": [{"name": "Edit", "input": {"file_path": "new.txt", "old_string": "one", "new_string": "two"}}]},
                {"text": "b done"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [task("t1", "Child A", "child-a: edit")]},
                {"tool_calls": [task("t2", "Child B", "child-b: clean")]},
                {"text": "all done"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    std::fs::write(h.path("a.txt"), "alpha\nkeep\n").expect("a");
    std::fs::write(h.path("b.txt"), B_BYTES).expect("b");
    std::fs::write(h.path(".gitignore"), "build/\n").expect("ignore");
    let run = h.run("go").await;
    let (a, _) = child(&run.events, "Child A");
    let (b, _) = child(&run.events, "Child B");
    let got: Vec<(AgentId, String, ChangeKind, bool)> =
        changes(&run.events).into_iter().map(|(agent, c)| (agent, c.path.clone(), c.kind, c.is_ambiguous())).collect();
    assert_eq!(
        got,
        vec![
            (a.clone(), "a.txt".into(), ChangeKind::Modified, false),
            (a.clone(), "new.txt".into(), ChangeKind::Created, false),
            (b.clone(), "b.txt".into(), ChangeKind::Deleted, false),
            (b.clone(), "new.txt".into(), ChangeKind::Modified, false),
        ]
    );
    let all = changes(&run.events);
    let sed = &all[0].1;
    assert_eq!((sed.lines_added, sed.lines_removed), (1, 1));
    assert_eq!(sed.before, Kept::Text { text: "alpha\nkeep\n".into() });
    assert!(sed.call_id.is_some(), "the Bash call that made it is named");
    assert!(matches!(&all[2].1.before, Kept::Binary { .. }), "{:?}", all[2].1.before);
    assert!(violations(&run.events, true).is_empty(), "{:?}", violations(&run.events, true));

    // A's new.txt was changed since by B: the whole revert is refused, nothing touched.
    let refused = run.session.revert_changes(&a, &[]).await.expect("revert");
    assert!(refused.reverted.is_empty());
    assert_eq!(refused.conflicts.len(), 1, "{refused:?}");
    assert_eq!(refused.conflicts[0].path, "new.txt");
    assert!(refused.conflicts[0].reason.contains(&format!("agent {b}")), "{refused:?}");
    assert_eq!(read(&h.path("a.txt")), "ALPHA\nkeep\n");

    // B's revert puts back b.txt's exact bytes and A's new.txt; A's sed stays.
    let done = run.session.revert_changes(&b, &[]).await.expect("revert");
    assert_eq!(done.reverted, vec!["b.txt".to_string(), "new.txt".into()], "{done:?}");
    assert_eq!(std::fs::read(h.path("b.txt")).expect("b back"), B_BYTES);
    assert_eq!(read(&h.path("new.txt")), "one\n");
    assert_eq!(read(&h.path("a.txt")), "ALPHA\nkeep\n");

    // A change since by the person (outside Arbor) is a conflict too.
    std::fs::write(h.path("a.txt"), "ALPHA\nkeep\nmine\n").expect("person");
    let refused = run.session.revert_changes(&a, &["a.txt".into()]).await.expect("revert");
    assert!(refused.reverted.is_empty() && refused.conflicts[0].reason.contains("outside Arbor"), "{refused:?}");
    std::fs::write(h.path("a.txt"), "ALPHA\nkeep\n").expect("undo mine");

    // Now A reverts whole: a.txt as it was, new.txt gone.
    let done = run.session.revert_changes(&a, &[]).await.expect("revert");
    assert_eq!(done.reverted, vec!["a.txt".to_string(), "new.txt".into()], "{done:?}");
    assert_eq!(read(&h.path("a.txt")), "alpha\nkeep\n");
    assert!(!h.path("new.txt").exists());
}

#[tokio::test]
async fn commands_in_one_tree_at_once_leave_ambiguous_changes_and_ignored_files_are_not_changes() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "slow"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "sleep 0.6; echo s > slow.txt"}}]},
                {"text": "slow done"}
            ]},
            {"match": {"first_user_contains": "fast"}, "turns": [
                {"tool_calls": [{"name": "Bash", "input": {"command": "sleep 0.2; echo f > fast.txt; mkdir -p build; echo x > build/out.o"}}]},
                {"text": "fast done"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [task("t1", "Slow", "slow"), task("t2", "Fast", "fast")]},
                {"text": "all done"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    std::fs::write(h.path(".gitignore"), "build/\n").expect("ignore");
    let run = h.run("go").await;
    let (slow, _) = child(&run.events, "Slow");
    let (fast, _) = child(&run.events, "Fast");
    let all = changes(&run.events);
    assert!(all.iter().all(|(_, c)| !c.path.starts_with("build/")), "ignored files are not tracked: {all:?}");
    let fast_change = all.iter().find(|(_, c)| c.path == "fast.txt").expect("fast.txt recorded");
    assert_eq!(fast_change.0, fast);
    assert_eq!(fast_change.1.ambiguous_with, vec![slow.clone()], "slow was running too: never guessed");
    assert_eq!(fast_change.1.call_id, None);
    let slow_change = all.iter().find(|(_, c)| c.path == "slow.txt").expect("slow.txt recorded");
    assert_eq!(slow_change.0, slow);
    assert!(slow_change.1.ambiguous_with.is_empty(), "only slow ran since: {slow_change:?}");
    assert!(violations(&run.events, true).is_empty(), "{:?}", violations(&run.events, true));

    // Reverting "all" of an agent does not guess either: the ambiguous file must be named.
    let refused = run.session.revert_changes(&fast, &[]).await.expect("revert");
    assert!(refused.reverted.is_empty() && refused.conflicts[0].path == "fast.txt", "{refused:?}");
    let done = run.session.revert_changes(&fast, &["fast.txt".into()]).await.expect("revert");
    assert_eq!(done.reverted, vec!["fast.txt".to_string()]);
    assert!(!h.path("fast.txt").exists());
}

#[tokio::test]
async fn a_revert_does_not_follow_a_symbolic_link_planted_where_a_directory_was() {
    let outside = tempfile::tempdir().expect("outside");
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "Bash", "input": {"command": "echo changed > d/x.txt"}}]},
            {"tool_calls": [{"name": "Bash", "input": {"command": format!("rm -r d && ln -s {} d", outside.path().display())}}]},
            {"text": "done"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    std::fs::create_dir_all(h.path("d")).expect("d");
    std::fs::write(h.path("d/x.txt"), "original\n").expect("x");
    let run = h.run("go").await;
    let main = run.session.main_agent_id().clone();
    let refused = run.session.revert_changes(&main, &[]).await.expect("revert");
    assert!(refused.reverted.is_empty(), "{refused:?}");
    assert!(refused.conflicts.iter().any(|c| c.reason.contains("symbolic link")), "{refused:?}");
    assert!(!outside.path().join("x.txt").exists(), "nothing was written through the link");
}
