//! MCP servers from the command line: the workspace's `.mcp.json` and
//! `--mcp-config` files, `arbor mcp` listing them with their tools, and a run
//! whose main agent calls the npm reference server's echo.

use super::*;
use serde_json::json;

fn everything() -> String {
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/mcp/node_modules/.bin/mcp-server-everything");
    assert!(bin.exists(), "run `npm --prefix tests/mcp ci` (scripts/test.sh does)");
    bin.to_string_lossy().into_owned()
}

async fn mcp_cli() -> Cli {
    let scenario = json!({"rules": [{"match": {}, "turns": [
        {"tool_calls": [{"name": "mcp__everything__echo", "input": {"message": "hello over stdio"}}]},
        {"text": "The server echoed."}
    ]}]});
    let server = ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap();
    let cli = Cli { server, workspace: tempfile::tempdir().unwrap(), data: tempfile::tempdir().unwrap() };
    let config = json!({"mcpServers": {
        "everything": {"command": everything()},
        "broken": {"type": "sse", "url": "http://localhost:1/sse"}
    }});
    std::fs::write(cli.workspace.path().join(".mcp.json"), config.to_string()).unwrap();
    cli
}

#[tokio::test]
async fn a_workspaces_servers_start_only_once_trusted_and_an_edit_asks_again() {
    let cli = mcp_cli().await;
    // Not trusted: one clear line, nothing started, the run goes on without them.
    let out = cli.run(&["run", "--approve", "ask", "echo something"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let refusal: Vec<&str> = stderr.lines().filter(|l| l.contains(".mcp.json is not trusted")).collect();
    assert_eq!(refusal.len(), 1, "{stderr}");
    assert!(refusal[0].contains("everything") && refusal[0].contains("arbor mcp trust"), "{}", refusal[0]);
    assert!(!stdout.contains("mcp everything started"), "no server process: {stdout}");
    assert!(stdout.contains("Unknown tool: mcp__everything__echo"), "the model was not offered it: {stdout}");

    // Listing describes it without starting it.
    let listed = text(&cli.run(&["mcp"]).await.stdout);
    assert!(listed.contains("is not trusted") && listed.contains("would run everything: "), "{listed}");
    assert!(!listed.contains("13 tools"), "not started to list its tools: {listed}");

    // --trust-mcp: this run only.
    let once = cli.run(&["run", "--approve", "ask", "--trust-mcp", "echo something"]).await;
    assert!(text(&once.stdout).contains("Echo: hello over stdio"), "{}", text(&once.stdout));
    let after = cli.run(&["run", "--approve", "ask", "echo something"]).await;
    assert!(!text(&after.stdout).contains("mcp everything started"), "not stored");

    // Trusted for good; an edited file asks again.
    let trusted = cli.run(&["mcp", "trust"]).await;
    let said = text(&trusted.stdout);
    assert!(trusted.status.success() && said.contains("trusted ") && said.contains("everything: "), "{said}");
    let out = cli.run(&["run", "--approve", "ask", "echo something"]).await;
    assert!(text(&out.stdout).contains("Echo: hello over stdio"), "{}", text(&out.stdout));
    let path = cli.workspace.path().join(".mcp.json");
    let edited = std::fs::read_to_string(&path).unwrap().replace("\"broken\"", "\"broken2\"");
    std::fs::write(&path, edited).unwrap();
    let out = cli.run(&["run", "--approve", "ask", "echo something"]).await;
    assert!(text(&out.stderr).contains("changed since it was trusted"), "{}", text(&out.stderr));
    assert!(!text(&out.stdout).contains("mcp everything started"));

    let untrusted = cli.run(&["mcp", "untrust"]).await;
    assert!(text(&untrusted.stdout).contains("no longer trusted"), "{}", text(&untrusted.stdout));
}

#[tokio::test]
async fn a_run_calls_a_server_from_the_workspaces_mcp_json() {
    let cli = mcp_cli().await;
    assert!(cli.run(&["mcp", "trust"]).await.status.success());
    let out = cli.run(&["run", "--approve", "ask", "echo something"]).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("⚙ mcp__everything__echo"), "{stdout}");
    assert!(stdout.contains("Echo: hello over stdio"), "{stdout}");
    assert!(stdout.contains("mcp everything started (pid "), "{stdout}");
    assert!(
        stderr.contains("mcp config: ") && stderr.contains("\"broken\": the SSE transport is deprecated"),
        "a bad entry is reported, the rest load: {stderr}"
    );
}

#[tokio::test]
async fn mcp_lists_servers_with_their_tools_and_exits_1_when_one_cannot_be_used() {
    let cli = mcp_cli().await;
    assert!(cli.run(&["mcp", "trust"]).await.status.success());
    let extra = cli.data.path().join("extra.json");
    std::fs::write(&extra, json!({"mcpServers": {"ghost": {"command": "/nonexistent/mcp-ghost"}}}).to_string())
        .unwrap();
    let out = cli.run(&["mcp", "--json", "--mcp-config", extra.to_str().unwrap()]).await;
    let lines = json_events(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let by = |name: &str| lines.iter().find(|l| l["name"] == name).cloned().unwrap_or_else(|| panic!("{name}"));
    let everything = by("everything");
    assert_eq!(everything["state"], "ready");
    assert_eq!(everything["source"]["kind"], "workspace");
    let echo = everything["tools"].as_array().unwrap().iter().find(|t| t["name"] == "mcp__everything__echo").cloned();
    assert_eq!(echo.expect("echo listed")["read_only"], true);
    let ghost = by("ghost");
    assert_eq!(ghost["state"], "failed");
    assert!(ghost["error"].as_str().unwrap().contains("No such file"), "{ghost}");
    assert!(lines.iter().any(|l| l["problem"].as_str().is_some_and(|p| p.contains("\"broken\""))));

    let human = cli.run(&["mcp"]).await;
    let stdout = text(&human.stdout);
    assert!(stdout.contains("everything  (stdio, ") && stdout.contains("13 tools"), "{stdout}");
    assert!(stdout.contains("mcp__everything__echo (read-only)"), "{stdout}");
}
