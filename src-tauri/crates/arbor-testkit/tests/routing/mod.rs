//! Routing by content, turn selection, scripted failures and placeholders.

use crate::support::*;
use serde_json::{Value, json};

#[tokio::test]
async fn routes_by_first_user_text_not_arrival_order() {
    let s = server(
        r#"{"rules": [
            {"match": {"first_user_contains": "alpha"}, "turns": [{"text": "A answer", "delay_ms": 300}]},
            {"match": {"first_user_contains": "beta"}, "turns": [{"text": "B answer"}]}]}"#,
    )
    .await;
    let a_body = anthropic_body(json!([{"role": "user", "content": [{"type": "text", "text": "task alpha"}]}]));
    let b_body = anthropic_body(json!([{"role": "user", "content": "task beta"}]));
    let (a, b) = tokio::join!(async { assemble_anthropic(&sse_ok(post_anthropic(&s, &a_body).await).await) }, async {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assemble_anthropic(&sse_ok(post_anthropic(&s, &b_body).await).await)
    });
    assert_eq!((a.text.as_str(), b.text.as_str()), ("A answer", "B answer"));
    let rules: Vec<(Option<usize>, String)> = s.requests().into_iter().map(|r| (r.rule, r.first_user_text)).collect();
    assert_eq!(rules, vec![(Some(0), "task alpha".to_string()), (Some(1), "task beta".to_string())]);
}

#[tokio::test]
async fn turn_index_is_the_assistant_message_count() {
    let s = server(
        r#"{"rules": [
            {"match": {"first_user_contains": "once"}, "turns": [{"text": "first"}, {"text": "second"}]},
            {"match": {"system_contains": "loop"}, "repeat_last": true, "turns": [{"text": "again"}]}]}"#,
    )
    .await;
    let convo = |n: usize, first: &str| {
        let mut m = vec![json!({"role": "user", "content": first})];
        for i in 0..n {
            m.push(json!({"role": "assistant", "content": format!("reply {i}")}));
            m.push(json!({"role": "user", "content": "more"}));
        }
        anthropic_body(Value::Array(m))
    };
    let a = assemble_anthropic(&sse_ok(post_anthropic(&s, &convo(1, "just once")).await).await);
    assert_eq!(a.text, "second");
    let resp = post_anthropic(&s, &convo(2, "just once")).await;
    assert_eq!(resp.status(), 400);
    let err: Value = resp.json().await.unwrap();
    assert_eq!(err["type"], "error");
    assert_eq!(err["error"]["type"], "invalid_request_error");
    assert!(err["error"]["message"].as_str().unwrap().contains("no turn 2 for rule 0"), "{err}");

    let mut looping = convo(5, "anything");
    looping["system"] = json!([{"type": "text", "text": "you loop"}]);
    assert_eq!(assemble_anthropic(&sse_ok(post_anthropic(&s, &looping).await).await).text, "again");
    let turns: Vec<(usize, u16)> = s.requests().iter().map(|r| (r.turn, r.status)).collect();
    assert_eq!(turns, vec![(1, 200), (2, 400), (5, 200)]);
}

#[tokio::test]
async fn fail_first_then_succeed_with_retry_after() {
    let s = server(
        r#"{"rules": [{"turns": [{"text": "finally", "fail_first": {"status": 529, "times": 2, "retry_after": 3}}]}]}"#,
    )
    .await;
    let body = anthropic_body(json!([{"role": "user", "content": "hi"}]));
    for _ in 0..2 {
        let resp = post_anthropic(&s, &body).await;
        assert_eq!(resp.status(), 529);
        assert_eq!(resp.headers()["retry-after"], "3");
        assert!(resp.headers().contains_key("request-id"));
        let err: Value = resp.json().await.unwrap();
        assert_eq!(err["error"]["type"], "overloaded_error");
    }
    assert_eq!(assemble_anthropic(&sse_ok(post_anthropic(&s, &body).await).await).text, "finally");
    let statuses: Vec<u16> = s.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [529, 529, 200]);
}

#[tokio::test]
async fn openai_fail_first_uses_openai_error_bodies() {
    let s = server(r#"{"rules": [{"turns": [{"text": "ok", "fail_first": {"status": 429, "times": 1}}]}]}"#).await;
    let body = openai_body(json!([{"role": "user", "content": "hi"}]));
    let resp = post_openai(&s, &body).await;
    assert_eq!(resp.status(), 429);
    assert!(resp.headers().get("retry-after").is_none());
    let err: Value = resp.json().await.unwrap();
    assert_eq!(err["error"]["code"], "rate_limit_exceeded");
    assert!(err["error"]["message"].is_string());
    assert_eq!(assemble_openai(&sse_ok(post_openai(&s, &body).await).await).text, "ok");
}

#[tokio::test]
async fn status_always_errors() {
    let s = server(r#"{"rules": [{"turns": [{"status": 400}]}]}"#).await;
    for _ in 0..2 {
        let resp = post_anthropic(&s, &anthropic_body(json!([{"role": "user", "content": "hi"}]))).await;
        assert_eq!(resp.status(), 400);
        let err: Value = resp.json().await.unwrap();
        assert_eq!(err["error"]["type"], "invalid_request_error");
    }
    let resp = post_openai(&s, &openai_body(json!([{"role": "user", "content": "hi"}]))).await;
    assert_eq!(resp.status(), 400);
    assert_eq!(resp.json::<Value>().await.unwrap()["error"]["type"], "invalid_request_error");
}

#[tokio::test]
async fn placeholders_are_filled_from_the_request() {
    let s =
        server(r#"{"rules": [{"turns": [{"text": "x"}, {"text": "[{{first_user}}] saw: {{last_tool_result}}"}]}]}"#)
            .await;
    let body = anthropic_body(json!([
        {"role": "user", "content": "read it"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "toolu_01a", "name": "Read", "input": {"p": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01a", "content": [{"type": "text", "text": "file body"}]}]}]));
    assert_eq!(assemble_anthropic(&sse_ok(post_anthropic(&s, &body).await).await).text, "[read it] saw: file body");
    let body = openai_body(json!([
        {"role": "user", "content": [{"type": "text", "text": "read it"}]},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_a", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": "openai body"}]));
    assert_eq!(assemble_openai(&sse_ok(post_openai(&s, &body).await).await).text, "[read it] saw: openai body");
}

#[tokio::test]
async fn no_matching_rule_is_a_clear_400() {
    let s = server(
        r#"{"name": "picky", "rules": [{"match": {"first_user_contains": "magic"}, "turns": [{"text": "x"}]}]}"#,
    )
    .await;
    let resp =
        post_anthropic(&s, &anthropic_body(json!([{"role": "user", "content": "something else entirely"}]))).await;
    assert_eq!(resp.status(), 400);
    let msg = resp.json::<Value>().await.unwrap()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("picky") && msg.contains("something else entirely"), "{msg}");
    assert_eq!(s.requests()[0].rule, None);
}
