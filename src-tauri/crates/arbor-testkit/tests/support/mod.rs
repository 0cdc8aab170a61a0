//! Helpers for driving the scripted server with a plain HTTP client and
//! reading its SSE streams naively, the way a test can trust.

#![allow(dead_code)]

use arbor_testkit::{Scenario, ScriptedServer};
use futures::StreamExt;
use serde_json::{Value, json};

/// A plain HTTP client. reqwest's TLS is rustls with no cryptography chosen (Arbor's own
/// client brings its own); a client built the default way needs one installed first.
pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

pub async fn server(scenario_json: &str) -> ScriptedServer {
    let scenario = Scenario::from_json(scenario_json).unwrap();
    ScriptedServer::start(scenario).await.unwrap()
}

pub fn anthropic_body(messages: Value) -> Value {
    json!({"model": "claude-test", "max_tokens": 1024, "stream": true, "messages": messages})
}

pub fn openai_body(messages: Value) -> Value {
    json!({"model": "gpt-test", "stream": true, "messages": messages})
}

pub async fn post_anthropic(s: &ScriptedServer, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}/v1/messages", s.anthropic_base_url()))
        .header("x-api-key", "test-key")
        .header("anthropic-version", "2023-06-01")
        .json(body)
        .send()
        .await
        .unwrap()
}

pub async fn post_openai(s: &ScriptedServer, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}/chat/completions", s.openai_base_url()))
        .bearer_auth("test-key")
        .json(body)
        .send()
        .await
        .unwrap()
}

/// One SSE event: the `event:` name (if any) and the `data:` payload.
#[derive(Debug, Clone)]
pub struct Sse {
    pub event: Option<String>,
    pub data: String,
}

impl Sse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap()
    }
}

/// Reads the whole body as SSE; the error, if the body broke before its end.
pub async fn read_sse(resp: reqwest::Response) -> (Vec<Sse>, Option<reqwest::Error>) {
    let mut stream = resp.bytes_stream();
    let mut buf = String::new();
    let mut events = Vec::new();
    let mut error = None;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(bytes) => buf.push_str(std::str::from_utf8(&bytes).unwrap()),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            let mut ev = Sse { event: None, data: String::new() };
            for line in block.lines() {
                if let Some(name) = line.strip_prefix("event: ") {
                    ev.event = Some(name.to_string());
                } else if let Some(data) = line.strip_prefix("data: ") {
                    ev.data.push_str(data);
                }
            }
            events.push(ev);
        }
    }
    assert!(buf.is_empty() || error.is_some(), "trailing partial event: {buf:?}");
    (events, error)
}

/// Reads a stream that must end cleanly.
pub async fn sse_ok(resp: reqwest::Response) -> Vec<Sse> {
    assert_eq!(resp.status(), 200);
    let (events, error) = read_sse(resp).await;
    assert!(error.is_none(), "stream broke: {error:?}");
    events
}

/// Anthropic: the text, thinking and tool calls reassembled from the deltas.
#[derive(Debug, Default)]
pub struct Assembled {
    pub text: String,
    pub thinking: String,
    pub signature: String,
    /// (id, name, raw arguments, number of non-empty argument pieces)
    pub tools: Vec<(String, String, String, usize)>,
    pub stop_reason: String,
}

pub fn assemble_anthropic(events: &[Sse]) -> Assembled {
    let mut a = Assembled::default();
    for e in events {
        let v = e.json();
        assert_eq!(e.event.as_deref(), v["type"].as_str(), "event name and data type differ");
        match v["type"].as_str().unwrap() {
            "content_block_start" if v["content_block"]["type"] == "tool_use" => {
                let b = &v["content_block"];
                a.tools.push((b["id"].as_str().unwrap().into(), b["name"].as_str().unwrap().into(), String::new(), 0));
            }
            "content_block_delta" => {
                let d = &v["delta"];
                match d["type"].as_str().unwrap() {
                    "text_delta" => a.text.push_str(d["text"].as_str().unwrap()),
                    "thinking_delta" => a.thinking.push_str(d["thinking"].as_str().unwrap()),
                    "signature_delta" => a.signature.push_str(d["signature"].as_str().unwrap()),
                    "input_json_delta" => {
                        let piece = d["partial_json"].as_str().unwrap();
                        let tool = a.tools.last_mut().unwrap();
                        tool.2.push_str(piece);
                        tool.3 += usize::from(!piece.is_empty());
                    }
                    other => panic!("unexpected delta {other}"),
                }
            }
            "message_delta" => a.stop_reason = v["delta"]["stop_reason"].as_str().unwrap().into(),
            _ => {}
        }
    }
    a
}

/// OpenAI: the same reassembled from chunk deltas (finish reason in `stop_reason`).
pub fn assemble_openai(events: &[Sse]) -> Assembled {
    let mut a = Assembled::default();
    for e in events.iter().filter(|e| e.data != "[DONE]") {
        let v = e.json();
        let Some(choice) = v["choices"].get(0) else {
            continue;
        };
        let d = &choice["delta"];
        a.text.push_str(d["content"].as_str().unwrap_or_default());
        a.thinking.push_str(d["reasoning_content"].as_str().unwrap_or_default());
        for call in d["tool_calls"].as_array().into_iter().flatten() {
            let i = call["index"].as_u64().unwrap() as usize;
            if let Some(id) = call["id"].as_str() {
                assert_eq!(i, a.tools.len(), "tool call indices must be sequential");
                a.tools.push((id.into(), call["function"]["name"].as_str().unwrap().into(), String::new(), 0));
            }
            let piece = call["function"]["arguments"].as_str().unwrap_or_default();
            a.tools[i].2.push_str(piece);
            a.tools[i].3 += usize::from(!piece.is_empty());
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            a.stop_reason = reason.into();
        }
    }
    a
}
