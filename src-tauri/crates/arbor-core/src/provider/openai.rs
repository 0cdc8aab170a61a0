//! OpenAI's Chat Completions API, streamed, with tool_calls deltas. The same
//! client serves Ollama, llama.cpp's server, vLLM, LM Studio and OpenRouter by
//! base URL; their reasoning deltas (`reasoning_content` / `reasoning`) become thinking.

use super::http::{self, Decoder, Timeouts};
use super::{ApiKey, ModelRequest, ModelResponse, Provider, ProviderError, ResponseStream, StopReason, StreamEvent};
use arbor_protocol::{AssistantBlock, Message, Usage, UserBlock};
use async_trait::async_trait;
use eventsource_stream::Event;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;

pub use arbor_protocol::provider::OPENAI_DEFAULT_BASE_URL as DEFAULT_BASE_URL;
const PROVIDER: &str = "openai";

#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// Up to and including `/v1`, as `OPENAI_BASE_URL` is given to the SDKs.
    pub base_url: String,
    /// Local servers need none; api.openai.com does.
    pub api_key: Option<ApiKey>,
    pub timeouts: Timeouts,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self { base_url: DEFAULT_BASE_URL.to_string(), api_key: None, timeouts: Timeouts::default() }
    }
}

pub struct OpenAiProvider {
    config: OpenAiConfig,
    client: reqwest::Client,
    served: super::served::ServedWindows,
}

impl OpenAiProvider {
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        let client = http::client(&config.timeouts)?;
        Ok(Self { config, client, served: Default::default() })
    }

    /// The request body, borrowed from the request: serialised straight from the
    /// history, so nothing of a long conversation is copied into a JSON tree first.
    fn body<'a>(&self, req: &ModelRequest<'a>) -> Body<'a> {
        let mut msgs = Vec::with_capacity(req.messages.len() + 1);
        if !req.system.is_empty() {
            msgs.push(WireMessage::System { content: req.system });
        }
        messages_into(req.messages, &mut msgs);
        Body {
            model: req.model,
            stream: true,
            stream_options: StreamOptions { include_usage: true },
            messages: msgs,
            tools: req
                .tools
                .iter()
                .map(|t| WireTool {
                    kind: "function",
                    function: WireFunction { name: &t.name, description: &t.description, parameters: &t.input_schema },
                })
                .collect(),
            limit: OutputLimit::for_server(&self.config.base_url, req.max_tokens),
        }
    }
}

#[async_trait]
impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        PROVIDER
    }

    async fn stream(&self, req: ModelRequest<'_>) -> Result<ResponseStream, ProviderError> {
        let base = self.config.base_url.trim_end_matches('/');
        if self.config.api_key.is_none() && base == DEFAULT_BASE_URL {
            return Err(ProviderError::MissingApiKey { provider: PROVIDER, env_var: "OPENAI_API_KEY" });
        }
        let url = format!("{base}/chat/completions");
        let mut request = self.client.post(&url).header("accept", "text/event-stream").json(&self.body(&req));
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key.expose());
        }
        let response = http::send(PROVIDER, &url, request, &self.config.timeouts).await?;
        Ok(http::decode(response, OpenAiDecoder::default(), self.config.timeouts.idle))
    }

    /// Asked of compatible servers only: OpenAI's own models are in the table.
    async fn served_window(&self, model: &str) -> Option<u64> {
        let base = self.config.base_url.trim_end_matches('/');
        if base == DEFAULT_BASE_URL {
            return None;
        }
        self.served.get(&self.client, base, model).await
    }
}

/// The request body of the Chat Completions API.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    stream: bool,
    stream_options: StreamOptions,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(flatten)]
    limit: OutputLimit,
}

/// The output limit, under the field the server reads: OpenAI's own models take only
/// `max_completion_tokens` (its reasoning models reject `max_tokens`), while the
/// compatible servers (llama.cpp, Ollama, vLLM) all read `max_tokens`. Sent on every
/// request: without it a local server generates until its window is full.
#[derive(Serialize)]
enum OutputLimit {
    #[serde(rename = "max_completion_tokens")]
    MaxCompletionTokens(u32),
    #[serde(rename = "max_tokens")]
    MaxTokens(u32),
}

