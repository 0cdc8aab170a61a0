//! Subagent figures against the scripted server on loopback:
//!
//! 1. Spawn overhead: from the moment the parent's response carrying a Task call
//!    is decoded to the moment the child's first model request is issued. The
//!    parent calls Task 300 times in a row (one per turn); p50 and p99 are printed,
//!    without MCP servers and with two stdio servers configured (the npm reference
//!    servers in tests/mcp, which the children do not call), alternating runs.
//!    Then what a child's first call of an MCP tool costs: it starts its own server.
//! 2. Fan-out: one response with 100 Task calls, `max_parallel` 20, every child
//!    one model turn that takes 50 ms. Ideal wall time is 5 waves × 50 ms; the
//!    time from the decoded response to the parent's next request (all 100
//!    results in) is printed with its ratio to the ideal, median of 5 runs.
//!
//! Run: `cargo bench -p arbor-core --bench subagents` (prints figures; asserts nothing).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use arbor_core::mcp::{McpCatalog, McpServerConfig, McpTimeouts, McpTransport};
use arbor_core::provider::{
    AnthropicConfig, AnthropicProvider, ApiKey, ModelRequest, ModelResponse, Provider, ProviderError, ResponseStream,
    StopReason, StreamEvent,
};
use arbor_core::{ApprovalPolicy, Limits, Session, SessionConfig};
use arbor_protocol::McpSource;
use arbor_protocol::{AssistantBlock, Command, EventKind, Message, Usage, UserBlock};
use arbor_testkit::{Scenario, ScriptedServer};
use futures::StreamExt;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mark {
    /// The parent's response with Task calls was decoded.
    TaskDecoded,
    /// A request issued; true for the parent's.
    Request { parent: bool },
}

/// Wraps the real provider and notes when requests are issued and Task calls decoded.
struct Timed {
    inner: Arc<dyn Provider>,
    marks: Arc<Mutex<Vec<(Instant, Mark)>>>,
}

#[async_trait::async_trait]
impl Provider for Timed {
    fn name(&self) -> &str {
        self.inner.name()
    }

    async fn stream(&self, req: ModelRequest<'_>) -> Result<ResponseStream, ProviderError> {
        let parent = matches!(req.messages.first(), Some(Message::User { content })
            if matches!(content.first(), Some(UserBlock::Text { text }) if text.starts_with("PARENT")));
        self.marks.lock().unwrap().push((Instant::now(), Mark::Request { parent }));
        let marks = self.marks.clone();
        let stream = self.inner.stream(req).await?;
        Ok(stream
            .inspect(move |ev| {
                if let Ok(StreamEvent::Completed(r)) = ev
                    && r.content.iter().any(|b| matches!(b, AssistantBlock::ToolUse { name, .. } if name == "Task"))
                {
                    marks.lock().unwrap().push((Instant::now(), Mark::TaskDecoded));
                }
            })
            .boxed())
    }
}

/// The same script answered in process, without HTTP: the runtime's own share of the wall time.
struct InProcess {
    children: usize,
    model_ms: u64,
}

#[async_trait::async_trait]
impl Provider for InProcess {
    fn name(&self) -> &str {
        "anthropic"
    }

    async fn stream(&self, req: ModelRequest<'_>) -> Result<ResponseStream, ProviderError> {
        let parent = matches!(req.messages.first(), Some(Message::User { content })
            if matches!(content.first(), Some(UserBlock::Text { text }) if text.starts_with("PARENT")));
        let content = if !parent {
            tokio::time::sleep(std::time::Duration::from_millis(self.model_ms)).await;
            vec![AssistantBlock::Text { text: "child done".into() }]
        } else if req.messages.len() == 1 {
            (0..self.children)
                .map(|i| AssistantBlock::ToolUse {
                    id: format!("toolu_{i}"),
                    name: "Task".into(),
                    input: json!({"description": format!("Child {i}"), "prompt": format!("CHILD {i}: answer")}),
                })
                .collect()
        } else {
            vec![AssistantBlock::Text { text: "all done".into() }]
        };
        let response = ModelResponse {
            content,
            usage: Usage::default(),
            stop_reason: StopReason::EndTurn,
            invalid_tool_inputs: Vec::new(),
        };
        Ok(futures::stream::iter([Ok(StreamEvent::Completed(response))]).boxed())
    }
}

