//! What other servers send and what a model gets wrong: answers cut off by the
//! output limit, tool-call deltas that repeat their name, arguments far too
//! large to echo, a provider that stalls past the retry budget.

use super::*;
use arbor_core::provider::RetryPolicy;
use arbor_protocol::{AgentStatus, EventKind};
use serde_json::json;

#[tokio::test]
async fn a_final_answer_cut_off_at_the_output_limit_ends_the_agent_as_truncated() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(
            json!({"rules": [{"match": {}, "turns": [{"text": "The three causes are: first,", "stop_reason": "max_tokens"}]}]}),
            api,
        )
        .await;
        let run = h.run("why").await;
        let f = run.finished();
        assert_eq!(f.status, AgentStatus::Truncated, "{api:?}");
        assert_eq!(f.result, "The three causes are: first,");
        let err = f.error.as_deref().unwrap_or_default();
        assert!(err.contains("cut off at the output limit"), "{api:?}: {err}");
    }
}

#[tokio::test]
async fn a_tool_call_cut_off_at_the_output_limit_is_never_run_and_the_model_goes_on() {
    for api in [Api::Anthropic, Api::OpenAi] {
        let h = Harness::new(
            json!({"rules": [{"match": {}, "turns": [
                {"tool_calls": [
                    {"name": "Write", "input": {"file_path": "whole.txt", "content": "fine"}},
                    {"name": "Write", "input": {"file_path": "cut.txt", "content": "half of it"}}
                ], "stop_reason": "max_tokens"},
                {"text": "{{last_tool_result}}"}
            ]}]}),
            api,
        )
        .await;
        let run = h.run("write two").await;
        assert_eq!(run.finished().status, AgentStatus::Completed, "{api:?}: the model was told and went on");
        let outs = run.outputs();
        assert!(!outs[0].1, "the call before the cut ran: {outs:?}");
        assert!(outs[1].1 && outs[1].0.contains("output limit") && outs[1].0.contains("was not run"), "{outs:?}");
        assert_eq!(read(&h.path("whole.txt")), "fine");
        assert!(!h.path("cut.txt").exists(), "{api:?}: a cut call never runs");
    }
}

/// llama-cpp-python and others repeat a call's id and name in every delta.
#[tokio::test]
async fn tool_call_deltas_that_repeat_their_name_are_one_call() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "Read", "input": {"file_path": "a.txt"}}], "repeat_tool_header": true},
            {"text": "{{last_tool_result}}"}
        ]}]}),
        Api::OpenAi,
    )
    .await;
    std::fs::write(h.path("a.txt"), "hello").expect("write");
    let run = h.run("read it").await;
    let calls: Vec<String> = run
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::ToolCall(c) => Some(c.tool_name.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(calls, ["Read"]);
    assert_eq!(run.outputs(), [("     1\thello".to_string(), false)]);
}

/// A megabyte of path comes back as a short error, and the next request grows
/// by about the model's own input only, not by an echo of it.
#[tokio::test]
async fn a_huge_argument_is_quoted_short_and_the_next_request_stays_small() {
    let huge = "x".repeat(1_000_000);
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [
            {"tool_calls": [{"name": "Read", "input": {"file_path": huge}}]},
            {"text": "ok"}
        ]}]}),
        Api::Anthropic,
    )
    .await;
    let run = h.run("read").await;
    let outs = run.outputs();
    assert!(outs[0].1);
    assert!(outs[0].0.len() < 1_000, "{} characters", outs[0].0.len());
    assert!(outs[0].0.contains("more characters"), "{}", outs[0].0);
    let sizes: Vec<usize> = run.requests.iter().map(|r| r.body.to_string().len()).collect();
    assert_eq!(sizes.len(), 2);
    let growth = sizes[1] - sizes[0];
    assert!(growth < 1_010_000, "the second request grew by {growth} bytes");
}

/// A provider that stalls: no retry starts past the turn's budget, and the error
/// names the whole time waited, not one attempt's idle timeout.
#[tokio::test]
async fn a_stalled_provider_gives_up_within_the_retry_budget_and_says_how_long() {
    let h = Harness::new(
        json!({"rules": [{"match": {}, "turns": [{"text": "too late", "delay_ms": 30000}]}]}),
        Api::Anthropic,
    )
    .await;
    let mut config = h.config();
    let timeouts = arbor_core::provider::Timeouts {
        connect: std::time::Duration::from_secs(2),
        response: std::time::Duration::from_millis(400),
        idle: std::time::Duration::from_millis(400),
    };
    config.providers.insert("anthropic".into(), provider(Api::Anthropic, &h.server, timeouts));
    config.retry = RetryPolicy {
        max_retries: 10,
        base_delay: std::time::Duration::from_millis(10),
        max_delay: std::time::Duration::from_millis(20),
        budget: std::time::Duration::from_millis(1_000),
    };
    let started = std::time::Instant::now();
    let run = h.run_with(config, "hello").await;
    let took = started.elapsed();
    let f = run.finished();
    assert_eq!(f.status, AgentStatus::Failed);
    let err = f.error.as_deref().unwrap_or_default();
    assert!(err.starts_with("gave up after") && err.contains("retry budget 1 s"), "{err}");
    assert!(took < std::time::Duration::from_secs(3), "budget 1 s, one attempt 0.4 s: took {took:?}");
    assert!((2..=4).contains(&run.requests.len()), "{} attempts", run.requests.len());
}
