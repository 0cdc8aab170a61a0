//! Reads the routing-relevant facts out of a request body, leniently, so even
//! malformed requests can be recorded with what could be understood.

use crate::Api;
use serde_json::Value;

/// What routing and placeholders need from a request.
#[derive(Clone, Debug, Default)]
pub(crate) struct Conversation {
    pub first_user: String,
    pub last_user: String,
    pub system: String,
    pub assistant_count: usize,
    pub last_tool_result: String,
    pub model: String,
}

impl Conversation {
    pub fn of(api: Api, body: &Value) -> Self {
        let messages = body.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let users: Vec<&Value> = messages.iter().filter(|m| role(m) == "user").collect();
        let user_text = |m: Option<&&Value>| m.map(|m| text_of(m.get("content"))).unwrap_or_default();
        let mut conv = Conversation {
            first_user: user_text(users.first()),
            last_user: user_text(users.last()),
            assistant_count: messages.iter().filter(|m| role(m) == "assistant").count(),
            model: body.get("model").and_then(Value::as_str).unwrap_or_default().to_string(),
            ..Conversation::default()
        };
        match api {
            Api::Anthropic => {
                conv.system = text_of(body.get("system"));
                conv.last_tool_result = users
                    .last()
                    .and_then(|m| m.get("content"))
                    .and_then(Value::as_array)
                    .and_then(|blocks| {
                        blocks.iter().rev().find(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                    })
                    .map(|b| text_of(b.get("content")))
                    .unwrap_or_default();
            }
            Api::OpenAi => {
                let systems: Vec<String> = messages
                    .iter()
                    .filter(|m| matches!(role(m), "system" | "developer"))
                    .map(|m| text_of(m.get("content")))
                    .collect();
                conv.system = systems.join("\n");
                conv.last_tool_result = messages
                    .iter()
                    .rev()
                    .find(|m| role(m) == "tool")
                    .map(|m| text_of(m.get("content")))
                    .unwrap_or_default();
            }
        }
        conv
    }
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or_default()
}

/// A content value's text: a string, or the `text` of its text blocks/parts
/// joined by newlines (tool results and images are not text).
pub(crate) fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// At most `max` characters, with an ellipsis when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// A stable short hash (FNV-1a) so generated ids are deterministic across runs.
pub(crate) fn short_hash(s: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:08x}", h & 0xffff_ffff)
}
