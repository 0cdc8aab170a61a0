//! The Anthropic Messages API streaming format: `event:` + `data:` SSE pairs
//! from `message_start` to `message_stop`, and its error bodies.

use crate::play::{Play, chunks, json_pieces, sse};
use serde_json::{Value, json};

/// The SSE events of one response, in order, each a complete `event:/data:` pair.
pub(crate) fn events(play: &Play) -> Vec<String> {
    let ev = |name: &str, data: Value| sse(Some(name), &data.to_string());
    let mut out = vec![
        ev(
            "message_start",
            json!({"type": "message_start", "message": {
                "id": play.id, "type": "message", "role": "assistant", "model": play.model,
                "content": [], "stop_reason": null, "stop_sequence": null,
                // Like the real API: a token or so of output here, the cumulative count in message_delta.
                "usage": {"input_tokens": play.usage.input_tokens, "output_tokens": 1,
                          "cache_creation_input_tokens": play.usage.cache_write_tokens,
                          "cache_read_input_tokens": play.usage.cache_read_tokens}}}),
        ),
        ev("ping", json!({"type": "ping"})),
    ];
    let mut index = 0;
    let mut block = |out: &mut Vec<String>, start: Value, deltas: Vec<Delta<'_>>| {
        out.push(ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        out.extend(deltas.into_iter().map(|d| sse(Some("content_block_delta"), &d.data(index))));
        out.push(ev("content_block_stop", json!({"type": "content_block_stop", "index": index})));
        index += 1;
    };
    if let Some(thinking) = &play.thinking {
        let mut deltas: Vec<Delta<'_>> =
            chunks(thinking).into_iter().map(|c| Delta("thinking_delta", "thinking", c)).collect();
        deltas.push(Delta("signature_delta", "signature", &play.signature));
        block(&mut out, json!({"type": "thinking", "thinking": "", "signature": ""}), deltas);
    }
    if let Some(text) = &play.text {
        let deltas = chunks(text).into_iter().map(|c| Delta("text_delta", "text", c)).collect();
        block(&mut out, json!({"type": "text", "text": ""}), deltas);
    }
    for tool in &play.tools {
        // The real API opens every tool input with an empty partial_json.
        let deltas = std::iter::once("")
            .chain(json_pieces(&tool.arguments))
            .map(|p| Delta("input_json_delta", "partial_json", p))
            .collect();
        block(&mut out, json!({"type": "tool_use", "id": tool.id, "name": tool.name, "input": {}}), deltas);
    }
    if let Some(err) = &play.error_event {
        out.push(ev("error", json!({"type": "error", "error": {"type": err.kind, "message": err.message}})));
        return out;
    }
    out.push(ev(
        "message_delta",
        json!({"type": "message_delta",
               "delta": {"stop_reason": stop_reason(play), "stop_sequence": null},
               "usage": {"output_tokens": play.usage.output_tokens}}),
    ));
    out.push(ev("message_stop", json!({"type": "message_stop"})));
    out
}

/// A `content_block_delta`'s delta: its type, the field that holds its piece, the piece.
struct Delta<'a>(&'static str, &'static str, &'a str);

impl Delta<'_> {
    /// The event's data, as `json!` would write it, without building a JSON tree for each
    /// of a long stream's thousands of deltas (the UI bench's server sends 15,000 a second).
    fn data(&self, index: usize) -> String {
        let Delta(kind, field, piece) = self;
        let piece = Value::from(*piece);
        format!(r#"{{"type":"content_block_delta","index":{index},"delta":{{"type":"{kind}","{field}":{piece}}}}}"#)
    }
}

fn stop_reason(play: &Play) -> String {
    match play.stop_reason.as_deref() {
        Some("length") => "max_tokens".into(),
        Some("stop") => "end_turn".into(),
        Some("tool_calls") => "tool_use".into(),
        Some(other) => other.into(),
        None if play.tools.is_empty() => "end_turn".into(),
        None => "tool_use".into(),
    }
}

/// The error `type` the real API uses for an HTTP status.
pub(crate) fn error_type(status: u16) -> &'static str {
    match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        500..=599 => "api_error",
        _ => "invalid_request_error",
    }
}

pub(crate) fn error_body(status: u16, message: &str, request_id: &str) -> Value {
    json!({"type": "error", "error": {"type": error_type(status), "message": message}, "request_id": request_id})
}

#[cfg(test)]
mod tests {
    use super::Delta;
    use serde_json::json;

    #[test]
    fn a_delta_is_written_as_json_writes_it() {
        for piece in ["", "plain", "quote \" backslash \\ newline \n tab \t", "\u{1} control, ünïcode ✓"] {
            let expected =
                json!({"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": piece}});
            assert_eq!(Delta("text_delta", "text", piece).data(3), expected.to_string());
        }
    }
}
