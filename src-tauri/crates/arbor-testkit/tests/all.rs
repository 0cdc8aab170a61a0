//! arbor-testkit's integration tests: the scripted server driven over real
//! HTTP, checked against the wire shapes of the real APIs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod checks;
mod routing;
mod support;

use arbor_testkit::Api;
use serde_json::{Value, json};
use support::*;

const FULL: &str = r#"{"name": "full", "rules": [{"turns": [{
    "thinking": "Let me think about which files to write first.",
    "text": "I will write two files for you now.",
    "tool_calls": [
        {"name": "Write", "input": {"file_path": "a.txt", "content": "hi"}},
        {"name": "Read", "raw_arguments": "{not json"}
    ],
    "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": 7, "cache_write_tokens": 3}
}]}]}"#;

#[tokio::test]
async fn anthropic_stream_has_the_real_shape() {
    let s = server(FULL).await;
    let body = anthropic_body(json!([{"role": "user", "content": "write files"}]));
    let resp = post_anthropic(&s, &body).await;
    assert_eq!(resp.headers()["content-type"], "text/event-stream; charset=utf-8");
    let events = sse_ok(resp).await;
    let names: Vec<&str> = events.iter().map(|e| e.event.as_deref().unwrap()).collect();
    assert_eq!(&names[..3], ["message_start", "ping", "content_block_start"]);
    assert_eq!(&names[names.len() - 2..], ["message_delta", "message_stop"]);
    assert_eq!(names.iter().filter(|n| **n == "content_block_start").count(), 4);
    assert_eq!(names.iter().filter(|n| **n == "content_block_stop").count(), 4);

    let start = events[0].json();
    let msg = &start["message"];
    assert!(msg["id"].as_str().unwrap().starts_with("msg_01"));
    assert_eq!(
        (msg["type"].clone(), msg["role"].clone(), msg["model"].clone()),
        (json!("message"), json!("assistant"), json!("claude-test"))
    );
    assert_eq!(msg["content"], json!([]));
    assert!(msg["stop_reason"].is_null());
    assert_eq!(msg["usage"]["input_tokens"], 10);
    assert_eq!(msg["usage"]["cache_read_input_tokens"], 7);
    assert_eq!(msg["usage"]["cache_creation_input_tokens"], 3);
    let delta = events[events.len() - 2].json();
    assert_eq!(delta["delta"], json!({"stop_reason": "tool_use", "stop_sequence": null}));
    assert_eq!(delta["usage"]["output_tokens"], 5);

    // The signature closes the thinking block.
    let sig_at = events.iter().position(|e| e.data.contains("signature_delta")).unwrap();
    assert_eq!(events[sig_at + 1].json(), json!({"type": "content_block_stop", "index": 0}));

    let a = assemble_anthropic(&events);
    assert_eq!(a.thinking, "Let me think about which files to write first.");
    assert_eq!(a.text, "I will write two files for you now.");
    assert!(!a.signature.is_empty());
    assert_eq!(a.stop_reason, "tool_use");
    assert_eq!(a.tools.len(), 2);
    assert!(a.tools.iter().all(|t| t.0.starts_with("toolu_01") && t.3 >= 2), "{:?}", a.tools);
    assert_ne!(a.tools[0].0, a.tools[1].0);
    assert_eq!((a.tools[0].1.as_str(), a.tools[1].1.as_str()), ("Write", "Read"));
    assert_eq!(serde_json::from_str::<Value>(&a.tools[0].2).unwrap(), json!({"file_path": "a.txt", "content": "hi"}));
    assert_eq!(a.tools[1].2, "{not json");
    assert!(events.iter().filter(|e| e.data.contains("text_delta")).count() >= 2, "text comes in several deltas");

    // Ids are deterministic, so a replay gets the same ones.
    let again = assemble_anthropic(&sse_ok(post_anthropic(&s, &body).await).await);
    assert_eq!(again.tools, a.tools);
}

#[tokio::test]
async fn openai_stream_has_the_real_shape_with_usage_and_done() {
    let s = server(FULL).await;
    let mut body =
        openai_body(json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "write files"}]));
    body["stream_options"] = json!({"include_usage": true});
    let events = sse_ok(post_openai(&s, &body).await).await;
    assert!(events.iter().all(|e| e.event.is_none()));
    assert_eq!(events.last().unwrap().data, "[DONE]");
    let first = events[0].json();
    assert_eq!(first["object"], "chat.completion.chunk");
    assert_eq!(first["model"], "gpt-test");
    assert_eq!(first["choices"][0]["delta"]["role"], "assistant");
    assert!(first.get("usage").unwrap().is_null());

    let usage = events[events.len() - 2].json();
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"]["prompt_tokens"], 20);
    assert_eq!(usage["usage"]["completion_tokens"], 5);
    assert_eq!(usage["usage"]["total_tokens"], 25);
    assert_eq!(usage["usage"]["prompt_tokens_details"]["cached_tokens"], 7);
    let finish = events[events.len() - 3].json();
    assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(finish["choices"][0]["delta"], json!({}));

    let a = assemble_openai(&events);
    assert_eq!(a.thinking, "Let me think about which files to write first.");
    assert_eq!(a.text, "I will write two files for you now.");
    assert_eq!(a.tools.len(), 2);
    assert!(a.tools.iter().all(|t| t.0.starts_with("call_") && t.3 >= 2), "{:?}", a.tools);
    assert_eq!(serde_json::from_str::<Value>(&a.tools[0].2).unwrap(), json!({"file_path": "a.txt", "content": "hi"}));
    assert_eq!(a.tools[1].2, "{not json");

    // Without include_usage: no usage at all; the /v1 path works too.
    body.as_object_mut().unwrap().remove("stream_options");
    let resp = client()
        .post(format!("{}/chat/completions", s.openai_base_url()))
        .bearer_auth("k")
        .json(&body)
        .send()
        .await
        .unwrap();
    let plain = sse_ok(resp).await;
    assert!(plain.iter().all(|e| e.data == "[DONE]" || e.json().get("usage").is_none()));
    assert!(plain.iter().all(|e| e.data == "[DONE]" || e.json()["choices"].as_array().unwrap().len() == 1));
    let recorded = s.requests();
    assert_eq!(recorded.len(), 2);
    assert_eq!((recorded[0].api, recorded[0].path.as_str()), (Api::OpenAi, "/v1/chat/completions"));
    assert_eq!(recorded[0].system_text, "be brief");
    assert_eq!(recorded[0].header("Authorization"), Some("Bearer test-key"));
}

