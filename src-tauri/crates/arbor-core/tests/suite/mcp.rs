//! MCP tools against the reference servers from the npm registry
//! (`@modelcontextprotocol/server-everything` and `server-filesystem`, pinned in
//! tests/mcp, installed by scripts/test.sh), started over stdio as users run them.

use super::subagents::{calls_of, child, output_of, tool_names};
use super::*;
use arbor_core::mcp::{McpCatalog, McpServerConfig, McpTimeouts, McpTransport};
use arbor_protocol::{AgentStatus, McpSource, McpState, McpStatus, McpToolRef};
use serde_json::json;
use std::collections::BTreeMap;

/// A reference server's binary in tests/mcp/node_modules/.bin.
pub fn npm_server(bin: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/mcp/node_modules/.bin").join(bin);
    assert!(path.exists(), "{} is missing: run `npm --prefix tests/mcp ci` (scripts/test.sh does)", path.display());
    path.to_string_lossy().into_owned()
}

pub fn stdio(name: &str, command: String, args: Vec<String>) -> McpServerConfig {
    McpServerConfig {
        name: name.to_string(),
        transport: McpTransport::Stdio { command, args, env: BTreeMap::new(), cwd: None },
    }
}

pub fn catalog(servers: Vec<McpServerConfig>) -> Arc<McpCatalog> {
    let source = McpSource::File { path: "test".into() };
    Arc::new(McpCatalog::new(servers.into_iter().map(|s| (s, source.clone())).collect(), McpTimeouts::default()))
}

/// Every mcp_status event, as (agent, status).
pub fn mcp_statuses(events: &[AgentEvent]) -> Vec<(AgentId, McpStatus)> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::McpStatus(s) => Some((e.agent_id.clone(), s.clone())),
            _ => None,
        })
        .collect()
}

fn alive(pid: u32) -> bool {
    // A zombie has exited: only its parent's wait is missing.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "))
}

/// Processes in the process group `pgid` that have not exited (what npx and node leave behind).
fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                // Fields after the command's closing parenthesis: state, ppid, pgrp.
                let rest = stat.rsplit_once(") ").map(|(_, r)| r).unwrap_or("");
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str())
            })
        })
        .collect()
}