async fn fan_out_in_process(dir: &std::path::Path, children: usize, parallel: usize, model_ms: u64) -> f64 {
    let marks = Arc::new(Mutex::new(Vec::new()));
    let provider = Arc::new(Timed { inner: Arc::new(InProcess { children, model_ms }), marks: marks.clone() });
    let mut c = SessionConfig::new(dir, "anthropic", provider, "bench-model");
    c.approval = ApprovalPolicy::allow_all();
    c.project_instructions = false;
    c.limits = Limits { max_parallel: parallel, max_subagents: children as u32, ..Limits::default() };
    run_to_end(c, "PARENT: fan out").await;
    let marks = marks.lock().unwrap().clone();
    let start = marks.iter().find(|(_, m)| *m == Mark::TaskDecoded).map(|(t, _)| *t).unwrap();
    let end = marks.iter().rev().find(|(_, m)| *m == Mark::Request { parent: true }).map(|(t, _)| *t).unwrap();
    (end - start).as_secs_f64()
}

/// The scripted model server on loopback, playing `scenario`.
async fn scripted(scenario: serde_json::Value) -> ScriptedServer {
    ScriptedServer::start(Scenario::from_json(&scenario.to_string()).unwrap()).await.unwrap()
}

fn config(server: &ScriptedServer, dir: &std::path::Path, marks: &Arc<Mutex<Vec<(Instant, Mark)>>>) -> SessionConfig {
    let inner: Arc<dyn Provider> = Arc::new(
        AnthropicProvider::new(AnthropicConfig {
            base_url: server.anthropic_base_url(),
            api_key: Some(ApiKey::new("bench")),
            ..Default::default()
        })
        .unwrap(),
    );
    let provider = Arc::new(Timed { inner, marks: marks.clone() });
    let mut c = SessionConfig::new(dir, "anthropic", provider, "bench-model");
    c.approval = ApprovalPolicy::allow_all();
    c.project_instructions = false;
    c
}

async fn run_to_end(config: SessionConfig, prompt: &str) {
    let (session, mut events) = Session::start(config).unwrap();
    let main = session.main_agent_id().clone();
    session.submit(Command::SendMessage { agent_id: None, text: prompt.into() }).unwrap();
    while let Some(ev) = events.recv().await {
        if matches!(ev.kind, EventKind::AgentFinished(_)) && ev.agent_id == main {
            break;
        }
    }
    session.shutdown();
}