impl OutputLimit {
    fn for_server(base_url: &str, max_tokens: u32) -> Self {
        if base_url.trim_end_matches('/') == DEFAULT_BASE_URL {
            Self::MaxCompletionTokens(max_tokens)
        } else {
            Self::MaxTokens(max_tokens)
        }
    }
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: Cow<'a, str>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
    Assistant {
        /// Null, not absent, when the message only calls tools.
        content: Option<Cow<'a, str>>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireCall<'a>>,
    },
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireCallFunction<'a>,
}

#[derive(Serialize)]
struct WireCallFunction<'a> {
    name: &'a str,
    /// A JSON string, as the API wants it.
    arguments: String,
}

/// Several parts joined by `sep`; a single part is borrowed, not copied.
fn join<'a>(parts: &[&'a str], sep: &str) -> Cow<'a, str> {
    match parts {
        [one] => Cow::Borrowed(one),
        _ => Cow::Owned(parts.join(sep)),
    }
}

/// The history in Chat Completions' shape: tool results become `tool` messages
/// right after the assistant message that called them; thinking is not sent back.
#[cfg(test)]
fn messages(history: &[Message]) -> Vec<WireMessage<'_>> {
    let mut out = Vec::new();
    messages_into(history, &mut out);
    out
}

fn messages_into<'a>(history: &'a [Message], out: &mut Vec<WireMessage<'a>>) {
    let mut texts: Vec<&str> = Vec::new();
    for msg in history {
        texts.clear();
        match msg {
            Message::User { content } => {
                for block in content {
                    match block {
                        UserBlock::ToolResult { call_id, content, .. } => {
                            out.push(WireMessage::Tool { tool_call_id: call_id, content });
                        }
                        UserBlock::Text { text } if !text.is_empty() => texts.push(text.as_str()),
                        UserBlock::Text { .. } => {}
                    }
                }
                if !texts.is_empty() {
                    out.push(WireMessage::User { content: join(&texts, "\n\n") });
                }
            }
            Message::Assistant { content } => {
                // As `Message::assistant_text`: the text blocks joined, empty ones included.
                texts.extend(content.iter().filter_map(|b| match b {
                    AssistantBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                }));
                let text = join(&texts, "");
                let tool_calls: Vec<WireCall<'_>> = content
                    .iter()
                    .filter_map(|b| match b {
                        AssistantBlock::ToolUse { id, name, input } => Some(WireCall {
                            id,
                            kind: "function",
                            function: WireCallFunction { name, arguments: input.to_string() },
                        }),
                        _ => None,
                    })
                    .collect();
                if text.is_empty() && tool_calls.is_empty() {
                    continue;
                }
                let content = (!text.is_empty()).then_some(text);
                out.push(WireMessage::Assistant { content, tool_calls });
            }
        }
    }
}

#[derive(Default)]
struct ToolCallAcc {
    id: String,
    name: String,
    arguments: String,
    /// The id its pieces were passed on under, once its name was known: the call keeps it,
    /// whatever id a server sends later (or never).
    shown: Option<String>,
}

/// A call's id, or the one Arbor gives a call whose server sent none.
fn call_id(id: &str, index: usize) -> String {
    if id.is_empty() { format!("call_{index}") } else { id.to_string() }
}

#[derive(Default)]
pub(super) struct OpenAiDecoder {
    text: String,
    thinking: String,
    calls: Vec<ToolCallAcc>,
    usage: Usage,
    finish_reason: Option<String>,
}

impl Decoder for OpenAiDecoder {
    const PROVIDER: &'static str = PROVIDER;

