//! The stored sessions as the CLI shows them: `arbor sessions`, `show` (every
//! subagent's full transcript, and the very events `run --json` printed),
//! `search`, `resume`; crash safety under SIGKILL; a store file that is not ours.

use super::*;

fn lines(b: &[u8]) -> Vec<String> {
    text(b).lines().map(str::to_string).collect()
}

fn session_id(events: &[Value]) -> String {
    events[0]["session_id"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_recorded_session_is_listed_shown_with_every_childs_transcript_searched_and_resumed() {
    let cli = subagent_cli().await;
    let run = cli.run(&["run", "--json", "--approve", "all", "delegate two"]).await;
    assert!(run.status.success(), "{}", text(&run.stderr));
    let printed = lines(&run.stdout);
    let events = json_events(&run.stdout);
    let id = session_id(&events);

    let list = cli.run(&["sessions", "--json"]).await;
    assert!(list.status.success(), "{}", text(&list.stderr));
    let sessions = json_events(&list.stdout);
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["id"], id.as_str());
    assert_eq!(sessions[0]["first_prompt"], "delegate two");
    assert_eq!(sessions[0]["status"], "completed");
    assert_eq!(sessions[0]["agent_count"], 3);
    let table = text(&cli.run(&["sessions"]).await.stdout);
    assert!(table.contains(&id) && table.contains("delegate two") && table.contains("completed"), "{table}");

    // The JSON form: a header line, then exactly the lines `run --json` printed.
    let short = &id[..12];
    let shown = cli.run(&["show", short, "--format", "json"]).await;
    assert!(shown.status.success(), "a unique prefix names the session: {}", text(&shown.stderr));
    let shown_lines = lines(&shown.stdout);
    let header: Value = serde_json::from_str(&shown_lines[0]).unwrap();
    assert_eq!(header["session"]["id"], id.as_str());
    let agents = header["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 3);
    assert!(agents.iter().all(|a| a["status"] == "completed"), "{agents:?}");
    assert_eq!(&shown_lines[1..], &printed[..], "show --format json replays run --json line for line");

    // The Markdown form has what the parent never saw: the child's thinking and its tool call.
    let md = text(&cli.run(&["show", &id]).await.stdout);
    assert!(md.contains("SECRET-CHILD-THOUGHT"), "{md}");
    assert!(md.contains("CHILD-B: review the code") && md.contains("review.txt"), "{md}");
    assert!(md.contains("A is done") && md.contains("Both finished."), "{md}");
    let reviewer = agents.iter().find(|a| a["subagent_type"] == "reviewer").unwrap()["id"].as_str().unwrap();
    let only = text(&cli.run(&["show", &id, "--agent", reviewer]).await.stdout);
    assert!(only.contains("review.txt") && !only.contains("SECRET-CHILD-THOUGHT"), "{only}");

    // The timeline: one line per agent in tree order, each bar as wide as asked.
    let tl = cli.run(&["show", &id, "--format", "timeline", "--width", "90"]).await;
    assert!(tl.status.success(), "{}", text(&tl.stderr));
    let tl = text(&tl.stdout);
    let rows: Vec<&str> = tl.lines().collect();
    assert_eq!(rows.len(), 1 + 3 + 1, "axis, three agents, legend:\n{tl}");
    assert!(
        rows[1].starts_with("main ") && rows[2].starts_with("  Do A") && rows[3].starts_with("  Review code"),
        "{tl}"
    );
    for row in &rows[1..4] {
        assert!(row.contains('█') && row.contains("completed"), "each agent ran a model turn: {row}");
        assert!(row.chars().count() <= 90, "{row}");
    }
    assert!(rows[1].contains('▒'), "the main agent's Task calls show as tool time: {}", rows[1]);
    assert!(rows[4].contains("waiting for you") && rows[4].contains("waited for you in all: 0 ms"), "{tl}");

    let found = cli.run(&["search", "--json", "SECRET-CHILD"]).await;
    let hits = json_events(&found.stdout);
    assert!(!hits.is_empty(), "{}", text(&found.stderr));
    assert_eq!(hits[0]["session_id"], id.as_str());
    assert_eq!(hits[0]["agent_path"], serde_json::json!(["main", "Do A"]));
    assert!(hits[0]["snippet"].as_array().unwrap().iter().any(|p| p["hit"] == true), "{}", hits[0]);
    assert!(!cli.run(&["search", "nothing-like-this-anywhere"]).await.status.success(), "no hit: exit 1");

    // Resume: the main agent gets a new prompt on top of its stored history.
    let before = cli.server.requests().len();
    let resumed = cli.run(&["resume", "--json", "--approve", "all", &id, "and", "now?"]).await;
    assert!(resumed.status.success(), "{}\n{}", text(&resumed.stdout), text(&resumed.stderr));
    let more = json_events(&resumed.stdout);
    assert_eq!(more[0]["seq"].as_u64().unwrap(), events.last().unwrap()["seq"].as_u64().unwrap() + 1);
    assert_eq!(more[0]["type"], "user_message");
    let request = cli.server.requests()[before..].iter().find(|r| r.first_user_text.contains("delegate two")).cloned();
    let body = request.expect("the resumed main agent asked the model").body.to_string();
    assert!(body.contains("Both finished.") && body.contains("and now?"), "the stored history was sent: {body}");
    assert!(text(&resumed.stdout).contains("Picked up again"));
    let again = json_events(&cli.run(&["sessions", "--json"]).await.stdout);
    assert_eq!(again.len(), 1, "resuming continues the same session");
}

#[tokio::test]
async fn a_killed_run_loses_nothing_it_printed_and_its_running_agents_become_interrupted_then_all_resume() {
    let scenario: Scenario = serde_json::from_value(serde_json::json!({ "name": "slow", "rules": [
        { "match": { "first_user_contains": "SLOW-CHILD", "last_user_contains": "stopped before it finished" },
          "turns": [ { "text": "child picked up again" } ] },
        { "match": { "first_user_contains": "SLOW-CHILD" },
          "turns": [ { "text": "tick ".repeat(2000), "chunk_delay_ms": 20 } ] },
        { "match": { "first_user_contains": "go slow" },
          "turns": [ { "text": "Starting two.", "tool_calls": [
            { "name": "Task", "input": { "description": "Slow one", "prompt": "SLOW-CHILD 1" } },
            { "name": "Task", "input": { "description": "Slow two", "prompt": "SLOW-CHILD 2" } } ] },
            { "text": "waiting for both" }, { "text": "one is back" }, { "text": "both are back" } ] }
    ]}))
    .unwrap();
    let server = ScriptedServer::start(scenario).await.unwrap();
    let cli = Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    let mut child = cli
        .cmd(&["run", "--json", "--approve", "all", "go slow"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    let mut streaming = std::collections::HashSet::new();
    while streaming.len() < 2 || printed.len() < 60 {
        let line = tokio::time::timeout(std::time::Duration::from_secs(30), out.next_line()).await.unwrap().unwrap();
        let Some(line) = line else {
            let mut err = String::new();
            tokio::io::AsyncReadExt::read_to_string(child.stderr.as_mut().unwrap(), &mut err).await.unwrap();
            panic!("arbor ended before the kill: {err}\n{}", printed.join("\n"));
        };
        let ev: Value = serde_json::from_str(&line).unwrap();
        if ev["type"] == "response_chunk" && ev["content"].as_str().unwrap().contains("tick") {
            streaming.insert(ev["agent_id"].as_str().unwrap().to_string());
        }
        printed.push(line);
    }
    // SIGKILL: no destructor, no flush, no goodbye.
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    let id = session_id(&printed.iter().map(|l| serde_json::from_str(l).unwrap()).collect::<Vec<Value>>());

    let shown = cli.run(&["show", &id, "--format", "json"]).await;
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let stored = lines(&shown.stdout);
    let stored_events: std::collections::HashSet<&str> = stored[1..].iter().map(String::as_str).collect();
    for line in &printed {
        assert!(stored_events.contains(line.as_str()), "printed before the kill but not stored: {line}");
    }
    let header: Value = serde_json::from_str(&stored[0]).unwrap();
    assert_eq!(header["session"]["status"], "interrupted");
    for a in header["agents"].as_array().unwrap() {
        assert_eq!(a["status"], "interrupted", "every agent was running: {a}");
    }
    // The log itself says so: an agent_status event per interrupted agent, after the last stored one.
    let tail: Vec<Value> = stored[1..].iter().rev().take(3).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(tail.iter().all(|e| e["type"] == "agent_status" && e["status"] == "interrupted"), "{tail:?}");

    // Continuing resumes every interrupted agent, not only the main one; the children's
    // results reach the main agent, which was told not to start them again.
    let resumed = cli.run(&["resume", "--json", "--approve", "all", &id]).await;
    assert!(resumed.status.success(), "{}\n{}", text(&resumed.stdout), text(&resumed.stderr));
    let more = json_events(&resumed.stdout);
    let children: Vec<&Value> =
        header["agents"].as_array().unwrap().iter().filter(|a| !a["parent_id"].is_null()).collect();
    assert_eq!(children.len(), 2);
    for c in &children {
        let finished = more.iter().find(|e| e["type"] == "agent_finished" && e["agent_id"] == c["id"]);
        let finished = finished.unwrap_or_else(|| panic!("{} was not resumed: {more:?}", c["id"]));
        assert_eq!(
            (finished["status"].as_str(), finished["result"].as_str()),
            (Some("completed"), Some("child picked up again"))
        );
    }
    assert_eq!(
        more.iter().filter(|e| e["type"] == "task_notification").count(),
        2,
        "both results reached the main agent"
    );
    let main_request = cli
        .server
        .requests()
        .into_iter()
        .find(|r| r.first_user_text.contains("go slow") && r.body.to_string().contains("do not start it again"));
    assert!(main_request.is_some(), "the main agent read that its children go on");
}

#[tokio::test]
async fn a_store_file_that_is_not_ours_is_named_and_left_untouched() {
    let cli = Cli::new().await;
    let db = cli.data.path().join("arbor.db");
    std::fs::write(&db, "these are my notes, not a database\n".repeat(200)).unwrap();
    let before = std::fs::read(&db).unwrap();
    for args in [&["sessions"][..], &["run", "--approve", "all", "hello"][..]] {
        let out = cli.run(args).await;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(&db.display().to_string()), "the error names the file: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one clear line: {stderr}");
    }
    assert_eq!(std::fs::read(&db).unwrap(), before, "nothing was overwritten");
}