#[tokio::test]
async fn text_only_turns_end_the_turn() {
    let s = server(r#"{"rules": [{"turns": [{"text": "hello"}]}]}"#).await;
    let a = assemble_anthropic(
        &sse_ok(post_anthropic(&s, &anthropic_body(json!([{"role": "user", "content": "hi"}]))).await).await,
    );
    assert_eq!((a.text.as_str(), a.stop_reason.as_str()), ("hello", "end_turn"));
    let o =
        assemble_openai(&sse_ok(post_openai(&s, &openai_body(json!([{"role": "user", "content": "hi"}]))).await).await);
    assert_eq!((o.text.as_str(), o.stop_reason.as_str()), ("hello", "stop"));
}

#[tokio::test]
async fn cut_after_events_breaks_the_stream() {
    let s = server(
        r#"{"rules": [
            {"match": {"first_user_contains": "slow"}, "turns": [{"text": "a long answer that never arrives in full", "cut_after_events": 3, "chunk_delay_ms": 5}]},
            {"turns": [{"text": "a long answer that never arrives in full", "cut_after_events": 3}]}]}"#,
    )
    .await;
    let resp = post_anthropic(&s, &anthropic_body(json!([{"role": "user", "content": "slow"}]))).await;
    assert_eq!(resp.status(), 200);
    let (events, error) = read_sse(resp).await;
    assert!(error.is_some(), "the body must fail, not end cleanly");
    let names: Vec<_> = events.iter().map(|e| e.event.clone().unwrap()).collect();
    assert_eq!(names, ["message_start", "ping", "content_block_start"]);

    let resp = post_openai(&s, &openai_body(json!([{"role": "user", "content": "hi"}]))).await;
    let (events, error) = read_sse(resp).await;
    assert!(error.is_some());
    assert_eq!(events.len(), 3);
    assert!(events.iter().all(|e| e.data != "[DONE]"));
}

#[tokio::test]
async fn error_event_replaces_the_clean_end() {
    let s = server(r#"{"rules": [{"turns": [{"text": "partial", "error_event": {"type": "overloaded_error", "message": "Overloaded"}}]}]}"#).await;
    let events = sse_ok(post_anthropic(&s, &anthropic_body(json!([{"role": "user", "content": "hi"}]))).await).await;
    let last = events.last().unwrap();
    assert_eq!(last.event.as_deref(), Some("error"));
    assert_eq!(last.json(), json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}));
    assert!(!events.iter().any(|e| e.event.as_deref() == Some("message_stop")));

    let events = sse_ok(post_openai(&s, &openai_body(json!([{"role": "user", "content": "hi"}]))).await).await;
    assert_eq!(events.last().unwrap().json()["error"]["message"], "Overloaded");
    assert!(events.iter().all(|e| e.data != "[DONE]"));
}

#[tokio::test]
async fn tool_only_turns_and_stop_reason_overrides() {
    let s = server(
        r#"{"rules": [
            {"match": {"first_user_contains": "tool"}, "turns": [{"tool_calls": [{"id": "fixed_id", "name": "Glob", "input": {}}]}]},
            {"turns": [{"text": "cut short", "stop_reason": "max_tokens"}]}]}"#,
    )
    .await;
    let events = sse_ok(post_openai(&s, &openai_body(json!([{"role": "user", "content": "tool please"}]))).await).await;
    let first = events[0].json();
    let delta = &first["choices"][0]["delta"];
    assert!(delta["content"].is_null());
    assert_eq!(delta["tool_calls"][0]["id"], "fixed_id");
    let a = assemble_openai(&events);
    assert_eq!((a.tools.len(), a.tools[0].2.as_str(), a.stop_reason.as_str()), (1, "{}", "tool_calls"));
    let o =
        assemble_openai(&sse_ok(post_openai(&s, &openai_body(json!([{"role": "user", "content": "hi"}]))).await).await);
    assert_eq!(o.stop_reason, "length");
    let body = anthropic_body(json!([{"role": "user", "content": "hi"}]));
    let a = assemble_anthropic(&sse_ok(post_anthropic(&s, &body).await).await);
    assert_eq!(a.stop_reason, "max_tokens");
}
