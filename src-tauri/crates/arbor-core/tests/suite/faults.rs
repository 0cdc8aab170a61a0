//! A provider that misbehaves: overload, rejected requests, broken and silent
//! streams, a dead address. Each ends in a retry or a clear error, never a hang.

use super::*;
use arbor_core::provider::Timeouts;
use arbor_protocol::AgentStatus;
use serde_json::json;

#[tokio::test]
async fn overload_twice_then_success_is_retried_transparently() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(
            json!({"rules": [{"match": {}, "turns": [
                {"text": "made it", "fail_first": {"status": 529, "times": 2, "retry_after": 0}}
            ]}]}),
            api,
        )
        .await;
        let run = h.run("hi").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}");
        assert_eq!(run.finished().result, "made it");
        let statuses: Vec<u16> = run.requests.iter().map(|r| r.status).collect();
        assert_eq!(statuses, vec![529, 529, 200]);
    }
}

#[tokio::test]
async fn a_rejected_request_fails_at_once_with_the_api_message() {
    let h = Harness::new(json!({"rules": [{"match": {}, "turns": [{"status": 400}]}]}), Api::Anthropic).await;
    let run = h.run("hi").await;
    let f = run.finished();
    assert_eq!(f.status, AgentStatus::Failed);
    let err = f.error.as_deref().unwrap_or_default();
    assert!(err.contains("HTTP 400") && err.contains("invalid_request_error"), "{err}");
    assert_eq!(run.requests.len(), 1, "a 400 is not retried");
}

#[tokio::test]
async fn a_stream_cut_midway_fails_the_turn_clearly() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(
            json!({"rules": [{"match": {}, "turns": [
                {"text": "This reply is long enough to be cut in the middle of its stream.", "cut_after_events": 4}
            ]}]}),
            api,
        )
        .await;
        let run = h.run("hi").await;
        let f = run.finished();
        assert_eq!(f.status, AgentStatus::Failed, "{api:?}");
        assert!(f.error.as_deref().unwrap_or_default().contains("broke midway"), "{:?}", f.error);
        assert!(run.types().contains(&"response_chunk"), "part of the reply was shown");
        assert_eq!(run.requests.len(), 1, "output was shown, so no retry");
    }
}

#[tokio::test]
async fn a_stream_cut_before_any_output_is_retried() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [{"text": "never arrives", "cut_after_events": 1}]}]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("hi").await;
    assert_eq!(run.finished().status, AgentStatus::Failed);
    assert_eq!(run.requests.len(), 4, "first attempt + 3 retries");
    assert!(!run.types().contains(&"response_chunk"));
}

#[tokio::test]
async fn an_overloaded_error_event_before_output_is_retried_then_reported() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [{"error_event": {"type": "overloaded_error", "message": "Overloaded"}}]}]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("hi").await;
    let f = run.finished();
    assert_eq!(f.status, AgentStatus::Failed);
    assert!(f.error.as_deref().unwrap_or_default().contains("overloaded_error: Overloaded"), "{:?}", f.error);
    assert_eq!(run.requests.len(), 4);
}

#[tokio::test]
async fn a_silent_stream_times_out_instead_of_hanging() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [{"text": "slow words here", "chunk_delay_ms": 3000}]}]}),
        Api::OpenAi,
    )
    .await;
    let mut config = h.config();
    let timeouts = Timeouts {
        connect: Duration::from_secs(1),
        response: Duration::from_secs(2),
        idle: Duration::from_millis(200),
    };
    config.providers.insert("openai".into(), provider(Api::OpenAi, &h.server, timeouts));
    config.retry.max_retries = 0;
    let run = h.run_with(config, "hi").await;
    let f = run.finished();
    assert_eq!(f.status, AgentStatus::Failed);
    assert!(f.error.as_deref().unwrap_or_default().contains("no data from openai"), "{:?}", f.error);
}

#[tokio::test]
async fn an_unreachable_provider_is_retried_then_named_in_the_error() {
    let h = Harness::new(json!({"rules": []}), Api::Anthropic).await;
    let dead = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", dead.local_addr().expect("addr"));
    drop(dead);
    let mut config = h.config();
    let p = arbor_core::provider::AnthropicProvider::new(arbor_core::provider::AnthropicConfig {
        base_url: url.clone(),
        api_key: Some(arbor_core::provider::ApiKey::new("k")),
        timeouts: fast_timeouts(),
        ..Default::default()
    })
    .expect("provider");
    config.providers.insert("anthropic".into(), Arc::new(p));
    let run = h.run_with(config, "hi").await;
    let f = run.finished();
    assert_eq!(f.status, AgentStatus::Failed);
    let err = f.error.as_deref().unwrap_or_default();
    assert!(err.contains("cannot reach") && err.contains(&url), "{err}");
}

/// Anthropic's own endpoint is never called without a key; a server that wants
/// one and gets none says so, and the agent fails with its words.
#[tokio::test]
async fn a_missing_key_is_a_clear_error() {
    let h = Harness::new(json!({"rules": []}), Api::Anthropic).await;
    let keyless = |base_url: String| {
        let p = arbor_core::provider::AnthropicProvider::new(arbor_core::provider::AnthropicConfig {
            base_url,
            api_key: None,
            ..Default::default()
        })
        .expect("provider");
        Arc::new(p)
    };
    let mut config = h.config();
    config.providers.insert("anthropic".into(), keyless(arbor_core::provider::ANTHROPIC_DEFAULT_BASE_URL.into()));
    let run = h.run_with(config, "hi").await;
    assert_eq!(run.finished().error.as_deref(), Some("anthropic API key missing: set ANTHROPIC_API_KEY"));
    let mut config = h.config();
    config.providers.insert("anthropic".into(), keyless(h.server.anthropic_base_url()));
    let run = h.run_with(config, "hi").await;
    let err = run.finished().error.clone().unwrap_or_default();
    assert!(err.contains("HTTP 401") && err.contains("x-api-key"), "{err}");
    assert_eq!(run.requests.len(), 1, "one request, to the scripted server only; a 401 is not retried");
}
