//! A turn resolved against one request (placeholders filled, ids and usage
//! computed), ready for either API's encoder.

use crate::Api;
use crate::request::{Conversation, short_hash};
use crate::scenario::{ErrorEvent, Turn, UsageSpec};

/// Text and thinking deltas carry about this many characters each.
const CHUNK_CHARS: usize = 16;

#[derive(Clone, Debug)]
pub(crate) struct Play {
    pub id: String,
    pub model: String,
    pub thinking: Option<String>,
    pub signature: String,
    pub text: Option<String>,
    pub tools: Vec<PlayTool>,
    /// The override as written in the scenario, not yet translated.
    pub stop_reason: Option<String>,
    pub usage: UsageSpec,
    pub error_event: Option<ErrorEvent>,
    /// OpenAI only: `stream_options.include_usage`.
    pub include_usage: bool,
    /// OpenAI only: every tool-call delta repeats the call's id, type and name.
    pub repeat_tool_header: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct PlayTool {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// Where the turn was found, for deterministic ids.
pub(crate) struct Slot {
    pub rule: usize,
    pub turn: usize,
}

impl Play {
    pub fn new(api: Api, turn: &Turn, conv: &Conversation, slot: Slot, model: &str, request_chars: usize) -> Self {
        // The first user text keeps ids distinct between agents matched by the same rule.
        let tag = format!("{}r{}t{}", short_hash(&conv.first_user), slot.rule, slot.turn);
        let fill = |s: &String| {
            s.replace("{{last_tool_result}}", &conv.last_tool_result).replace("{{first_user}}", &conv.first_user)
        };
        let tools: Vec<PlayTool> = turn
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, call)| PlayTool {
                id: call.id.clone().unwrap_or_else(|| match api {
                    Api::Anthropic => format!("toolu_01{tag}i{i}"),
                    Api::OpenAi => format!("call_{tag}i{i}"),
                }),
                name: call.name.clone(),
                arguments: call.arguments(),
            })
            .collect();
        let thinking = turn.thinking.as_ref().map(fill);
        let text = turn.text.as_ref().map(fill);
        let usage = turn.usage.unwrap_or_else(|| {
            let out_chars = thinking.as_ref().map_or(0, String::len)
                + text.as_ref().map_or(0, String::len)
                + tools.iter().map(|t| t.name.len() + t.arguments.len()).sum::<usize>();
            UsageSpec {
                input_tokens: tokens(request_chars),
                output_tokens: tokens(out_chars),
                cache_read_tokens: 0,
                cache_write_tokens: 0,
            }
        });
        Play {
            id: match api {
                Api::Anthropic => format!("msg_01{tag}"),
                Api::OpenAi => format!("chatcmpl-{tag}"),
            },
            model: model.to_string(),
            thinking,
            signature: format!("EqTestkitSignature{tag}"),
            text,
            tools,
            stop_reason: turn.stop_reason.clone(),
            usage,
            error_event: turn.error_event.clone(),
            include_usage: false,
            repeat_tool_header: turn.repeat_tool_header,
        }
    }
}

/// One SSE event: an optional `event:` line, then the `data:` line.
pub(crate) fn sse(event: Option<&str>, data: &str) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// Roughly four characters a token, never zero.
/// The server's token count: a request's or an answer's characters over four.
pub(crate) fn tokens(chars: usize) -> u64 {
    u64::try_from(chars / 4 + 1).unwrap_or(u64::MAX)
}

/// Splits text into pieces of about [`CHUNK_CHARS`] characters, on char boundaries.
pub(crate) fn chunks(s: &str) -> Vec<&str> {
    split_every(s, CHUNK_CHARS)
}

/// Splits tool arguments so they always arrive in at least two pieces (when
/// there are at least two characters), as real streams do.
pub(crate) fn json_pieces(s: &str) -> Vec<&str> {
    let n = s.chars().count();
    split_every(s, CHUNK_CHARS.min(n.div_ceil(2)).max(1))
}

fn split_every(s: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (count, (at, _)) in s.char_indices().enumerate() {
        if count > 0 && count % n == 0 {
            out.push(&s[start..at]);
            start = at;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_char_boundaries() {
        let s = "héllo wörld, this is a löng text with ünïcode";
        let parts = chunks(s);
        assert!(parts.len() > 2);
        assert_eq!(parts.concat(), s);
        assert!(parts.iter().all(|p| p.chars().count() <= CHUNK_CHARS));
        assert_eq!(json_pieces("{}"), vec!["{", "}"]);
        assert_eq!(json_pieces("{\"a\":1}").len(), 2);
        assert!(json_pieces("").is_empty());
        assert!(chunks("").is_empty());
    }
}
