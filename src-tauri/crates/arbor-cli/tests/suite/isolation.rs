//! Changes, reverts and worktrees from the terminal: `arbor changes` attributes
//! each file to its agent, `arbor revert` puts back exact bytes, a `--json` run
//! keeps a worktree with changes and says so, `arbor worktrees` lists and merges it.

use super::*;
use arbor_testkit::git;
use serde_json::json;

async fn isolation_cli() -> Cli {
    let scenario = json!({"rules": [
        {"match": {"first_user_contains": "child-a"}, "turns": [
            {"tool_calls": [{"name": "Bash", "input": {"command": "sed -i 's/alpha/ALPHA/' a.txt && echo b > b.txt"}}]},
            {"text": "a done"}
        ]},
        {"match": {"first_user_contains": "child-w"}, "turns": [
            {"tool_calls": [{"name": "Write", "input": {"file_path": "w.txt", "content": "from the worktree\n"}}]},
            {"text": "w done"}
        ]},
        {"match": {}, "turns": [
            {"tool_calls": [{"name": "Task", "input": {"description": "Edit A", "prompt": "child-a: edit"}}]},
            {"tool_calls": [{"name": "Task", "input": {"description": "Isolated", "prompt": "child-w: write", "isolation": "worktree"}}]},
            {"text": "{{last_tool_result}}"}
        ]}
    ]});
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    let cli = Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    let ws = cli.workspace.path();
    std::fs::write(ws.join("a.txt"), "alpha\n").unwrap();
    git(ws, &["init", "-q", "-b", "main"]);
    git(ws, &["add", "-A"]);
    git(ws, &["commit", "-q", "-m", "start"]);
    cli
}

#[tokio::test]
async fn changes_are_attributed_reverted_and_a_kept_worktree_is_listed_and_merged() {
    let cli = isolation_cli().await;
    let run = cli.run(&["run", "--json", "--approve", "all", "go"]).await;
    assert!(run.status.success(), "{}", text(&run.stderr));
    let events = json_events(&run.stdout);
    let session = events[0]["session_id"].as_str().unwrap().to_string();
    let agent = |desc: &str| {
        events
            .iter()
            .find(|e| e["type"] == "agent_started" && e["description"] == desc)
            .and_then(|e| e["agent_id"].as_str())
            .unwrap()
            .to_string()
    };
    let (a, w) = (agent("Edit A"), agent("Isolated"));
    // The run could not ask: the worktree with changes was kept, and the parent's model was told.
    let ready = events.iter().find(|e| e["type"] == "worktree" && e["state"] == "ready").expect("a kept worktree");
    assert_eq!(ready["agent_id"], w.as_str());
    assert_eq!(ready["branch"], format!("arbor/{w}"));
    let last = events.iter().rev().find(|e| e["type"] == "response").unwrap();
    assert!(last["content"].as_str().unwrap().contains(&format!("committed on branch arbor/{w}")), "{last}");
    assert!(cli.file("w.txt").is_none(), "not merged by itself");

    let out = cli.run(&["changes", &session, "--format", "json"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rows: Vec<(String, String, String, bool)> = json_events(&out.stdout)
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap().to_string();
            (s("agent_id"), s("path"), s("kind"), r["ambiguous"].as_bool().unwrap())
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (a.clone(), "a.txt".into(), "modified".into(), false),
            (a.clone(), "b.txt".into(), "created".into(), false),
            (w.clone(), "w.txt".into(), "created".into(), false),
        ]
    );
    let diff = cli.run(&["changes", &session, "--agent", &a]).await;
    let diff = text(&diff.stdout);
    assert!(diff.contains(&format!("# modified a.txt by {a}")) && diff.contains("-alpha\n+ALPHA"), "{diff}");

    let out = cli.run(&["revert", &session, "--agent", &a]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "reverted a.txt\nreverted b.txt\n");
    assert_eq!(cli.file("a.txt").as_deref(), Some("alpha\n"));
    assert!(cli.file("b.txt").is_none());
    // Again: nothing left of it to revert, and the revert itself is recorded.
    let again = cli.run(&["revert", &session, "--agent", &a, "a.txt"]).await;
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stderr).contains("arbor: nothing was reverted"), "{}", text(&again.stderr));
    let out = cli.run(&["changes", &session, "--agent", &a, "--format", "json"]).await;
    assert_eq!(json_events(&out.stdout).iter().filter(|r| !r["revert_of"].as_array().unwrap().is_empty()).count(), 2);

    let out = cli.run(&["worktrees"]).await;
    let listed = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(listed.contains(&format!("{w}  session {session}  branch arbor/{w}  1 file +1 −0")), "{listed}");
    let out = cli.run(&["worktrees", "merge", &w]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(cli.file("w.txt").as_deref(), Some("from the worktree\n"));
    assert_eq!(git(cli.workspace.path(), &["worktree", "list"]).lines().count(), 1);
    assert_eq!(text(&cli.run(&["worktrees"]).await.stdout), "no Arbor worktrees in this repository\n");
}
