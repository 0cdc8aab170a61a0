//! MCP servers that fail: one that cannot start, one that dies mid-call, one
//! that never answers, one that answers garbage. Each gives the model a clear
//! error result and the person an `mcp_status`, and the agent goes on.

use super::mcp::{mcp_statuses, stdio};
use super::mcp_server::{garbage, tiny};
use super::subagents::{agent_type, requests_of, tool_names};
use super::*;
use arbor_core::mcp::{McpCatalog, McpServerConfig, McpTimeouts};
use arbor_protocol::{AgentStatus, McpSource, McpState};
use serde_json::{Value, json};

fn catalog_with(servers: Vec<McpServerConfig>, call: Duration) -> Arc<McpCatalog> {
    let source = McpSource::File { path: "test".into() };
    Arc::new(McpCatalog::new(
        servers.into_iter().map(|s| (s, source.clone())).collect(),
        McpTimeouts { startup: Duration::from_secs(5), call },
    ))
}

/// A main agent that makes `calls` one turn each, then says "done".
fn calls(calls: Vec<Value>) -> Value {
    let mut turns: Vec<Value> = calls.into_iter().map(|c| json!({"tool_calls": [c]})).collect();
    turns.push(json!({"text": "done"}));
    json!({"rules": [{"match": {}, "turns": turns}]})
}

fn call(name: &str, text: &str) -> Value {
    json!({"name": name, "input": {"text": text}})
}

