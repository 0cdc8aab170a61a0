//! Fuzzing both providers' stream decoders with random server-sent events:
//! real event shapes with random fields, and garbage. Goal: errors, never a
//! panic or a hang. `ARBOR_FUZZ_SECONDS=600 cargo test -p arbor-core --release fuzz_`
//! runs each target for ten minutes.

use super::anthropic::AnthropicDecoder;
use super::http::Decoder;
use super::openai::OpenAiDecoder;
use arbor_testkit::fuzz::{fuzz, json_value, key, text};
use eventsource_stream::Event;
use proptest::prelude::*;
use serde_json::{Value, json};

/// A stream of SSE events: names from the API's vocabulary or anything; data a
/// plausible event with random values, any JSON, or any text.
fn events() -> impl Strategy<Value = Vec<(String, String)>> {
    let plausible = (
        prop::sample::select(
            &[
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
                "error",
                "ping",
            ][..],
        ),
        json_value(),
        json_value(),
        0u64..4,
    )
        .prop_map(|(kind, a, b, index)| {
            let data = match kind {
                "content_block_start" => json!({"type": kind, "index": index, "content_block": a}),
                "content_block_delta" => json!({"type": kind, "index": index, "delta": a}),
                "message_delta" => json!({"type": kind, "delta": a, "usage": b}),
                "message_start" => json!({"type": kind, "message": {"usage": a}}),
                "error" => json!({"type": kind, "error": a}),
                _ => json!({"type": kind}),
            };
            (kind.to_string(), data.to_string())
        });
    let openai = (json_value(), json_value(), 0u64..70, prop::option::of(text()))
        .prop_map(|(delta, usage, index, finish)| {
            let data = json!({"choices": [{"index": 0, "delta": {"content": delta.get("content"), "tool_calls": [{"index": index, "id": delta.get("id"), "function": {"name": delta.get("name"), "arguments": delta.get("arguments")}}]}, "finish_reason": finish}], "usage": usage});
            (String::new(), data.to_string())
        });
    let any_json = (key(), json_value()).prop_map(|(k, v)| (k, v.to_string()));
    let any_text = (text(), text());
    prop::collection::vec(
        prop_oneof![4 => plausible, 4 => openai, 1 => any_json, 1 => any_text, 1 => Just(("".into(), "[DONE]".into()))],
        0..24,
    )
}

fn feed<D: Decoder + Default>(events: &[(String, String)]) {
    let mut d = D::default();
    let mut ended = false;
    for (name, data) in events {
        let ev = Event { event: name.clone(), data: data.clone(), id: String::new(), retry: None };
        match d.on_event(&ev) {
            Ok((_, true)) => {
                ended = true;
                break;
            }
            Ok(_) => {}
            Err(_) => return,
        }
    }
    let _ = d.finish(ended);
}

#[test]
fn fuzz_anthropic_stream_decoder() {
    fuzz("anthropic SSE decoder", 5, events(), |evs| feed::<AnthropicDecoder>(&evs));
}

#[test]
fn fuzz_openai_stream_decoder() {
    fuzz("openai SSE decoder", 5, events(), |evs| feed::<OpenAiDecoder>(&evs));
}

#[test]
fn fuzz_tool_argument_decoding() {
    fuzz("tool arguments", 5, prop_oneof![text(), json_value().prop_map(|v| v.to_string())], |raw| {
        let (input, reason) = super::parse_tool_input(&raw);
        assert!(input.is_object());
        if let Some(r) = reason {
            assert!(r.len() < 1_000, "a short reason, whatever the input");
        }
    });
}

#[test]
fn a_decoder_survives_what_the_fuzzer_once_sent() {
    // Smoke: a plain stream decodes.
    let evs = vec![
        (
            "message_start".to_string(),
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 3}}}).to_string(),
        ),
        ("message_stop".to_string(), json!({"type": "message_stop"}).to_string()),
    ];
    feed::<AnthropicDecoder>(&evs);
    let _ = Value::Null;
}
