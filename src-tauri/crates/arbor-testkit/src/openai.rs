//! The OpenAI Chat Completions streaming format: `data:` lines carrying
//! `chat.completion.chunk` objects, ended by `data: [DONE]`, and its error bodies.

use crate::play::{Play, chunks, json_pieces, sse};
use serde_json::{Value, json};

/// The SSE events of one response, in order, each a complete `data:` line pair.
pub(crate) fn events(play: &Play, created: u64) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let mut c = json!({
            "id": play.id, "object": "chat.completion.chunk", "created": created, "model": play.model,
            "system_fingerprint": "fp_testkit",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        if play.include_usage {
            // The real API puts `usage: null` on every chunk but the last when usage is requested.
            c["usage"] = Value::Null;
        }
        sse(None, &c.to_string())
    };
    let tool_header = |i: usize| {
        let t = &play.tools[i];
        json!([{"index": i, "id": t.id, "type": "function", "function": {"name": t.name, "arguments": ""}}])
    };
    let mut out = Vec::new();
    let tools_only = play.thinking.is_none() && play.text.is_none() && !play.tools.is_empty();
    if tools_only {
        // Like the real API: a tool-only answer opens with content null and the first call.
        out.push(chunk(
            json!({"role": "assistant", "content": null, "tool_calls": tool_header(0), "refusal": null}),
            Value::Null,
        ));
    } else {
        out.push(chunk(json!({"role": "assistant", "content": "", "refusal": null}), Value::Null));
    }
    if let Some(thinking) = &play.thinking {
        for c in chunks(thinking) {
            out.push(chunk(json!({"content": null, "reasoning_content": c}), Value::Null));
        }
    }
    if let Some(text) = &play.text {
        for c in chunks(text) {
            out.push(chunk(json!({"content": c}), Value::Null));
        }
    }
    for (i, tool) in play.tools.iter().enumerate() {
        if !(tools_only && i == 0) {
            out.push(chunk(json!({"tool_calls": tool_header(i)}), Value::Null));
        }
        for piece in json_pieces(&tool.arguments) {
            let call = if play.repeat_tool_header {
                // llama-cpp-python's shape: id and name again in every delta.
                json!([{"index": i, "id": tool.id, "type": "function", "function": {"name": tool.name, "arguments": piece}}])
            } else {
                json!([{"index": i, "function": {"arguments": piece}}])
            };
            out.push(chunk(json!({"tool_calls": call}), Value::Null));
        }
    }
    if let Some(err) = &play.error_event {
        let body = json!({"error": {"message": err.message, "type": err.kind, "param": null, "code": null}});
        out.push(sse(None, &body.to_string()));
        return out;
    }
    out.push(chunk(json!({}), json!(finish_reason(play))));
    if play.include_usage {
        let u = &play.usage;
        let prompt = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
        let usage = json!({"id": play.id, "object": "chat.completion.chunk", "created": created, "model": play.model,
            "system_fingerprint": "fp_testkit", "choices": [],
            // OpenAI counts cached tokens inside prompt_tokens.
            "usage": {"prompt_tokens": prompt, "completion_tokens": u.output_tokens,
                      "total_tokens": prompt + u.output_tokens,
                      "prompt_tokens_details": {"cached_tokens": u.cache_read_tokens, "audio_tokens": 0},
                      "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}});
        out.push(sse(None, &usage.to_string()));
    }
    out.push(sse(None, "[DONE]"));
    out
}

fn finish_reason(play: &Play) -> String {
    match play.stop_reason.as_deref() {
        Some("max_tokens") => "length".into(),
        Some("end_turn" | "stop_sequence") => "stop".into(),
        Some("tool_use") => "tool_calls".into(),
        Some(other) => other.into(),
        None if play.tools.is_empty() => "stop".into(),
        None => "tool_calls".into(),
    }
}

/// OpenAI's refusal of a request longer than the model's window, word for word.
pub(crate) fn overflow_body(tokens: u64, window: u64) -> Value {
    json!({"error": {
        "message": format!("This model's maximum context length is {window} tokens. However, your messages resulted in \
                            {tokens} tokens. Please reduce the length of the messages."),
        "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
}

pub(crate) fn error_body(status: u16, message: &str) -> Value {
    let (kind, code) = match status {
        401 => ("invalid_request_error", json!("invalid_api_key")),
        403 => ("permission_error", Value::Null),
        404 => ("invalid_request_error", json!("model_not_found")),
        429 => ("requests", json!("rate_limit_exceeded")),
        529 => ("server_error", json!("overloaded")),
        500..=599 => ("server_error", Value::Null),
        _ => ("invalid_request_error", Value::Null),
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}
