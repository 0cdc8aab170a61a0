//! Approvals from a script (`--json`): scopes and reasons, a spawn asked first
//! (`--approve-spawn`) and edited before it starts, and the live view marking
//! what a rule decided.

use super::*;
use serde_json::json;

/// Runs `args` with `--json`, answering each approval_request with `reply(request)`
/// (None: leave it); returns every event printed.
async fn scripted_run(cli: &Cli, args: &[&str], mut reply: impl FnMut(&Value) -> Option<Value>) -> Vec<Value> {
    let mut child = cli.cmd(args).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let read_all = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let e: Value = serde_json::from_str(&line).unwrap();
            if e["type"] == "approval_request"
                && let Some(answer) = reply(&e)
            {
                stdin.write_all(format!("{answer}\n").as_bytes()).await.unwrap();
            }
            seen.push(e);
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), read_all).await.expect("run ends");
    assert!(child.wait().await.unwrap().success());
    let broken = arbor_testkit::violations(
        &seen.iter().map(|e| serde_json::from_value(e.clone()).unwrap()).collect::<Vec<_>>(),
        true,
    );
    assert!(broken.is_empty(), "{broken:?}");
    seen
}

async fn cli_with(scenario: Value) -> Cli {
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() }
}

fn writes() -> Value {
    json!({"rules": [{"match": {}, "turns": [
        {"tool_calls": [{"id": "w1", "name": "Write", "input": {"file_path": "a.txt", "content": "A"}}]},
        {"tool_calls": [{"id": "w2", "name": "Write", "input": {"file_path": "b.txt", "content": "B"}}]},
        {"text": "{{last_tool_result}}"}
    ]}]})
}

#[tokio::test]
async fn a_scoped_answer_from_a_script_decides_the_next_call_and_says_so() {
    let cli = cli_with(writes()).await;
    let events = scripted_run(&cli, &["run", "--json", "--approve", "ask", "write"], |r| {
        Some(json!({"type": "approval", "request_id": r["request_id"], "approved": true, "scope": "session"}))
    })
    .await;
    assert_eq!(events.iter().filter(|e| e["type"] == "approval_request").count(), 1, "the second Write was not asked");
    let set = events.iter().find(|e| e["type"] == "approval_resolved").unwrap();
    assert_eq!(set["decided_by"]["kind"], "person");
    assert_eq!(set["rule"]["scope"], "session");
    let w2 = events.iter().find(|e| e["type"] == "tool_output" && e["call_id"] == "w2").unwrap();
    assert_eq!(w2["decided_by"]["kind"], "rule");
    assert_eq!(w2["decided_by"]["rule"]["rule_id"], set["rule"]["rule_id"]);
    assert_eq!(cli.file("b.txt").as_deref(), Some("B"));
}

#[tokio::test]
async fn a_denials_reason_from_a_script_reaches_the_model() {
    let cli = cli_with(writes()).await;
    let events = scripted_run(&cli, &["run", "--json", "--approve", "ask", "write"], |r| {
        Some(json!({"type": "approval", "request_id": r["request_id"], "approved": false, "reason": "not in a.txt"}))
    })
    .await;
    let first = events.iter().find(|e| e["type"] == "approval_resolved").unwrap();
    assert_eq!(first["reason"], "not in a.txt");
    let requests = cli.server.requests();
    assert!(requests[1].body.to_string().contains("not in a.txt"), "the model's next request carries the reason");
    assert_eq!(cli.file("a.txt"), None);
}

#[tokio::test]
async fn approve_spawn_asks_first_and_the_scripts_edit_is_what_the_child_gets() {
    let cli = cli_with(json!({"rules": [
        {"match": {"first_user_contains": "CHILD"}, "turns": [{"text": "child ran"}]},
        {"match": {}, "turns": [
            {"tool_calls": [{"id": "t1", "name": "Task", "input": {"description": "Survey", "prompt": "CHILD: survey all"}}]},
            {"text": "{{last_tool_result}}"}
        ]}
    ]}))
    .await;
    let events = scripted_run(&cli, &["run", "--json", "--approve", "all", "--approve-spawn", "spawn"], |r| {
        assert_eq!(r["tool_name"], "Task");
        assert_eq!(r["preview"]["kind"], "spawn");
        assert_eq!(r["preview"]["prompt"], "CHILD: survey all");
        Some(json!({"type": "approval", "request_id": r["request_id"], "approved": true,
                    "edit": {"prompt": "CHILD: survey src only", "tools": ["Read", "Glob"], "max_turns": 2}}))
    })
    .await;
    assert_eq!(events.iter().filter(|e| e["type"] == "approval_request").count(), 1);
    let requests = cli.server.requests();
    let child = requests.iter().find(|r| r.first_user_text.contains("CHILD")).expect("the child ran");
    assert_eq!(child.first_user_text, "CHILD: survey src only");
    let mut tools: Vec<String> =
        child.body["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    tools.sort();
    assert_eq!(tools, vec!["Glob", "Read"]);
    let resolved = events.iter().find(|e| e["type"] == "approval_resolved").unwrap();
    assert_eq!(resolved["edit"]["max_turns"], 2, "the edit is recorded");

    // Without the flag the same run starts the child unasked.
    let plain = scripted_run(&cli, &["run", "--json", "--approve", "all", "spawn"], |_| None).await;
    assert!(!plain.iter().any(|e| e["type"] == "approval_request"));
}