fn pct(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// The npm reference servers of tests/mcp as a catalog, or None when they are not installed.
fn reference_servers(dir: &std::path::Path) -> Option<Arc<McpCatalog>> {
    let bin = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/mcp/node_modules/.bin");
    let server = |name: &str, bin_name: &str, args: Vec<String>| {
        let command = bin.join(bin_name).to_string_lossy().into_owned();
        let transport = McpTransport::Stdio { command, args, env: Default::default(), cwd: None };
        (McpServerConfig { name: name.into(), transport }, McpSource::File { path: "bench".into() })
    };
    bin.join("mcp-server-everything").exists().then(|| {
        Arc::new(McpCatalog::new(
            vec![
                server("everything", "mcp-server-everything", vec![]),
                server("filesystem", "mcp-server-filesystem", vec![dir.to_string_lossy().into_owned()]),
            ],
            McpTimeouts::default(),
        ))
    })
}

/// A child's first call of `mcp__everything__echo`, from its tool_call to its
/// tool_output (the child's own server starts on it), over `runs` children.
async fn first_mcp_call(dir: &std::path::Path, mcp: Arc<McpCatalog>, runs: usize) -> Vec<f64> {
    let calls: Vec<_> = (0..runs)
        .map(|i| json!({"name": "Task", "input": {"description": format!("Echo {i}"), "prompt": format!("CHILD {i}: echo")}}))
        .collect();
    let server = scripted(json!({"rules": [
        {"match": {"first_user_contains": "CHILD"}, "turns": [
            {"tool_calls": [{"name": "mcp__everything__echo", "input": {"message": "hi"}}]},
            {"text": "echoed"}
        ]},
        {"match": {}, "turns": [{"tool_calls": calls}, {"text": "all done"}]}
    ]}))
    .await;
    let marks = Arc::new(Mutex::new(Vec::new()));
    let mut c = config(&server, dir, &marks);
    c.mcp = mcp;
    c.limits = Limits { max_parallel: 1, max_subagents: runs as u32, ..Limits::default() };
    let (session, mut events) = Session::start(c).unwrap();
    let main = session.main_agent_id().clone();
    session.submit(Command::SendMessage { agent_id: None, text: "PARENT: echo".into() }).unwrap();
    let mut called = std::collections::HashMap::new();
    let mut out = Vec::new();
    while let Some(ev) = events.recv().await {
        match &ev.kind {
            EventKind::ToolCall(t) if t.tool_name == "mcp__everything__echo" => {
                called.insert(t.call_id.clone(), Instant::now());
            }
            EventKind::ToolOutput(o) => {
                if let Some(t) = called.remove(&o.call_id) {
                    assert_eq!(o.content, "Echo: hi");
                    out.push(t.elapsed().as_secs_f64());
                }
            }
            EventKind::AgentFinished(_) if ev.agent_id == main => break,
            _ => {}
        }
    }
    session.shutdown();
    server.shutdown().await;
    out
}

async fn spawn_overhead(dir: &std::path::Path, mcp: Option<Arc<McpCatalog>>) -> Vec<f64> {
    let server = scripted(json!({"rules": [
        {"match": {"first_user_contains": "CHILD"}, "turns": [{"text": "child done"}]},
        {"match": {}, "repeat_last": true, "turns": [
            {"tool_calls": [{"name": "Task", "input": {"description": "Measure a spawn", "prompt": "CHILD: answer at once"}}]}
        ]}
    ]}))
    .await;
    let marks = Arc::new(Mutex::new(Vec::new()));
    let spawns = 300u32;
    let mut c = config(&server, dir, &marks);
    if let Some(mcp) = mcp {
        c.mcp = mcp;
    }
    c.main_agent.max_turns = spawns + 20;
    c.limits = Limits { max_subagents: spawns + 20, ..Limits::default() };
    run_to_end(c, "PARENT: spawn children one after another").await;
    server.shutdown().await;
    let marks = marks.lock().unwrap().clone();
    // One Task at a time: each decoded Task pairs with the next child request.
    let mut out = Vec::new();
    let mut decoded = None;
    for (t, m) in marks {
        match m {
            Mark::TaskDecoded => decoded = Some(t),
            Mark::Request { parent: false } => {
                if let Some(d) = decoded.take() {
                    out.push((t - d).as_secs_f64());
                }
            }
            Mark::Request { parent: true } => {}
        }
    }
    // The first spawns warm the connection pool and the allocator; keep the steady state.
    out.split_off(20.min(out.len()))
}

async fn fan_out(dir: &std::path::Path, children: usize, parallel: usize, model_ms: u64) -> f64 {
    let calls: Vec<_> = (0..children)
        .map(|i| json!({"name": "Task", "input": {"description": format!("Child {i}"), "prompt": format!("CHILD {i}: answer")}}))
        .collect();
    let server = scripted(json!({"rules": [
        {"match": {"first_user_contains": "CHILD"}, "turns": [{"text": "child done", "delay_ms": model_ms}]},
        {"match": {}, "turns": [{"tool_calls": calls}, {"text": "all done"}]}
    ]}))
    .await;
    let marks = Arc::new(Mutex::new(Vec::new()));
    let mut c = config(&server, dir, &marks);
    c.limits = Limits { max_parallel: parallel, max_subagents: children as u32, ..Limits::default() };
    run_to_end(c, "PARENT: fan out").await;
    server.shutdown().await;
    let marks = marks.lock().unwrap().clone();
    let start = marks.iter().find(|(_, m)| *m == Mark::TaskDecoded).map(|(t, _)| *t).unwrap();
    let end = marks.iter().rev().find(|(_, m)| *m == Mark::Request { parent: true }).map(|(t, _)| *t).unwrap();
    (end - start).as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // On the runtime's workers, like any task of an app that reads the events: in
    // `main` itself the event loop of `run_to_end` would run on a third thread, woken
    // by a futex for every event and competing with the two workers for two cores.
    tokio::spawn(run()).await.unwrap();
}

async fn run() {
    let dir = tempfile::tempdir().unwrap();
    let mcp = reference_servers(dir.path());
    let (mut without, mut with) = (Vec::new(), Vec::new());
    // Alternating runs, so drift on a shared machine does not favour either.
    for _ in 0..2 {
        without.extend(spawn_overhead(dir.path(), None).await);
        if let Some(mcp) = &mcp {
            with.extend(spawn_overhead(dir.path(), Some(mcp.clone())).await);
        }
    }
    let show = |label: &str, v: &[f64]| {
        println!(
            "spawn overhead {label} (Task decoded → child's first request issued, {} spawns, loopback): p50 {:.3} ms · p99 {:.3} ms · max {:.3} ms",
            v.len(),
            pct(v, 0.5) * 1e3,
            pct(v, 0.99) * 1e3,
            pct(v, 1.0) * 1e3
        )
    };
    show("without MCP servers", &without);
    match &mcp {
        Some(mcp) => {
            show("with two stdio MCP servers configured, not called", &with);
            println!(
                "spawn overhead, two MCP servers minus none: p50 {:+.3} ms · p99 {:+.3} ms (goal: within 1 ms)",
                (pct(&with, 0.5) - pct(&without, 0.5)) * 1e3,
                (pct(&with, 0.99) - pct(&without, 0.99)) * 1e3
            );
            let first = first_mcp_call(dir.path(), mcp.clone(), 10).await;
            println!(
                "a child's first MCP call (starts its own mcp-server-everything, then echo), {} children: p50 {:.0} ms · max {:.0} ms",
                first.len(),
                pct(&first, 0.5) * 1e3,
                pct(&first, 1.0) * 1e3
            );
        }
        None => println!("spawn overhead with MCP servers: skipped, run `npm --prefix tests/mcp ci` first"),
    }
    let (children, parallel, model_ms) = (100usize, 20usize, 50u64);
    let ideal = children.div_ceil(parallel) as f64 * model_ms as f64 / 1e3;
    let mut walls = Vec::new();
    for _ in 0..5 {
        walls.push(fan_out(dir.path(), children, parallel, model_ms).await);
    }
    let wall = pct(&walls, 0.5);
    println!(
        "fan-out ({children} children, max_parallel {parallel}, {model_ms} ms model): median wall {:.1} ms · ideal {:.1} ms · ratio {:.3} (runs: {})",
        wall * 1e3,
        ideal * 1e3,
        wall / ideal,
        walls.iter().map(|w| format!("{:.1}", w * 1e3)).collect::<Vec<_>>().join(", ")
    );
    // The same with a model that answers at once: what 100 children cost beyond the model's time.
    let mut zero = Vec::new();
    for _ in 0..5 {
        zero.push(fan_out(dir.path(), children, parallel, 0).await);
    }
    let mut local = Vec::new();
    for _ in 0..5 {
        local.push(fan_out_in_process(dir.path(), children, parallel, model_ms).await);
    }
    println!(
        "fan-out, the same answered in process (no HTTP): median wall {:.1} ms · ratio {:.3}",
        pct(&local, 0.5) * 1e3,
        pct(&local, 0.5) / ideal
    );
    println!(
        "fan-out with a 0 ms model: median {:.1} ms for {children} children ({:.3} ms each, client and scripted server on the same cores)",
        pct(&zero, 0.5) * 1e3,
        pct(&zero, 0.5) * 1e3 / children as f64
    );
}
