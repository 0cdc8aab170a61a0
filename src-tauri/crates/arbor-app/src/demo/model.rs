//! The demo's scripted model: an in-process [`Provider`] that plays the turns of
//! `tests/scenarios/demo.json` (the scenario format's rules, matched by request
//! content; the turn played is the number of assistant messages so far). No
//! server and no socket: the release binaries ship no test server, and the
//! agents, tools and approvals it drives are the real runtime.

use arbor_core::provider::{
    ModelRequest, ModelResponse, Provider, ProviderError, ResponseStream, StopReason, StreamEvent,
};
use arbor_protocol::{AssistantBlock, Message, Usage, UserBlock};
use async_trait::async_trait;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

#[derive(Debug, Deserialize)]
pub struct Script {
    rules: Vec<Rule>,
}

#[derive(Debug, Deserialize)]
struct Rule {
    #[serde(rename = "match", default)]
    matcher: Match,
    #[serde(default)]
    repeat_last: bool,
    turns: Vec<Turn>,
}

#[derive(Debug, Default, Deserialize)]
struct Match {
    first_user_contains: Option<String>,
    system_contains: Option<String>,
    last_user_contains: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct Turn {
    thinking: Option<String>,
    text: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolCall>,
    #[serde(default)]
    delay_ms: u64,
    /// The pause between two streamed pieces of text.
    #[serde(default)]
    chunk_delay_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
struct ToolCall {
    name: String,
    #[serde(default)]
    input: Value,
}

impl Script {
    pub fn parse(json: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(json)
    }

    fn turn(&self, request: &ModelRequest<'_>) -> Result<Turn, String> {
        let texts: Vec<String> = request
            .messages
            .iter()
            .filter_map(|m| match m {
                Message::User { content } => Some(
                    content
                        .iter()
                        .filter_map(|b| match b {
                            UserBlock::Text { text } => Some(text.as_str()),
                            UserBlock::ToolResult { .. } => None,
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                ),
                Message::Assistant { .. } => None,
            })
            .collect();
        let first = texts.first().map_or("", String::as_str);
        let last = texts.iter().rev().find(|t| !t.is_empty()).map_or("", String::as_str);
        let holds = |needle: &Option<String>, hay: &str| needle.as_deref().is_none_or(|n| hay.contains(n));
        let rule = self
            .rules
            .iter()
            .find(|r| {
                holds(&r.matcher.first_user_contains, first)
                    && holds(&r.matcher.system_contains, request.system)
                    && holds(&r.matcher.last_user_contains, last)
            })
            .ok_or_else(|| "the demo script has no answer to this request".to_string())?;
        let n = request.messages.iter().filter(|m| matches!(m, Message::Assistant { .. })).count();
        match rule.turns.get(n).or(rule.turns.last().filter(|_| rule.repeat_last)) {
            Some(t) => Ok(t.clone()),
            None => Err("the demo script has nothing more to say here".to_string()),
        }
    }
}

/// Plays [`Script`] as a model named `model`.
pub struct ScriptedModel {
    script: Script,
}

impl ScriptedModel {
    pub fn new(script: Script) -> Self {
        Self { script }
    }
}

/// Text streamed a few words at a time, as a model would.
fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut piece = String::new();
    for (i, word) in text.split_inclusive(' ').enumerate() {
        piece.push_str(word);
        if i % 3 == 2 {
            out.push(std::mem::take(&mut piece));
        }
    }
    if !piece.is_empty() {
        out.push(piece);
    }
    out
}

#[async_trait]
impl Provider for ScriptedModel {
    fn name(&self) -> &str {
        "anthropic"
    }

    async fn stream(&self, request: ModelRequest<'_>) -> Result<ResponseStream, ProviderError> {
        let turn = self.script.turn(&request).map_err(|reason| ProviderError::Decode { provider: "demo", reason })?;
        let turn_no = request.messages.iter().filter(|m| matches!(m, Message::Assistant { .. })).count();
        let input_chars: usize = request.messages.iter().map(|m| serde_json::to_string(m).map_or(0, |s| s.len())).sum();
        let mut events = Vec::new();
        let mut content = Vec::new();
        if let Some(t) = &turn.thinking {
            events.extend(pieces(t).into_iter().map(StreamEvent::ThinkingDelta));
            content.push(AssistantBlock::Thinking { thinking: t.clone(), signature: None });
        }
        if let Some(t) = &turn.text {
            events.extend(pieces(t).into_iter().map(StreamEvent::TextDelta));
            content.push(AssistantBlock::Text { text: t.clone() });
        }
        for (i, call) in turn.tool_calls.iter().enumerate() {
            content.push(AssistantBlock::ToolUse {
                id: format!("toolu_demo_{turn_no}_{i}"),
                name: call.name.clone(),
                input: call.input.clone(),
            });
        }
        let output_chars: usize =
            turn.text.as_deref().map_or(0, str::len) + turn.thinking.as_deref().map_or(0, str::len);
        let stop_reason = if turn.tool_calls.is_empty() { StopReason::EndTurn } else { StopReason::ToolUse };
        events.push(StreamEvent::Completed(ModelResponse {
            content,
            usage: Usage {
                input_tokens: (input_chars / 4) as u64,
                output_tokens: (output_chars / 4).max(1) as u64,
                ..Usage::default()
            },
            stop_reason,
            invalid_tool_inputs: Vec::new(),
        }));
        let first = Duration::from_millis(turn.delay_ms);
        let pace = Duration::from_millis(turn.chunk_delay_ms);
        let stream = futures::stream::iter(events.into_iter().enumerate()).then(move |(i, ev)| async move {
            tokio::time::sleep(if i == 0 { first } else { pace }).await;
            Ok(ev)
        });
        Ok(stream.boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn it_plays_the_rule_a_request_matches_turn_by_turn() {
        let script = Script::parse(
            r#"{"rules": [
                {"match": {"first_user_contains": "TODO"}, "turns": [
                    {"text": "Searching now for it", "tool_calls": [{"name": "Grep", "input": {"pattern": "TODO"}}]},
                    {"text": "found one"}
                ]}
            ]}"#,
        )
        .unwrap();
        let model = ScriptedModel::new(script);
        let mut history = vec![Message::user_text("find the TODO")];
        fn req(h: &[Message]) -> ModelRequest<'_> {
            ModelRequest { model: "m", system: "", messages: h, tools: &[], max_tokens: 100 }
        }
        let events: Vec<_> = model.stream(req(&history)).await.unwrap().collect().await;
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                Ok(StreamEvent::TextDelta(t)) => Some(t.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(text, "Searching now for it");
        let Some(Ok(StreamEvent::Completed(done))) = events.last() else { panic!("{events:?}") };
        assert_eq!(done.stop_reason, StopReason::ToolUse);
        history.push(Message::Assistant { content: done.content.clone() });
        history.push(Message::User {
            content: vec![UserBlock::ToolResult {
                call_id: "toolu_demo_0_0".into(),
                content: "x".into(),
                is_error: false,
            }],
        });
        let events: Vec<_> = model.stream(req(&history)).await.unwrap().collect().await;
        let Some(Ok(StreamEvent::Completed(done))) = events.last() else { panic!() };
        assert_eq!(done.stop_reason, StopReason::EndTurn);
        history.push(Message::Assistant { content: done.content.clone() });
        assert!(model.stream(req(&history)).await.is_err(), "nothing after the last turn");
        assert!(model.stream(req(&[Message::user_text("unrelated")])).await.is_err());
    }
}
