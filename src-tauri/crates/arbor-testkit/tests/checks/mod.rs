//! Request validation, scenario loading, shutdown and the event helpers.

use crate::support::*;
use arbor_testkit::{Scenario, ScriptedServer, TestkitError};
use serde_json::{Value, json};

#[tokio::test]
async fn validation_rejects_a_missing_tool_result() {
    let s = server(r#"{"rules": [{"repeat_last": true, "turns": [{"text": "never"}]}]}"#).await;
    let tool_use =
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01x", "name": "Read", "input": {}}]});
    let body = anthropic_body(
        json!([{"role": "user", "content": "hi"}, tool_use, {"role": "user", "content": "where is my result"}]),
    );
    let resp = post_anthropic(&s, &body).await;
    assert_eq!(resp.status(), 400);
    let msg = resp.json::<Value>().await.unwrap()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("toolu_01x") && msg.contains("tool_result"), "{msg}");

    let stray = anthropic_body(
        json!([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_zz", "content": "x"}]}]),
    );
    assert_eq!(post_anthropic(&s, &stray).await.status(), 400);

    let missing_version = client()
        .post(format!("{}/v1/messages", s.anthropic_base_url()))
        .header("x-api-key", "k")
        .json(&anthropic_body(json!([{"role": "user", "content": "hi"}])))
        .send()
        .await
        .unwrap();
    assert_eq!(missing_version.status(), 400);

    let calls = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{}"}},
        {"id": "call_2", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]});
    let partial = openai_body(
        json!([{"role": "user", "content": "hi"}, calls, {"role": "tool", "tool_call_id": "call_1", "content": "ok"}, {"role": "user", "content": "next"}]),
    );
    let resp = post_openai(&s, &partial).await;
    assert_eq!(resp.status(), 400);
    assert!(resp.json::<Value>().await.unwrap()["error"]["message"].as_str().unwrap().contains("call_2"));

    let unauthenticated =
        client().post(format!("{}/chat/completions", s.openai_base_url())).json(&partial).send().await.unwrap();
    assert_eq!(unauthenticated.status(), 401);

    let statuses: Vec<u16> = s.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [400, 400, 400, 400, 401], "failed requests are recorded too");
}

#[tokio::test]
async fn scenarios_load_from_files_and_reject_typos() {
    let basic = Scenario::load("testkit_basic").unwrap();
    assert_eq!(basic.rules.len(), 2);
    assert!(Scenario::scenarios_dir().join("testkit_basic.json").is_file());
    let typo = Scenario::from_json(r#"{"rules": [{"turns": [{"txt": "oops"}]}]}"#).unwrap_err();
    assert!(matches!(typo, TestkitError::Json { .. }) && typo.to_string().contains("txt"), "{typo}");
    let both = r#"{"rules": [{"turns": [{"tool_calls": [{"name": "A", "input": {}, "raw_arguments": "{}"}]}]}]}"#;
    assert!(matches!(Scenario::from_json(both), Err(TestkitError::Scenario { .. })));
    let missing = Scenario::load("testkit_no_such_scenario").unwrap_err();
    assert!(missing.to_string().contains("testkit_no_such_scenario.json"), "{missing}");
}

#[tokio::test]
async fn basic_scenario_round_trip_and_shutdown() {
    let s = ScriptedServer::start(Scenario::load("testkit_basic").unwrap()).await.unwrap();
    let first = assemble_anthropic(
        &sse_ok(post_anthropic(&s, &anthropic_body(json!([{"role": "user", "content": "please write a file"}]))).await)
            .await,
    );
    let (id, name, args, _) = first.tools[0].clone();
    assert_eq!(name, "Write");
    let body = anthropic_body(json!([
        {"role": "user", "content": "please write a file"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": first.thinking, "signature": first.signature},
            {"type": "text", "text": first.text},
            {"type": "tool_use", "id": id, "name": name, "input": serde_json::from_str::<Value>(&args).unwrap()}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "wrote a.txt"}]}]));
    assert_eq!(assemble_anthropic(&sse_ok(post_anthropic(&s, &body).await).await).text, "Done: wrote a.txt");
    let addr = s.addr();
    s.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err(), "the port is closed after shutdown");
}

#[tokio::test]
async fn event_helpers_wait_collect_and_explain_timeouts() {
    use arbor_protocol::{AgentEvent, AgentId, EventKind, SessionId, Text};
    use arbor_testkit::{WaitError, collect_until, wait_for_event};
    use std::time::Duration;
    let ev = |seq: u64, kind: EventKind| AgentEvent {
        agent_id: AgentId("agent-0001".into()),
        session_id: SessionId("s".into()),
        seq,
        ts: 0,
        kind,
    };
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for (i, word) in ["a", "b", "c"].iter().enumerate() {
        tx.send(ev(i as u64, EventKind::ResponseChunk(Text { content: word.to_string() }))).unwrap();
    }
    tx.send(ev(3, EventKind::Response(Text { content: "abc".into() }))).unwrap();
    let got = collect_until(
        &mut rx,
        Duration::from_secs(1),
        |e| matches!(e.kind, EventKind::ResponseChunk(Text { ref content }) if content == "b"),
    )
    .await
    .unwrap();
    assert_eq!(got.iter().map(|e| e.seq).collect::<Vec<_>>(), [0, 1]);
    let resp = wait_for_event(&mut rx, Duration::from_secs(1), |e| e.kind.type_name() == "response").await.unwrap();
    assert_eq!(resp.seq, 3);
    let err = wait_for_event(&mut rx, Duration::from_millis(50), |_| false).await.unwrap_err();
    assert!(matches!(err, WaitError::Timeout { count: 0, .. }), "{err}");
    tx.send(ev(4, EventKind::ThoughtsChunk(Text { content: "hm".into() }))).unwrap();
    drop(tx);
    let err = wait_for_event(&mut rx, Duration::from_secs(1), |_| false).await.unwrap_err();
    assert!(matches!(err, WaitError::Closed { count: 1, .. }) && err.to_string().contains("thoughts_chunk"), "{err}");
}
