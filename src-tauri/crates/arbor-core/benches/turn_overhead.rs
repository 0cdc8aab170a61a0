//! The runtime's own overhead per turn, against the scripted server on loopback.
//!
//! An agent runs N turns (each: a streamed response with one Read call, then the
//! call). A bare reqwest client then replays the very same request bodies, reading
//! each streamed response up to its `message_stop` event, as the agent does. Overhead of turn i = agent turn i − bare
//! request i: what the loop adds beyond HTTP (building the request from history,
//! SSE decoding into blocks, event stamping, tool dispatch and a small file read).
//! Both sides are warmed up first; medians of the paired differences are printed
//! for a short and a long history. Loopback HTTP timings on a shared 2-core
//! machine are noisy, so the same loop also runs against an in-process provider
//! that answers instantly: that turn time is the runtime's own work alone.
//!
//! Run: `cargo bench -p arbor-core --bench turn_overhead` (prints figures; asserts nothing).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use arbor_core::provider::{
    AnthropicConfig, AnthropicProvider, ApiKey, ModelRequest, ModelResponse, Provider, ProviderError, ResponseStream,
    StopReason, StreamEvent,
};
use arbor_core::{ApprovalPolicy, Session, SessionConfig};
use arbor_protocol::{AssistantBlock, Command, EventKind, Usage};
use arbor_testkit::{Scenario, ScriptedServer};
use futures::StreamExt;
use std::sync::Arc;
use std::time::Instant;

fn ms(d: f64) -> String {
    format!("{:.3} ms", d * 1000.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn pct(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// Answers every request at once with the same streamed turn: text plus one Read call.
struct InstantProvider;

#[async_trait::async_trait]
impl Provider for InstantProvider {
    fn name(&self) -> &str {
        "instant"
    }

    async fn stream(&self, req: ModelRequest<'_>) -> Result<ResponseStream, ProviderError> {
        let id = format!("toolu_{}", req.messages.len());
        let text = "Reading the file again to measure one more turn.";
        let response = ModelResponse {
            content: vec![
                AssistantBlock::Text { text: text.into() },
                AssistantBlock::ToolUse {
                    id,
                    name: "Read".into(),
                    input: serde_json::json!({"file_path": "small.txt"}),
                },
            ],
            usage: Usage::default(),
            stop_reason: StopReason::ToolUse,
            invalid_tool_inputs: Vec::new(),
        };
        let events = text.split_inclusive(' ').map(|w| Ok(StreamEvent::TextDelta(w.into()))).collect::<Vec<_>>();
        Ok(futures::stream::iter(events.into_iter().chain([Ok(StreamEvent::Completed(response))])).boxed())
    }
}

/// Runs one agent for `turns` turns; returns each turn's duration in seconds.
async fn agent_turns(server: Option<&ScriptedServer>, dir: &std::path::Path, turns: u32, prompt: &str) -> Vec<f64> {
    let provider: Arc<dyn Provider> = match server {
        Some(server) => Arc::new(
            AnthropicProvider::new(AnthropicConfig {
                base_url: server.anthropic_base_url(),
                api_key: Some(ApiKey::new("bench")),
                ..Default::default()
            })
            .unwrap(),
        ),
        None => Arc::new(InstantProvider),
    };
    let mut config = SessionConfig::new(dir, "anthropic", provider, "bench-model");
    config.approval = ApprovalPolicy::allow_all();
    config.main_agent.max_turns = turns;
    config.project_instructions = false;
    let (session, mut events) = Session::start(config).unwrap();
    let start = Instant::now();
    session.submit(Command::SendMessage { agent_id: None, text: prompt.into() }).unwrap();
    let mut ends = vec![start];
    while let Some(ev) = events.recv().await {
        match ev.kind {
            EventKind::ToolOutput(_) => ends.push(Instant::now()),
            EventKind::AgentFinished(_) => break,
            _ => {}
        }
    }
    ends.windows(2).map(|w| (w[1] - w[0]).as_secs_f64()).collect()
}

/// Replays the recorded requests whose first user text is `prompt`; seconds each.
async fn bare_requests(server: &ScriptedServer, prompt: &str) -> Vec<f64> {
    // reqwest's rustls needs its cryptography chosen before a default client is built.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let url = format!("{}/v1/messages", server.anthropic_base_url());
    let mut out = Vec::new();
    for req in server.requests().iter().filter(|r| r.first_user_text == prompt) {
        let t = Instant::now();
        let resp = client
            .post(&url)
            .header("x-api-key", "bench")
            .header("anthropic-version", "2023-06-01")
            .json(&req.body)
            .send()
            .await
            .unwrap();
        // Stop where the agent stops: at message_stop, not at the body's chunked terminator.
        let mut stream = resp.bytes_stream();
        let mut seen = Vec::new();
        while let Some(chunk) = stream.next().await {
            seen.extend_from_slice(&chunk.unwrap());
            if seen.windows(19).any(|w| w == b"event: message_stop") {
                break;
            }
        }
        out.push(t.elapsed().as_secs_f64());
    }
    out
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let scenario = Scenario::from_json(
        &serde_json::json!({"rules": [{"match": {}, "repeat_last": true, "turns": [
            {"text": "Reading the file again to measure one more turn.",
             "tool_calls": [{"name": "Read", "input": {"file_path": "small.txt"}}]}
        ]}]})
        .to_string(),
    )
    .unwrap();
    let server = ScriptedServer::start(scenario).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "one\ntwo\nthree\n").unwrap();

    // Warm-up: connections, thread pools, allocator.
    agent_turns(Some(&server), dir.path(), 30, "warm-up").await;
    agent_turns(None, dir.path(), 30, "warm-up").await;
    bare_requests(&server, "warm-up").await;

    for (turns, label) in [(40u32, "short history (40 turns)"), (300, "long history (300 turns)")] {
        let prompt = format!("measure {turns}");
        let agent = agent_turns(Some(&server), dir.path(), turns, &prompt).await;
        let alone = agent_turns(None, dir.path(), turns, &prompt).await;
        let bare = bare_requests(&server, &prompt).await;
        let diffs: Vec<f64> = agent.iter().zip(&bare).map(|(a, b)| a - b).collect();
        println!("turn_overhead, {label}:");
        println!("  agent turn    median {}  p95 {}", ms(median(agent.clone())), ms(pct(agent, 0.95)));
        println!("  bare request  median {}  p95 {}", ms(median(bare.clone())), ms(pct(bare, 0.95)));
        println!("  agent − bare (paired)     median {}  p95 {}", ms(median(diffs.clone())), ms(pct(diffs, 0.95)));
        println!("  runtime alone (no HTTP)   median {}  p95 {}", ms(median(alone.clone())), ms(pct(alone, 0.95)));
    }
    server.shutdown().await;
}
