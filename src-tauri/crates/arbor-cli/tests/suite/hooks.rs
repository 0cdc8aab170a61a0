//! Claude Code's settings files with hooks, from the terminal: the person's own
//! run at once, a workspace's only after `arbor mcp trust` (a hook that would
//! write a marker writes nothing before), every run is a line in the live view
//! and in `arbor show`, and a blocked prompt ends the run with the hook's reason.

use super::*;
use serde_json::json;

async fn cli_with(scenario: serde_json::Value) -> Cli {
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() }
}

fn one_command(command: &str) -> serde_json::Value {
    json!({"rules": [{"match": {}, "turns": [
        {"tool_calls": [{"name": "Bash", "input": {"command": command}}]},
        {"text": "DONE {{last_tool_result}}"}
    ]}]})
}

fn settings(hooks: serde_json::Value) -> String {
    json!({"hooks": hooks}).to_string()
}

#[tokio::test]
async fn a_workspaces_hooks_run_only_once_it_is_trusted() {
    let cli = cli_with(one_command("echo hi")).await;
    let marker = cli.data.path().join("marker");
    let dir = cli.workspace.path().join(".claude");
    std::fs::create_dir_all(&dir).unwrap();
    let hook = json!([{"hooks": [{"type": "command", "command": format!("touch '{}'", marker.display())}]}]);
    std::fs::write(dir.join("settings.json"), settings(json!({"SessionStart": hook, "PreToolUse": hook}))).unwrap();

    let out = cli.run(&["run", "--approve", "all", "say hi"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(!marker.exists(), "nothing a workspace defines runs before trust");
    assert!(stderr.contains("its 2 hooks are not run") && stderr.contains("arbor mcp trust"), "{stderr}");
    assert!(!stdout.contains("↪"), "{stdout}");

    let listed = text(&cli.run(&["mcp"]).await.stdout);
    assert!(listed.contains("would run hook PreToolUse") && listed.contains("touch"), "{listed}");
    let trusted = cli.run(&["mcp", "trust"]).await;
    let said = text(&trusted.stdout);
    assert!(
        trusted.status.success() && said.contains("hook SessionStart from ") && said.contains("settings.json: touch"),
        "{said}"
    );

    let out = cli.run(&["run", "--approve", "all", "say hi"]).await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
    assert!(marker.exists(), "trusted: the hooks ran");
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains("↪")).collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].contains("SessionStart hook `touch") && lines[0].contains("exit 0"), "{}", lines[0]);
    assert!(lines[1].contains("PreToolUse hook"), "{}", lines[1]);

    // An edit asks again.
    std::fs::write(dir.join("settings.json"), settings(json!({"Stop": hook}))).unwrap();
    std::fs::remove_file(&marker).unwrap();
    let out = cli.run(&["run", "--approve", "all", "say hi"]).await;
    assert!(text(&out.stderr).contains("changed since it was trusted"), "{}", text(&out.stderr));
    assert!(!marker.exists());
}