    fn on_event(&mut self, event: &Event) -> Result<(Vec<StreamEvent>, bool), ProviderError> {
        if event.data.trim() == "[DONE]" {
            return Ok((Vec::new(), true));
        }
        let data = http::json::<Self>(event)?;
        if let Some(err) = data.get("error") {
            let kind = err.get("type").or_else(|| err.get("code")).and_then(Value::as_str).unwrap_or("error");
            let message = err.get("message").and_then(Value::as_str).unwrap_or("unknown error");
            return Err(ProviderError::Api {
                provider: PROVIDER,
                kind: kind.to_string(),
                message: message.to_string(),
            });
        }
        if let Some(u) = data.get("usage").filter(|u| !u.is_null()) {
            let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
            let cached = n("/prompt_tokens_details/cached_tokens");
            self.usage.input_tokens = n("/prompt_tokens").saturating_sub(cached);
            self.usage.cache_read_tokens = cached;
            self.usage.output_tokens = n("/completion_tokens");
        }
        let mut out = Vec::new();
        let Some(choice) = data.pointer("/choices/0") else { return Ok((out, false)) };
        let delta = choice.get("delta").cloned().unwrap_or(Value::Null);
        if let Some(t) = delta.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
            self.text.push_str(t);
            out.push(StreamEvent::TextDelta(t.to_string()));
        }
        let reasoning = delta.get("reasoning_content").or_else(|| delta.get("reasoning")).and_then(Value::as_str);
        if let Some(t) = reasoning.filter(|t| !t.is_empty()) {
            self.thinking.push_str(t);
            out.push(StreamEvent::ThinkingDelta(t.to_string()));
        }
        for call in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            let index = call.get("index").and_then(Value::as_u64).map(|i| i as usize).unwrap_or(self.calls.len());
            if index > self.calls.len() + 64 {
                return Err(ProviderError::Decode {
                    provider: PROVIDER,
                    reason: format!("tool call index {index} out of range"),
                });
            }
            if self.calls.len() <= index {
                self.calls.resize_with(index + 1, ToolCallAcc::default);
            }
            let acc = &mut self.calls[index];
            // Some servers repeat the id in every delta, some as "" after the first.
            if let Some(id) = call.get("id").and_then(Value::as_str).filter(|id| !id.is_empty()) {
                acc.id = id.to_string();
            }
            // The name comes once (OpenAI), or again in every delta (llama-cpp-python
            // and others): a repeat of the whole name so far is not more of it.
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str)
                && acc.name != name
            {
                acc.name.push_str(name);
            }
            let args = call.pointer("/function/arguments").and_then(Value::as_str).unwrap_or_default();
            acc.arguments.push_str(args);
            if acc.name.is_empty() {
                continue;
            }
            let piece = match &acc.shown {
                Some(id) => (!args.is_empty()).then(|| (id.clone(), args.to_string())),
                // The first piece shown carries whatever arrived before the name.
                None => {
                    let id = call_id(&acc.id, index);
                    acc.shown = Some(id.clone());
                    Some((id, acc.arguments.clone()))
                }
            };
            if let Some((call_id, json)) = piece {
                out.push(StreamEvent::ToolInputDelta { call_id, name: acc.name.clone(), json });
            }
        }
        if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(r.to_string());
        }
        Ok((out, false))
    }

    fn finish(self, saw_end: bool) -> Result<ModelResponse, ProviderError> {
        // Some servers close without [DONE]; a finish_reason is as good an end marker.
        if !saw_end && self.finish_reason.is_none() {
            return Err(ProviderError::StreamBroken {
                provider: PROVIDER,
                reason: "the stream ended before [DONE] or a finish_reason".to_string(),
            });
        }
        let mut content = Vec::new();
        if !self.thinking.is_empty() {
            content.push(AssistantBlock::Thinking { thinking: self.thinking, signature: None });
        }
        if !self.text.is_empty() {
            content.push(AssistantBlock::Text { text: self.text });
        }
        let mut invalid_tool_inputs = Vec::new();
        for (i, call) in self.calls.into_iter().enumerate() {
            if call.name.is_empty() && call.arguments.is_empty() {
                continue;
            }
            let id = call.shown.unwrap_or_else(|| call_id(&call.id, i));
            let (input, invalid) = super::parse_tool_input(&call.arguments);
            if let Some(reason) = invalid {
                invalid_tool_inputs.push((id.clone(), reason));
            }
            content.push(AssistantBlock::ToolUse { id, name: call.name, input });
        }
        let has_calls = content.iter().any(|b| matches!(b, AssistantBlock::ToolUse { .. }));
        let stop_reason = match self.finish_reason.as_deref() {
            Some(r) => StopReason::from_wire(r),
            None if has_calls => StopReason::ToolUse,
            None => StopReason::EndTurn,
        };
        Ok(ModelResponse { content, usage: self.usage, stop_reason, invalid_tool_inputs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::fixtures::{rich_history, two_tools};
    use serde_json::json;

    fn event(data: Value) -> eventsource_stream::Event {
        eventsource_stream::Event { data: data.to_string(), ..Default::default() }
    }

    /// Automatic prefix caching (OpenAI, vLLM, llama.cpp) hits only when each
    /// request starts with the previous one byte for byte: the same tools, and
    /// the previous messages serialised exactly as they were.
    #[test]
    fn each_request_starts_with_the_previous_one_byte_for_byte() {
        let p = OpenAiProvider::new(OpenAiConfig::default()).unwrap();
        let tools = two_tools();
        let mut history = rich_history();
        let mut previous: Option<(Vec<String>, String)> = None;
        for turn in 0..3 {
            let req = ModelRequest { model: "m", system: "sys", messages: &history, tools: &tools, max_tokens: 100 };
            let body = serde_json::to_value(p.body(&req)).unwrap();
            let msgs: Vec<String> =
                body["messages"].as_array().unwrap().iter().map(|m| serde_json::to_string(m).unwrap()).collect();
            let tools_json = serde_json::to_string(&body["tools"]).unwrap();
            if let Some((prev, prev_tools)) = &previous {
                assert_eq!(&tools_json, prev_tools, "turn {turn}: the tools changed");
                assert_eq!(&msgs[..prev.len()], &prev[..], "turn {turn}: an earlier message changed");
            }
            previous = Some((msgs, tools_json));
            history.push(Message::Assistant {
                content: vec![AssistantBlock::ToolUse {
                    id: format!("c{turn}"),
                    name: "Read".into(),
                    input: json!({"file_path": "a"}),
                }],
            });
            history.push(Message::User {
                content: vec![UserBlock::ToolResult {
                    call_id: format!("c{turn}"),
                    content: "x".into(),
                    is_error: false,
                }],
            });
        }
    }

    /// Servers that send a call's arguments before its name, its id late, or "" as the id
    /// after the first delta: one call, its pieces under one id, which the call keeps.
    #[test]
    fn a_calls_streamed_pieces_keep_one_id_and_carry_what_came_before_its_name() {
        let deltas = [
            json!([{"index": 0, "function": {"arguments": "{\"file_"}}]),
            json!([{"index": 0, "function": {"name": "Read", "arguments": "path\": "}}]),
            json!([{"index": 0, "id": "call_late", "function": {"arguments": "\"a\"}"}}]),
            json!([{"index": 1, "id": "c2", "function": {"name": "Glob", "arguments": ""}}]),
            json!([{"index": 1, "id": "", "function": {"arguments": "{}"}}]),
        ];
        let mut d = OpenAiDecoder::default();
        let mut pieces: Vec<(String, String, String)> = Vec::new();
        for tc in deltas {
            let (out, _) = d.on_event(&event(json!({"choices": [{"delta": {"tool_calls": tc}}]}))).unwrap();
            for e in out {
                if let StreamEvent::ToolInputDelta { call_id, name, json } = e {
                    pieces.push((call_id, name, json));
                }
            }
        }
        let (_, end) = d.on_event(&event(json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}))).unwrap();
        assert!(!end);
        let response = d.finish(true).unwrap();
        let ids: Vec<&str> = response
            .content
            .iter()
            .filter_map(|b| match b {
                AssistantBlock::ToolUse { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        // The first call was shown before its id came: it keeps the id it was shown under.
        assert_eq!(ids, ["call_0", "c2"]);
        let first: String = pieces.iter().filter(|p| p.0 == "call_0").map(|p| p.2.as_str()).collect();
        assert_eq!(first, r#"{"file_path": "a"}"#);
        assert!(pieces.iter().all(|p| p.0 == "call_0" || p.0 == "c2"), "{pieces:?}");
        let second: String = pieces.iter().filter(|p| p.0 == "c2").map(|p| p.2.as_str()).collect();
        assert_eq!(second, "{}");
    }

    #[test]
    fn tool_results_follow_their_call_and_steering_text_comes_after() {
        let history = vec![
            Message::user_text("hi"),
            Message::Assistant {
                content: vec![
                    AssistantBlock::Thinking { thinking: "hmm".into(), signature: None },
                    AssistantBlock::ToolUse { id: "c1".into(), name: "Read".into(), input: json!({"file_path": "a"}) },
                ],
            },
            Message::User {
                content: vec![
                    UserBlock::ToolResult { call_id: "c1".into(), content: "x".into(), is_error: false },
                    UserBlock::Text { text: "also this".into() },
                ],
            },
        ];
        let v = serde_json::to_value(messages(&history)).unwrap();
        assert_eq!(v.as_array().map(Vec::len), Some(4));
        assert_eq!(v[1]["content"], Value::Null);
        assert_eq!(v[1]["tool_calls"][0]["function"]["arguments"], r#"{"file_path":"a"}"#);
        assert_eq!(v[2]["role"], "tool");
        assert_eq!(v[3]["role"], "user");
    }

    /// The whole body, as the `json!` tree it was built as before it was serialised
    /// straight from the history: the wire format must not drift.
    #[test]
    fn the_whole_body_has_the_chat_completions_shape() {
        let local = OpenAiConfig { base_url: "http://127.0.0.1:8080/v1".into(), ..Default::default() };
        let p = OpenAiProvider::new(local).unwrap();
        let (history, tools) = (rich_history(), two_tools());
        let req = ModelRequest { model: "m", system: "sys", messages: &history, tools: &tools, max_tokens: 100 };
        let expected = json!({
            "max_tokens": 100, "model": "m", "stream": true, "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "hi \"there\" é"},
                {"role": "user", "content": "second user text"},
                {"role": "assistant", "content": "let me look", "tool_calls": [
                    {"id": "t1", "type": "function",
                     "function": {"name": "Read", "arguments": "{\"file_path\":\"a\",\"n\":[1,2.5,null]}"}},
                    {"id": "t2", "type": "function", "function": {"name": "Glob", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "t1", "content": "x"},
                {"role": "tool", "tool_call_id": "t2", "content": ""},
                {"role": "user", "content": "steer\n\nsteer 2"},
                {"role": "user", "content": "and then"},
                {"role": "assistant", "content": "ab"},
                {"role": "assistant", "content": "c"}
            ],
            "tools": [
                {"type": "function", "function": {"name": "A", "description": "a",
                    "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}}},
                {"type": "function", "function": {"name": "B", "description": "b\nline",
                    "parameters": {"type": "object"}}}
            ]
        });
        assert_eq!(serde_json::to_value(p.body(&req)).unwrap(), expected);
        let bytes = serde_json::to_vec(&p.body(&req)).unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), expected);
        // Without system or tools, those fields are absent rather than empty; OpenAI's own
        // models get the limit under the one name all of them take.
        let p = OpenAiProvider::new(OpenAiConfig::default()).unwrap();
        let req = ModelRequest { model: "m", system: "", messages: &history[..1], tools: &[], max_tokens: 100 };
        let expected = json!({"model": "m", "stream": true, "stream_options": {"include_usage": true},
            "max_completion_tokens": 100,
            "messages": [{"role": "user", "content": "hi \"there\" é"}]});
        assert_eq!(serde_json::to_value(p.body(&req)).unwrap(), expected);
    }
}
