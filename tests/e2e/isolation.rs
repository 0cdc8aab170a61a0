//! Isolation end to end in the real webview: a subagent's Changes (a `sed -i`
//! through Bash and a Write, attributed to it, with diffs), reverted from the
//! view; a worktree subagent's branch merged from the tree; the session's
//! sandbox shown in its header and set up in Settings.

use crate::harness::App;
use crate::scripted;
use arbor_testkit::git;
use fantoccini::Locator;
use std::path::Path;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "custom-protocol"),
    ignore = "needs the UI embedded: run with --features custom-protocol (scripts/test.sh does)"
)]
async fn a_subagents_changes_are_reviewed_and_reverted_and_a_worktree_is_merged_from_the_tree() {
    let server = scripted("isolation_e2e").await;
    let settings = serde_json::json!({"approvals": {"Bash": "allow", "Write": "allow", "Edit": "allow"}});
    let env = [("ANTHROPIC_BASE_URL", server.anthropic_base_url()), ("ANTHROPIC_API_KEY", "e2e-test-key".to_string())];
    let app = App::launch_with(Path::new(env!("CARGO_BIN_EXE_arbor-desktop")), &env, Some(&settings)).await;
    let ws = app.file("");
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "-q", "-m", "start"]);

    // The sandbox, as Settings shows it: this machine has bubblewrap.
    app.click("[data-testid=open-settings]").await;
    app.wait_text("[data-testid=settings-sandbox-status]", "bubblewrap").await;
    let auto = app.find("[data-testid=settings-sandbox-auto]").await;
    app.client
        .execute("arguments[0].scrollIntoView({block: 'center'})", vec![serde_json::to_value(&auto).unwrap()])
        .await
        .unwrap();
    app.screenshot("sandbox-settings").await;
    app.click("[data-testid=settings-back]").await;

    app.find("[data-testid=prompt-input]").await.send_keys("ISO-START: tidy up and draft").await.unwrap();
    app.click("[data-testid=send]").await;
    app.node_status("main", "completed").await;
    let badge = app.find("[data-testid=session-sandbox]").await;
    assert_eq!(badge.attr("data-state").await.unwrap().as_deref(), Some("sandboxed"));
    assert_eq!(std::fs::read_to_string(app.file("README.md")).unwrap(), "# tidied workspace\n");
    assert!(app.file("notes.md").exists() && !app.file("draft.md").exists());

    // The tidying subagent's Changes: both files, its own, with the sed's diff.
    app.node("Tidy the notes").await.click().await.unwrap();
    app.click("[data-testid=changes-tab]").await;
    let view = app.find("[data-testid=changes-view]").await;
    let files = app
        .wait("two changed files", || async {
            let rows = view.find_all(Locator::Css("[data-testid=changes-file]")).await.ok()?;
            (rows.len() == 2).then_some(rows)
        })
        .await;
    let mut paths = Vec::new();
    for f in &files {
        paths.push(f.attr("data-path").await.unwrap().unwrap_or_default());
    }
    assert_eq!(paths, vec!["README.md".to_string(), "notes.md".into()]);
    files[0].click().await.unwrap();
    app.wait_text("[data-testid=changes-diff]", "tidied workspace").await;
    app.screenshot("changes-view").await;

    // The worktree subagent's branch waits in the tree, its files listed.
    app.node("Draft apart").await.click().await.unwrap();
    let panel = app.find("[data-testid=worktree-panel]").await;
    app.wait_text("[data-testid=worktree-files]", "1 file").await;
    assert!(app.text_of(&panel).await.contains("draft.md"), "{}", app.text_of(&panel).await);
    app.screenshot("worktree-ready").await;
    app.client.set_window_size(1024, 700).await.unwrap();
    app.screenshot("worktree-ready-1024x700").await;
    app.client.set_window_size(1440, 900).await.unwrap();
    app.screenshot("worktree-ready-1440x900").await;
    app.client.set_window_size(1280, 800).await.unwrap();

    // Revert all of the tidying: the exact bytes are back, notes.md is gone, the view says so.
    app.node("Tidy the notes").await.click().await.unwrap();
    app.click("[data-testid=changes-tab]").await;
    app.click("[data-testid=changes-revert-all]").await;
    app.click("[data-testid=changes-revert-confirm]").await;
    app.wait_text("[data-testid=changes-reverted]", "Reverted 2 files").await;
    assert_eq!(std::fs::read_to_string(app.file("README.md")).unwrap(), "# e2e workspace\n");
    assert!(!app.file("notes.md").exists());
    app.wait("the reverts listed as the person's", || async {
        (app.all("[data-testid=changes-file][data-revert=true]").await.len() == 2).then_some(())
    })
    .await;
    app.screenshot("changes-reverted").await;

    // Merge the worktree from the tree: the draft lands in the workspace, the worktree is gone.
    app.node("Draft apart").await.click().await.unwrap();
    app.click("[data-testid=worktree-merge]").await;
    app.click("[data-testid=worktree-merge-confirm]").await;
    app.wait("the draft merged into the workspace", || async { app.file("draft.md").exists().then_some(()) }).await;
    app.wait("the merged badge", || async {
        let b = app.find("[data-testid=worktree-badge]").await;
        (b.attr("data-state").await.ok()??.as_str() == "merged").then_some(())
    })
    .await;
    assert_eq!(std::fs::read_to_string(app.file("draft.md")).unwrap(), "# Draft\n\nWritten in a worktree.\n");
    assert_eq!(git(&ws, &["worktree", "list"]).lines().count(), 1, "the worktree is gone after the merge");
    // The Changes view tells the worktree's change from what the merge brought into the workspace.
    app.wait("the merged change marked", || async {
        (app.all("[data-testid=change-place][data-place=merged]").await.len() == 1).then_some(())
    })
    .await;
    app.screenshot("worktree-merged").await;
    app.close().await;
    server.shutdown().await;
}