#[tokio::test]
async fn the_persons_own_guard_refuses_a_call_and_show_and_json_say_a_hook_decided() {
    let cli = cli_with(one_command("rm -rf important")).await;
    std::fs::create_dir(cli.workspace.path().join("important")).unwrap();
    let claude = cli.data.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let guard = "grep -q 'rm -rf' && { echo 'rm -rf is not allowed' >&2; exit 2; }; exit 0";
    std::fs::write(
        claude.join("settings.json"),
        settings(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": guard}]}]})),
    )
    .unwrap();
    let out = cli.run(&["run", "--approve", "all", "--json", "clean up"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(cli.workspace.path().join("important").exists());
    let events = json_events(&out.stdout);
    let ran = events.iter().find(|e| e["type"] == "hook_ran").expect("a hook_ran line");
    assert_eq!(
        (ran["hook_event"].as_str(), ran["decision"].as_str(), ran["exit_code"].as_i64()),
        (Some("PreToolUse"), Some("deny"), Some(2))
    );
    assert!(ran["source"].as_str().unwrap().ends_with(".claude/settings.json"));
    let output = events.iter().find(|e| e["type"] == "tool_output").unwrap();
    assert_eq!(output["decided_by"]["kind"], "hook");
    assert_eq!(output["decided_by"]["hook_event"], "PreToolUse");

    let sessions = json_events(&cli.run(&["sessions", "--json"]).await.stdout);
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    let md = text(&cli.run(&["show", &id]).await.stdout);
    assert!(md.contains("*Hook:* PreToolUse hook") && md.contains("rm -rf is not allowed"), "{md}");
    assert!(md.contains("by a PreToolUse hook ("), "{md}");
}

#[tokio::test]
async fn a_blocked_prompt_ends_the_run_with_the_hooks_reason_and_reaches_no_model() {
    let cli = cli_with(one_command("echo hi")).await;
    let claude = cli.data.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let block = "echo 'prompts may not name passwords' >&2; exit 2";
    std::fs::write(
        claude.join("settings.json"),
        settings(json!({"UserPromptSubmit": [{"hooks": [{"type": "command", "command": block}]}]})),
    )
    .unwrap();
    let out = cli.run(&["run", "--approve", "all", "my password is hunter2"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("blocked the prompt")
            && text(&out.stderr).contains("prompts may not name passwords")
    );
    assert!(cli.server.requests().is_empty());
}

#[tokio::test]
async fn permission_rules_load_from_each_settings_file_a_workspaces_allow_only_once_trusted() {
    let scenario = json!({"rules": [{"match": {}, "turns": [
        {"tool_calls": [{"name": "Bash", "input": {"command": "echo mine"}}]},
        {"tool_calls": [{"name": "Bash", "input": {"command": "echo theirs"}}]},
        {"tool_calls": [{"name": "Bash", "input": {"command": "curl https://example.com"}}]},
        {"text": "DONE"}
    ]}]});
    let cli = cli_with(scenario).await;
    let claude = cli.data.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("settings.json"), json!({"permissions": {"allow": ["Bash(echo mine)"]}}).to_string())
        .unwrap();
    let ws = cli.workspace.path().join(".claude");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("settings.json"), json!({"permissions": {"allow": ["Bash(echo theirs)"]}}).to_string())
        .unwrap();
    std::fs::write(ws.join("settings.local.json"), json!({"permissions": {"deny": ["Bash(curl:*)"]}}).to_string())
        .unwrap();
    // Arbor's own settings file is the person's too.
    let arbor = cli.data.path().join(".config/arbor");
    std::fs::create_dir_all(&arbor).unwrap();
    std::fs::write(arbor.join("settings.json"), json!({"permissions": {"ask": ["Bash(git push:*)"]}}).to_string())
        .unwrap();

    // --approve deny would refuse every command: the default policy asks, and nothing answers stdin (deny).
    let out = cli.run(&["run", "--json", "go"]).await;
    let events = json_events(&out.stdout);
    let decided: Vec<serde_json::Value> =
        events.iter().filter(|e| e["type"] == "tool_output").map(|e| e["decided_by"].clone()).collect();
    assert_eq!(decided[0]["kind"], "setting", "the person's own allow: {decided:?}");
    assert_eq!(decided[0]["rule"], "Bash(echo mine)");
    assert_ne!(decided[1]["kind"], "setting", "an untrusted workspace's allow is not applied: {decided:?}");
    assert_eq!(
        (decided[2]["kind"].as_str(), decided[2]["rule"].as_str()),
        (Some("setting"), Some("Bash(curl:*)")),
        "its deny is"
    );
    assert!(text(&out.stderr).contains("its 1 allow rule is not applied"), "{}", text(&out.stderr));

    assert!(cli.run(&["mcp", "trust"]).await.status.success());
    let out = cli.run(&["run", "--json", "go"]).await;
    let events = json_events(&out.stdout);
    let decided: Vec<serde_json::Value> =
        events.iter().filter(|e| e["type"] == "tool_output").map(|e| e["decided_by"].clone()).collect();
    assert_eq!(
        (decided[1]["kind"].as_str(), decided[1]["rule"].as_str()),
        (Some("setting"), Some("Bash(echo theirs)"))
    );
    let live = cli.run(&["run", "go"]).await;
    assert!(
        text(&live.stdout).contains("permission rules from settings: 2 allow, 1 ask, 1 deny"),
        "{}",
        text(&live.stdout)
    );
}

#[tokio::test]
async fn the_main_agent_runs_as_a_type_with_agent_or_the_settings_and_resume_keeps_it() {
    let scenario = json!({"rules": [{"match": {}, "repeat_last": true, "turns": [{"text": "reviewed"}]}]});
    let cli = cli_with(scenario).await;
    let agents = cli.workspace.path().join(".claude/agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("code-reviewer.md"),
        "---\nname: code-reviewer\ndescription: Reviews code\ntools: Read, Grep\n---\nYou are CODE-REVIEWER-SYSTEM.\n",
    )
    .unwrap();

    let out = cli.run(&["run", "--agent", "code-reviewer", "review it"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("main agent: code-reviewer"), "{}", text(&out.stdout));
    let requests = cli.server.requests();
    let first = &requests[0];
    assert!(first.system_text.contains("CODE-REVIEWER-SYSTEM"), "{}", first.system_text);
    let tools: Vec<&str> = first.body["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(tools, ["Grep", "Read"], "the type's tools only");

    // Resumed: still the type.
    let sessions = json_events(&cli.run(&["sessions", "--json"]).await.stdout);
    let id = sessions[0]["id"].as_str().unwrap().to_string();
    let resumed = cli.run(&["resume", &id, "and again"]).await;
    assert!(resumed.status.success(), "{}", text(&resumed.stderr));
    let again = cli.server.requests();
    assert!(again.last().unwrap().system_text.contains("CODE-REVIEWER-SYSTEM"), "resume keeps the type");
    let shown = json_events(&cli.run(&["show", &id, "--format", "json"]).await.stdout);
    let started = shown.iter().find(|e| e["type"] == "agent_started").expect("the main agent's start");
    assert_eq!(started["subagent_type"], "code-reviewer", "its node says its type");

    // `agent` in the settings, and a type that does not exist.
    let claude = cli.data.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(claude.join("settings.json"), json!({"agent": "code-reviewer"}).to_string()).unwrap();
    let out = cli.run(&["run", "plain prompt"]).await;
    assert!(text(&out.stdout).contains("main agent: code-reviewer"), "{}", text(&out.stdout));
    let out = cli.run(&["run", "--agent", "nobody", "x"]).await;
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no agent type \"nobody\"") && text(&out.stderr).contains("code-reviewer"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn session_start_and_end_hooks_run_once_each_around_a_run() {
    let cli = cli_with(json!({"rules": [{"match": {}, "turns": [{"text": "hello"}]}]})).await;
    let log = cli.data.path().join("life.jsonl");
    let claude = cli.data.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let record = format!("{{ cat; echo; }} >> '{}'", log.display());
    let hook = json!([{"hooks": [{"type": "command", "command": record}]}]);
    std::fs::write(claude.join("settings.json"), settings(json!({"SessionStart": hook, "SessionEnd": hook}))).unwrap();
    let out = cli.run(&["run", "say hello"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events: Vec<&str> = lines.iter().filter_map(|l| l["hook_event_name"].as_str()).collect();
    assert_eq!(events, ["SessionStart", "SessionEnd"]);
    assert_eq!((lines[0]["source"].as_str(), lines[1]["reason"].as_str()), (Some("startup"), Some("other")));
}