#[tokio::test]
async fn a_server_that_cannot_start_is_named_in_the_error_with_what_it_said_and_the_agent_goes_on() {
    let h = Harness::new(
        calls(vec![call("mcp__ghost__anything", "x"), call("mcp__grumpy__anything", "x"), call("Glob", "*")]),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.mcp = catalog_with(
        vec![
            stdio("ghost", "/nonexistent/arbor-mcp-server".into(), vec![]),
            stdio("grumpy", "sh".into(), vec!["-c".into(), "echo 'grumpy: config file missing' >&2; exit 3".into()]),
        ],
        Duration::from_secs(5),
    );
    let run = h.run_with(config, "use the servers").await;
    let outputs = run.outputs();
    assert!(outputs[0].1 && outputs[1].1);
    assert!(
        outputs[0]
            .0
            .starts_with("MCP server \"ghost\" could not be started: `/nonexistent/arbor-mcp-server`: No such file"),
        "{}",
        outputs[0].0
    );
    assert!(outputs[1].0.starts_with("MCP server \"grumpy\" failed to start"), "{}", outputs[1].0);
    assert!(outputs[1].0.contains("grumpy: config file missing"), "its stderr explains: {}", outputs[1].0);
    assert_eq!(run.finished().status, AgentStatus::Completed, "the agent goes on");
    let failed: Vec<String> = mcp_statuses(&run.events)
        .into_iter()
        .filter(|(_, s)| s.state == McpState::Failed)
        .map(|(_, s)| s.server)
        .collect();
    assert_eq!(failed, vec!["ghost", "grumpy"], "each failure is shown once");
}

#[tokio::test]
async fn a_server_that_dies_mid_call_is_an_error_and_the_next_call_starts_it_again() {
    let (server, opened) = tiny("tiny");
    let h = Harness::new(
        calls(vec![call("mcp__tiny__echo", "first"), call("mcp__tiny__crash", ""), call("mcp__tiny__echo", "again")]),
        Api::OpenAi,
    )
    .await;
    let mut config = h.config();
    config.mcp = catalog_with(vec![server], Duration::from_secs(10));
    let run = h.run_with(config, "crash it").await;
    let outputs = run.outputs();
    assert_eq!(outputs[0], ("tiny echo: first".to_string(), false));
    assert!(outputs[1].1 && outputs[1].0.starts_with("MCP server \"tiny\" exited or hung up"), "{:?}", outputs[1]);
    assert_eq!(outputs[2], ("tiny echo: again".to_string(), false));
    assert_eq!(opened.count(), 3, "one probe for the tool list, the first connection, and the one after the crash");
    assert_eq!(run.finished().status, AgentStatus::Completed);
}

#[tokio::test]
async fn a_call_that_never_answers_times_out_and_a_json_rpc_error_is_quoted() {
    let (server, _) = tiny("tiny");
    let h = Harness::new(calls(vec![call("mcp__tiny__hang", ""), call("mcp__tiny__fail", "")]), Api::Anthropic).await;
    let mut config = h.config();
    config.mcp = catalog_with(vec![server], Duration::from_millis(300));
    let run = h.run_with(config, "wait for it").await;
    let outputs = run.outputs();
    assert_eq!(outputs[0], ("MCP server \"tiny\" did not answer within 0.3 s".to_string(), true));
    assert!(outputs[1].1 && outputs[1].0.contains("answered with an error") && outputs[1].0.contains("the tool broke"));
    assert_eq!(run.finished().status, AgentStatus::Completed);
}

#[tokio::test]
async fn garbage_and_misshapen_answers_are_errors_not_hangs() {
    let h =
        Harness::new(calls(vec![call("mcp__junk__garble", ""), call("mcp__junk__misshape", "")]), Api::OpenAi).await;
    let mut config = h.config();
    config.mcp = catalog_with(vec![garbage("junk")], Duration::from_millis(500));
    let run = h.run_with(config, "talk to junk").await;
    let outputs = run.outputs();
    assert!(outputs.iter().all(|o| o.1), "{outputs:?}");
    assert!(outputs[0].0.starts_with("MCP server \"junk\" did not answer within 0.5 s"), "{:?}", outputs[0]);
    assert!(outputs[1].0.starts_with("MCP server \"junk\" "), "{:?}", outputs[1]);
    assert_eq!(run.finished().status, AgentStatus::Completed);
}

#[tokio::test]
async fn read_only_tools_run_and_the_others_ask_by_default() {
    let (server, _) = tiny("tiny");
    let h =
        Harness::new(calls(vec![call("mcp__tiny__echo", "look"), call("mcp__tiny__note", "write")]), Api::Anthropic)
            .await;
    let mut config = h.config();
    config.approval = arbor_core::ApprovalPolicy::deny_mutating();
    config.mcp = catalog_with(vec![server], Duration::from_secs(5));
    let run = h.run_with(config, "look then write").await;
    let outputs = run.outputs();
    assert_eq!(outputs[0], ("tiny echo: look".to_string(), false), "readOnlyHint: allowed like Read");
    assert!(outputs[1].1, "not read-only: the mutating class's decision applies: {:?}", outputs[1]);
}

#[tokio::test]
async fn agent_types_name_mcp_tools_in_their_tool_lists_and_add_servers_of_their_own() {
    let (shared, _) = tiny("tiny");
    let mut narrow = agent_type("narrow", "You are narrow.");
    narrow.tools.allow = Some(vec!["Read".into(), "mcp__tiny".into()]);
    narrow.tools.deny = vec!["mcp__tiny__hang".into()];
    let mut owner = agent_type("owner", "You own a server.");
    let everything = super::mcp::npm_server("mcp-server-everything");
    owner.mcp_servers = vec![json!("tiny"), json!({"private": {"command": everything}})];
    let h = Harness::new(
        json!({"rules": [
            {"match": {"first_user_contains": "NARROW"}, "turns": [{"text": "narrow done"}]},
            {"match": {"first_user_contains": "OWNER"}, "turns": [
                {"tool_calls": [{"name": "mcp__private__echo", "input": {"message": "mine"}}]},
                {"text": "owner done"}
            ]},
            {"match": {}, "turns": [
                {"tool_calls": [
                    {"name": "Task", "input": {"description": "n", "prompt": "NARROW", "subagent_type": "narrow"}},
                    {"name": "Task", "input": {"description": "o", "prompt": "OWNER", "subagent_type": "owner"}}
                ]},
                {"text": "done"}
            ]}
        ]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    config.agent_types = vec![narrow.clone(), owner.clone()];
    let mut catalog = McpCatalog::new(
        vec![(shared, McpSource::File { path: "test".into() })],
        McpTimeouts { startup: Duration::from_secs(5), call: Duration::from_secs(5) },
    );
    catalog.add_agent_types(&[narrow, owner], &|_| None);
    assert!(catalog.problems().is_empty(), "{:?}", catalog.problems());
    config.mcp = Arc::new(catalog);
    let run = h.run_with(config, "MAIN").await;
    assert_eq!(run.finished().status, AgentStatus::Completed);
    let requests = h.requests();
    let narrow_tools = tool_names(requests_of(&requests, "NARROW")[0]);
    assert_eq!(
        narrow_tools,
        vec!["Read", "mcp__tiny__crash", "mcp__tiny__echo", "mcp__tiny__fail", "mcp__tiny__note"],
        "`mcp__tiny` admits the server's tools; disallowedTools removes one"
    );
    let owner_tools = tool_names(requests_of(&requests, "OWNER")[0]);
    assert!(owner_tools.contains(&"mcp__private__echo".to_string()) && owner_tools.contains(&"mcp__tiny__echo".into()));
    let main_tools = tool_names(requests_of(&requests, "MAIN")[0]);
    assert!(!main_tools.iter().any(|t| t.starts_with("mcp__private")), "an agent type's own server is its own");
    assert!(run.outputs().iter().any(|o| o.0 == "Echo: mine"), "{:?}", run.outputs());
}

#[test]
fn a_server_name_stands_for_one_server_in_a_workspace() {
    let mut a = agent_type("a", "a");
    a.mcp_servers = vec![json!({"local": {"command": "one"}}), json!("missing")];
    let mut b = agent_type("b", "b");
    b.mcp_servers = vec![json!({"local": {"command": "two"}}), json!({"tiny": {"command": "x"}})];
    let mut c = agent_type("c", "c");
    c.mcp_servers = vec![json!({"local": {"command": "one"}})];
    let (tiny, _) = tiny("tiny");
    let mut catalog = McpCatalog::new(vec![(tiny, McpSource::File { path: "t".into() })], McpTimeouts::default());
    catalog.add_agent_types(&[a, b, c], &|_| None);
    let problems = catalog.problems().join("\n");
    assert!(problems.contains("\"a\": mcpServers names \"missing\", which is not configured"), "{problems}");
    assert!(problems.contains("\"b\": mcpServers declares \"local\" differently from agent type \"a\""), "{problems}");
    assert!(problems.contains("\"b\": mcpServers declares \"tiny\", which is already configured"), "{problems}");
    assert_eq!(catalog.all().count(), 2, "c's \"local\" is a's: one server");
    let c_servers: Vec<String> = catalog.servers_for(Some("c")).iter().map(|s| s.name().to_string()).collect();
    assert_eq!(c_servers, vec!["tiny", "local"]);
}
