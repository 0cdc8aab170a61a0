//! A session longer than the model's window, from the terminal: it completes,
//! the live view says where the context was compacted, and `arbor show` keeps
//! every output in full with the compaction where it happened.

use super::*;
use serde_json::json;

const FILES: usize = 16;

/// A model that reads f01.txt to f16.txt with Bash, one per turn, behind a 14,000-token window.
async fn reading_cli() -> Cli {
    let files = FILES;
    let mut rules = vec![json!({
        "match": { "system_contains": "You summarize" },
        "turns": [ { "text": "SUMMARY: read on." } ], "repeat_last": true
    })];
    for i in 1..=files {
        let next = if i == files {
            json!({ "text": "ALL-READ" })
        } else {
            json!({ "tool_calls": [ { "name": "Bash", "input": { "command": format!("cat f{:02}.txt", i + 1) } } ] })
        };
        rules.push(json!({ "match": { "last_tool_result_contains": format!("END-{i:02}") }, "turns": [next], "repeat_last": true }));
    }
    rules.push(json!({
        "match": {}, "repeat_last": true,
        "turns": [ { "tool_calls": [ { "name": "Bash", "input": { "command": "cat f01.txt" } } ] } ]
    }));
    let scenario = json!({ "context_window": 14_000, "rules": rules });
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    let cli = Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    for i in 1..=files {
        let body = format!("file {i:02} line\n").repeat(300);
        std::fs::write(cli.workspace.path().join(format!("f{i:02}.txt")), format!("{body}END-{i:02}\n")).unwrap();
    }
    cli
}

#[tokio::test]
async fn a_run_longer_than_the_window_compacts_and_both_the_live_view_and_show_say_so() {
    let files = FILES;
    let cli = reading_cli().await;
    let out = cli.run(&["run", "--approve", "all", "read f01.txt to f16.txt"]).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "exit {:?}\n{stdout}\n{}", out.status, text(&out.stderr));
    assert!(stdout.contains("ALL-READ"), "{stdout}");
    let line = stdout.lines().find(|l| l.contains("context compacted")).expect("a compaction line");
    assert!(line.contains("tokens (window 14000)") && line.contains("older results cleared"), "{line}");
    // The model's table said 200k; the refusal said 14,000: the agent's last line says how full it ended.
    let last = stdout.lines().find(|l| l.contains("■ completed")).expect("the end line");
    assert!(last.contains(" of 14k ("), "{last}");
    // As it fills again, the live view says so once per step (50, 70, 90%), not with every request.
    let filling: Vec<&str> = stdout.lines().filter(|l| l.contains("⋯ context ") && l.contains(" of 14k (")).collect();
    assert!(!filling.is_empty(), "{stdout}");
    let compacted = stdout.lines().filter(|l| l.contains("context compacted")).count();
    assert!(filling.len() <= 3 * (compacted + 1), "{} lines for {compacted} compactions", filling.len());
    for line in &filling {
        let percent: u64 =
            line.rsplit('(').next().and_then(|p| p.split('%').next()).and_then(|p| p.parse().ok()).unwrap_or(0);
        assert!(percent >= 50, "{line}");
    }

    let sessions = json_events(&cli.run(&["sessions", "--json"]).await.stdout);
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    let md = text(&cli.run(&["show", &id]).await.stdout);
    assert!(md.contains("*Context compacted:*"), "{md}");
    assert!(md.contains("Its last request: context ") && md.contains(" of 14k ("), "{md}");
    // Every output is kept whole, those the model was later sent as a marker too.
    for i in 1..=files {
        assert!(md.contains(&format!("END-{i:02}")), "f{i:02}'s output in the export");
    }
    assert!(!md.contains("Arbor cleared this output"), "the transcript is not the compacted context");
}

#[tokio::test]
async fn told_the_window_a_run_compacts_before_the_server_refuses_anything() {
    let cli = reading_cli().await;
    let out =
        cli.run(&["run", "--approve", "all", "--context-window", "14000", "--compact-at", "75", "read them"]).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success() && stdout.contains("ALL-READ"), "{stdout}");
    assert!(stdout.contains("context compacted"), "{stdout}");
    assert!(cli.server.requests().iter().all(|r| r.status == 200), "nothing refused");
    let tokens = |r: &arbor_testkit::RecordedRequest| r.body.to_string().len() as u64 / 4;
    assert!(cli.server.requests().iter().all(|r| tokens(r) < 14_000 * 80 / 100), "compacted at 75%");
}

#[tokio::test]
async fn a_fork_is_named_a_fork_in_the_live_view_and_in_show() {
    let scenario = json!({ "rules": [
        { "match": { "last_user_contains": "FORK-SIDE" }, "turns": [ { "text": "FORK-ANSWER: nothing odd." } ], "repeat_last": true },
        { "match": { "last_tool_result_contains": "FORK-ANSWER" }, "turns": [ { "text": "MAIN-DONE" } ], "repeat_last": true },
        { "match": { "last_tool_result_contains": "END-01" }, "repeat_last": true, "turns": [ { "tool_calls": [ { "name": "Task",
            "input": { "fork": true, "description": "Look again", "prompt": "FORK-SIDE: anything odd in f01.txt?" } } ] } ] },
        { "match": {}, "repeat_last": true, "turns": [ { "tool_calls": [ { "name": "Bash", "input": { "command": "cat f01.txt" } } ] } ] }
    ] });
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    let cli = Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    std::fs::write(cli.workspace.path().join("f01.txt"), "one line\nEND-01\n").unwrap();
    let out = cli.run(&["run", "--approve", "all", "read f01.txt, then fork"]).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success() && stdout.contains("MAIN-DONE"), "{stdout}\n{}", text(&out.stderr));
    // The call, then the child it started: the user prompt, the call and its result make three messages.
    assert!(stdout.contains("Look again (fork)"), "{stdout}");
    assert!(stdout.contains("Look again (fork of its parent's 3 messages)"), "{stdout}");
    let sessions = json_events(&cli.run(&["sessions", "--json"]).await.stdout);
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    let md = text(&cli.run(&["show", &id]).await.stdout);
    assert!(md.contains("A fork of its parent: it started from its parent's 3 messages."), "{md}");
}