async fn gone_within(pid: u32, wait: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + wait;
    while tokio::time::Instant::now() < deadline {
        if !alive(pid) && group_members(pid).is_empty() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

#[tokio::test]
async fn a_main_agent_and_its_subagent_each_call_the_everything_servers_echo_on_their_own_connection() {
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "CHILD-MCP"}, "turns": [
                {"tool_calls": [{"name": "mcp__everything__echo", "input": {"message": "from the child"}}]},
                {"text": "child heard it"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [{"name": "mcp__everything__echo", "input": {"message": "from the main agent"}}]},
                {"tool_calls": [{"id": "t1", "name": "Task", "input": {"description": "Echo", "prompt": "CHILD-MCP: echo"}}]},
                {"text": "all echoed"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.approval = ApprovalPolicy::default();
    config.mcp = catalog(vec![
        stdio("everything", npm_server("mcp-server-everything"), vec![]),
        stdio("filesystem", npm_server("mcp-server-filesystem"), vec![h.root().to_string_lossy().into_owned()]),
    ]);
    let mcp = config.mcp.clone();
    let (session, mut events) = h.start(config, "PARENT: echo twice");
    let main = session.main_agent_id().clone();
    let evs = until_finished(&mut events, &main).await;
    // Servers close after their agent's agent_finished: wait for both.
    let closed = |evs: &[AgentEvent]| {
        evs.iter().filter(|e| matches!(&e.kind, EventKind::McpStatus(s) if s.state == McpState::Closed)).count()
    };
    let mut evs = evs;
    while closed(&evs) < 2 {
        let e = tokio::time::timeout(WAIT, events.recv()).await.expect("servers closed in time").expect("event");
        evs.push(e);
    }

    let (child_id, _) = child(&evs, "Echo");
    let main_call = &calls_of(&evs, &main, "mcp__everything__echo")[0];
    let child_call = &calls_of(&evs, &child_id, "mcp__everything__echo")[0];
    assert_eq!(output_of(&evs, main_call).0, "Echo: from the main agent");
    assert_eq!(output_of(&evs, child_call).0, "Echo: from the child");
    assert!(!output_of(&evs, main_call).1 && !output_of(&evs, child_call).1);
    // Each call names its server and the server's own name for the tool; a built-in names none.
    let mcp_of = |call: &str| {
        evs.iter()
            .find_map(|e| match &e.kind {
                EventKind::ToolCall(c) if c.call_id == call => Some(c.mcp.clone()),
                _ => None,
            })
            .expect("the call")
    };
    let echo = Some(McpToolRef { server: "everything".into(), tool: "echo".into() });
    assert_eq!(mcp_of(main_call), echo);
    assert_eq!(mcp_of(child_call), echo);
    assert_eq!(mcp_of("t1"), None, "Task is a built-in");
    assert_eq!(finished_status(&evs, &main), AgentStatus::Completed);
    assert!(
        !evs.iter().any(|e| matches!(e.kind, EventKind::ApprovalRequest(_))),
        "echo is annotated read-only, so it runs without asking"
    );

    // The settings screen's list names each tool both ways.
    let listed = mcp.describe();
    let everything = listed.iter().find(|s| s.name == "everything").expect("listed");
    assert!(everything.tools.iter().any(|t| t.name == "mcp__everything__echo" && t.tool == "echo"), "{listed:?}");

    // Both servers' tools were offered, by their MCP names.
    let offered = tool_names(&h.requests()[0]);
    assert!(offered.contains(&"mcp__everything__echo".to_string()), "{offered:?}");
    assert!(offered.contains(&"mcp__filesystem__read_text_file".to_string()), "{offered:?}");

    // Each agent had its own server process, and only for the server it called.
    let statuses = mcp_statuses(&evs);
    let connected: Vec<(AgentId, String, u32)> = statuses
        .iter()
        .filter(|(_, s)| s.state == McpState::Connected)
        .map(|(a, s)| (a.clone(), s.server.clone(), s.pid.expect("a stdio server has a pid")))
        .collect();
    assert_eq!(connected.len(), 2, "{statuses:?}");
    assert!(connected.iter().all(|(_, server, _)| server == "everything"));
    let pid_of = |agent: &AgentId| connected.iter().find(|(a, _, _)| a == agent).map(|c| c.2).expect("connected");
    let (main_pid, child_pid) = (pid_of(&main), pid_of(&child_id));
    assert_ne!(main_pid, child_pid, "subagents get their own connections, not shared instances");
    for (agent, pid) in [(&child_id, child_pid), (&main, main_pid)] {
        assert!(
            statuses.iter().any(|(a, s)| a == agent && s.state == McpState::Closed && s.pid == Some(pid)),
            "{agent}'s server is closed with its run: {statuses:?}"
        );
        assert!(
            gone_within(pid, Duration::from_secs(5)).await,
            "server process {pid} (and its group) outlived {agent}"
        );
    }
}

fn finished_status(events: &[AgentEvent], id: &AgentId) -> AgentStatus {
    super::subagents::finished_of(events, id).1.status
}

#[tokio::test]
async fn the_filesystem_server_reads_inside_its_directory_and_refuses_outside_with_an_error_result() {
    let (allowed, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let allowed_root = allowed.path().canonicalize().unwrap();
    std::fs::write(allowed_root.join("notes.txt"), "inside the allowed dir").unwrap();
    std::fs::write(outside.path().join("secret.txt"), "nope").unwrap();
    let inside = allowed_root.join("notes.txt").to_string_lossy().into_owned();
    let secret = outside.path().canonicalize().unwrap().join("secret.txt").to_string_lossy().into_owned();
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [
                {"name": "mcp__filesystem__read_text_file", "input": {"path": inside}},
                {"name": "mcp__filesystem__read_text_file", "input": {"path": secret}}
            ]},
            {"text": "read what I could"}
        ]}]}),
        Api::OpenAi,
    )
    .await;
    let mut config = h.config();
    let dir = allowed_root.to_string_lossy().into_owned();
    config.mcp = catalog(vec![stdio("filesystem", npm_server("mcp-server-filesystem"), vec![dir])]);
    let run = h.run_with(config, "read two files").await;
    let outputs = run.outputs();
    assert_eq!(outputs[0], ("inside the allowed dir".to_string(), false));
    assert!(outputs[1].1, "outside the allowed directory is an error result: {:?}", outputs[1]);
    assert!(outputs[1].0.to_lowercase().contains("access denied"), "{:?}", outputs[1]);
    assert_eq!(run.finished().status, AgentStatus::Completed);
}

#[tokio::test]
async fn a_streamable_http_server_is_called_like_a_stdio_one() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut server = tokio::process::Command::new(npm_server("mcp-server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // It says on stderr when it listens.
    let mut out = tokio::io::BufReader::new(server.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("listening") {
        line.clear();
        let read = tokio::time::timeout(WAIT, tokio::io::AsyncBufReadExt::read_line(&mut out, &mut line)).await;
        assert!(read.expect("the HTTP server starts").unwrap() > 0, "the HTTP server exited");
    }
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "mcp__web__echo", "input": {"message": "over HTTP"}}]},
            {"text": "done"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    let transport = McpTransport::Http { url: format!("http://127.0.0.1:{port}/mcp"), headers: BTreeMap::new() };
    config.mcp = catalog(vec![McpServerConfig { name: "web".into(), transport }]);
    let run = h.run_with(config, "echo over http").await;
    assert_eq!(run.outputs(), vec![("Echo: over HTTP".to_string(), false)]);
    let _ = server.kill().await;
}
