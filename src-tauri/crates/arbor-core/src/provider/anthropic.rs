//! Anthropic's Messages API, streamed: text, thinking and tool_use blocks
//! (input_json_delta), usage with cache tokens, stop reasons, and prompt caching
//! on the tools, the system prompt and the conversation (each request reads the
//! previous one's whole prefix from cache: four breakpoints, the API's most).

use super::http::{self, Decoder, Timeouts};
use super::{ApiKey, ModelRequest, ModelResponse, Provider, ProviderError, ResponseStream, StopReason, StreamEvent};
use arbor_protocol::{AssistantBlock, Message, Usage, UserBlock};
use async_trait::async_trait;
use eventsource_stream::Event;
use serde::Serialize;
use serde_json::Value;

pub use arbor_protocol::provider::ANTHROPIC_DEFAULT_BASE_URL as DEFAULT_BASE_URL;
const API_VERSION: &str = "2023-06-01";
const PROVIDER: &str = "anthropic";

#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    /// Without the `/v1/messages` path, as `ANTHROPIC_BASE_URL` is given to the SDKs.
    pub base_url: String,
    pub api_key: Option<ApiKey>,
    /// cache_control on the tools, the system prompt and the conversation.
    pub prompt_caching: bool,
    /// Extended thinking budget; None leaves thinking off.
    pub thinking_budget: Option<u32>,
    pub timeouts: Timeouts,
}

impl Default for AnthropicConfig {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_string(),
            api_key: None,
            prompt_caching: true,
            thinking_budget: None,
            timeouts: Timeouts::default(),
        }
    }
}

pub struct AnthropicProvider {
    config: AnthropicConfig,
    client: reqwest::Client,
}

impl AnthropicProvider {
    pub fn new(config: AnthropicConfig) -> Result<Self, ProviderError> {
        let client = http::client(&config.timeouts)?;
        Ok(Self { config, client })
    }

    /// The request body, borrowed from the request: serialised straight from the
    /// history, so nothing of a long conversation is copied into a JSON tree first.
    fn body<'a>(&self, req: &ModelRequest<'a>) -> Body<'a> {
        let cache = self.config.prompt_caching.then_some(EPHEMERAL);
        let n = req.tools.len();
        Body {
            model: req.model,
            max_tokens: req.max_tokens,
            stream: true,
            messages: with_breakpoints(messages(req.messages), cache),
            system: (!req.system.is_empty()).then_some([SystemBlock {
                kind: "text",
                text: req.system,
                cache_control: cache,
            }]),
            tools: req
                .tools
                .iter()
                .enumerate()
                .map(|(i, t)| WireTool {
                    name: &t.name,
                    description: &t.description,
                    input_schema: &t.input_schema,
                    // One breakpoint after the last tool caches the whole tool list.
                    cache_control: if i + 1 == n { cache } else { None },
                })
                .collect(),
            thinking: self.config.thinking_budget.map(|budget_tokens| Thinking { kind: "enabled", budget_tokens }),
        }
    }
}

#[async_trait]
impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        PROVIDER
    }

    async fn stream(&self, req: ModelRequest<'_>) -> Result<ResponseStream, ProviderError> {
        let base = self.config.base_url.trim_end_matches('/');
        // Anthropic's own endpoint needs a key; a local server (llama.cpp, a proxy) takes none.
        if self.config.api_key.is_none() && base == DEFAULT_BASE_URL {
            return Err(ProviderError::MissingApiKey { provider: PROVIDER, env_var: "ANTHROPIC_API_KEY" });
        }
        let url = format!("{base}/v1/messages");
        let mut request = self
            .client
            .post(&url)
            .header("anthropic-version", API_VERSION)
            .header("accept", "text/event-stream")
            .json(&self.body(&req));
        if let Some(key) = &self.config.api_key {
            request = request.header("x-api-key", key.expose());
        }
        let response = http::send(PROVIDER, &url, request, &self.config.timeouts).await?;
        Ok(http::decode(response, AnthropicDecoder::default(), self.config.timeouts.idle))
    }
}

/// The request body of the Messages API.
#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    max_tokens: u32,
    stream: bool,
    messages: Vec<WireMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system: Option<[SystemBlock<'a>; 1]>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
}

#[derive(Serialize, Clone, Copy)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };

#[derive(Serialize)]
struct SystemBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

#[derive(Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_control: Option<CacheControl>,
}

#[derive(Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

#[derive(Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: Vec<WireBlock<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireBlock<'a> {
    Text {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    Thinking {
        thinking: &'a str,
        signature: &'a str,
    },
    RedactedThinking {
        data: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a Value,
    },
}

/// The history in Anthropic's shape. Empty text blocks are dropped (the API
/// rejects them) and consecutive messages of one role merged (it wants turns to alternate).
fn messages(history: &[Message]) -> Vec<WireMessage<'_>> {
    let mut out: Vec<WireMessage<'_>> = Vec::with_capacity(history.len());
    for msg in history {
        let (role, blocks): (&'static str, Vec<WireBlock<'_>>) = match msg {
            Message::User { content } => ("user", content.iter().filter_map(user_block).collect()),
            Message::Assistant { content } => ("assistant", content.iter().filter_map(assistant_block).collect()),
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => out.push(WireMessage { role, content: blocks }),
        }
    }
    out
}

/// Breakpoints at the ends of the last two user turns: the last one writes this
/// request's prefix to the cache, and the one before it is where the previous
/// request ended, so that whole prefix is read back however many blocks the
/// turn since added (the API looks back only about 20 blocks from a
/// breakpoint). With the tools' and the system prompt's, that is the four
/// the API allows. Only user turns carry them: they end in text or tool
/// results, and nothing after a breakpoint is rewritten later.
fn with_breakpoints(mut wire: Vec<WireMessage<'_>>, cache: Option<CacheControl>) -> Vec<WireMessage<'_>> {
    let Some(cache) = cache else { return wire };
    for msg in wire.iter_mut().rev().filter(|m| m.role == "user").take(2) {
        if let Some(WireBlock::Text { cache_control, .. } | WireBlock::ToolResult { cache_control, .. }) =
            msg.content.last_mut()
        {
            *cache_control = Some(cache);
        }
    }
    wire
}

fn user_block(b: &UserBlock) -> Option<WireBlock<'_>> {
    match b {
        UserBlock::Text { text } if text.is_empty() => None,
        UserBlock::Text { text } => Some(WireBlock::Text { text, cache_control: None }),
        UserBlock::ToolResult { call_id, content, is_error } => {
            Some(WireBlock::ToolResult { tool_use_id: call_id, content, is_error: *is_error, cache_control: None })
        }
    }
}

fn assistant_block(b: &AssistantBlock) -> Option<WireBlock<'_>> {
    match b {
        AssistantBlock::Text { text } if text.is_empty() => None,
        AssistantBlock::Text { text } => Some(WireBlock::Text { text, cache_control: None }),
        // Thinking without a signature came from another provider; Anthropic would reject it.
        AssistantBlock::Thinking { signature: None, .. } => None,
        AssistantBlock::Thinking { thinking, signature: Some(sig) } => {
            Some(WireBlock::Thinking { thinking, signature: sig })
        }
        AssistantBlock::RedactedThinking { data } => Some(WireBlock::RedactedThinking { data }),
        AssistantBlock::ToolUse { id, name, input } => Some(WireBlock::ToolUse { id, name, input }),
    }
}

/// A content block while it streams.
enum Block {
    Text(String),
    Thinking {
        text: String,
        signature: Option<String>,
    },
    Redacted(String),
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
    /// Server tools and future block types: kept out of the history.
    Other,
}

#[derive(Default)]
pub(super) struct AnthropicDecoder {
    blocks: Vec<Block>,
    usage: Usage,
    stop_reason: Option<String>,
}

impl AnthropicDecoder {
    fn block_mut(&mut self, index: &Value) -> Result<&mut Block, ProviderError> {
        let i = index.as_u64().and_then(|i| usize::try_from(i).ok()).unwrap_or(usize::MAX);
        self.blocks.get_mut(i).ok_or_else(|| decode_err(format!("delta for unknown content block {index}")))
    }

    fn read_usage(&mut self, u: &Value) {
        let n = |k: &str| u.get(k).and_then(Value::as_u64);
        if let Some(v) = n("input_tokens") {
            self.usage.input_tokens = v;
        }
        if let Some(v) = n("output_tokens") {
            self.usage.output_tokens = v;
        }
        if let Some(v) = n("cache_read_input_tokens") {
            self.usage.cache_read_tokens = v;
        }
        if let Some(v) = n("cache_creation_input_tokens") {
            self.usage.cache_write_tokens = v;
        }
    }
}

fn decode_err(reason: String) -> ProviderError {
    ProviderError::Decode { provider: PROVIDER, reason }
}

fn str_of(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or_default().to_string()
}

impl Decoder for AnthropicDecoder {
    const PROVIDER: &'static str = PROVIDER;

    fn on_event(&mut self, event: &Event) -> Result<(Vec<StreamEvent>, bool), ProviderError> {
        let data = http::json::<Self>(event)?;
        let kind = data.get("type").and_then(Value::as_str).unwrap_or(event.event.as_str());
        let mut out = Vec::new();
        match kind {
            "message_start" => {
                if let Some(u) = data.pointer("/message/usage") {
                    self.read_usage(u);
                }
            }
            "content_block_start" => {
                let b = data.get("content_block").cloned().unwrap_or(Value::Null);
                let block = match b.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = str_of(&b, "text");
                        if !text.is_empty() {
                            out.push(StreamEvent::TextDelta(text.clone()));
                        }
                        Block::Text(text)
                    }
                    Some("thinking") => Block::Thinking { text: str_of(&b, "thinking"), signature: None },
                    Some("redacted_thinking") => Block::Redacted(str_of(&b, "data")),
                    Some("tool_use") => {
                        let (id, name) = (str_of(&b, "id"), str_of(&b, "name"));
                        out.push(StreamEvent::ToolInputDelta {
                            call_id: id.clone(),
                            name: name.clone(),
                            json: String::new(),
                        });
                        Block::ToolUse { id, name, json: String::new() }
                    }
                    _ => Block::Other,
                };
                let index = data.get("index").and_then(Value::as_u64).unwrap_or(self.blocks.len() as u64);
                if index as usize != self.blocks.len() {
                    return Err(decode_err(format!("content block {index} started out of order")));
                }
                self.blocks.push(block);
            }
            "content_block_delta" => {
                let delta = data.get("delta").cloned().unwrap_or(Value::Null);
                let block = self.block_mut(data.get("index").unwrap_or(&Value::Null))?;
                match (delta.get("type").and_then(Value::as_str), block) {
                    (Some("text_delta"), Block::Text(text)) => {
                        let d = str_of(&delta, "text");
                        text.push_str(&d);
                        out.push(StreamEvent::TextDelta(d));
                    }
                    (Some("thinking_delta"), Block::Thinking { text, .. }) => {
                        let d = str_of(&delta, "thinking");
                        text.push_str(&d);
                        out.push(StreamEvent::ThinkingDelta(d));
                    }
                    (Some("signature_delta"), Block::Thinking { signature, .. }) => {
                        signature.get_or_insert_with(String::new).push_str(&str_of(&delta, "signature"));
                    }
                    (Some("input_json_delta"), Block::ToolUse { id, name, json }) => {
                        let d = str_of(&delta, "partial_json");
                        json.push_str(&d);
                        if !d.is_empty() {
                            out.push(StreamEvent::ToolInputDelta { call_id: id.clone(), name: name.clone(), json: d });
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(r) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(r.to_string());
                }
                if let Some(u) = data.get("usage") {
                    self.read_usage(u);
                }
            }
            "message_stop" => return Ok((out, true)),
            "error" => {
                let err = data.get("error").cloned().unwrap_or(Value::Null);
                return Err(ProviderError::Api {
                    provider: PROVIDER,
                    kind: str_of(&err, "type"),
                    message: str_of(&err, "message"),
                });
            }
            // ping, content_block_stop and event types added later carry nothing we need.
            _ => {}
        }
        Ok((out, false))
    }

    fn finish(self, saw_end: bool) -> Result<ModelResponse, ProviderError> {
        if !saw_end {
            return Err(ProviderError::StreamBroken {
                provider: PROVIDER,
                reason: "the stream ended before message_stop".to_string(),
            });
        }
        let mut content = Vec::new();
        let mut invalid_tool_inputs = Vec::new();
        for block in self.blocks {
            match block {
                Block::Text(text) => content.push(AssistantBlock::Text { text }),
                Block::Thinking { text, signature } => {
                    content.push(AssistantBlock::Thinking { thinking: text, signature })
                }
                Block::Redacted(data) => content.push(AssistantBlock::RedactedThinking { data }),
                Block::ToolUse { id, name, json } => {
                    let (input, invalid) = super::parse_tool_input(&json);
                    if let Some(reason) = invalid {
                        invalid_tool_inputs.push((id.clone(), reason));
                    }
                    content.push(AssistantBlock::ToolUse { id, name, input });
                }
                Block::Other => {}
            }
        }
        let stop_reason = self.stop_reason.as_deref().map(StopReason::from_wire).unwrap_or(StopReason::EndTurn);
        Ok(ModelResponse { content, usage: self.usage, stop_reason, invalid_tool_inputs })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolSpec;
    use crate::provider::fixtures::{rich_history, two_tools};
    use serde_json::json;

    #[test]
    fn history_is_converted_with_alternating_roles_and_no_empty_blocks() {
        let history = vec![
            Message::user_text("hi"),
            Message::Assistant {
                content: vec![
                    AssistantBlock::Text { text: String::new() },
                    AssistantBlock::Thinking { thinking: "t".into(), signature: None },
                    AssistantBlock::ToolUse { id: "t1".into(), name: "Read".into(), input: json!({"file_path": "a"}) },
                ],
            },
            Message::User {
                content: vec![UserBlock::ToolResult { call_id: "t1".into(), content: "x".into(), is_error: false }],
            },
            Message::user_text("and then"),
        ];
        let v = serde_json::to_value(messages(&history)).unwrap();
        assert_eq!(v.as_array().map(Vec::len), Some(3));
        assert_eq!(v[1]["content"].as_array().map(Vec::len), Some(1));
        assert_eq!(v[1]["content"][0]["type"], "tool_use");
        assert_eq!(v[2]["content"][0]["type"], "tool_result");
        assert_eq!(v[2]["content"][1]["text"], "and then");
    }

    #[test]
    fn system_and_last_tool_carry_cache_control() {
        let p = AnthropicProvider::new(AnthropicConfig::default()).unwrap();
        let tools = vec![
            ToolSpec { name: "A".into(), description: "a".into(), input_schema: json!({"type": "object"}) },
            ToolSpec { name: "B".into(), description: "b".into(), input_schema: json!({"type": "object"}) },
        ];
        let history = vec![Message::user_text("hi")];
        let req = ModelRequest { model: "m", system: "sys", messages: &history, tools: &tools, max_tokens: 100 };
        let body = serde_json::to_value(p.body(&req)).unwrap();
        assert_eq!(body["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(body["tools"][0].get("cache_control").is_none());
        assert_eq!(body["tools"][1]["cache_control"]["type"], "ephemeral");
        assert_eq!(body["stream"], true);
    }

    /// An agent's next request is its last one plus a turn: the last request's
    /// final breakpoint is a breakpoint again, so its whole prefix is read from
    /// cache even when the turn added more blocks than the API looks back over.
    #[test]
    fn each_request_reads_the_previous_ones_whole_prefix_from_cache() {
        let p = AnthropicProvider::new(AnthropicConfig::default()).unwrap();
        let mut history = vec![Message::user_text("read every file")];
        let mut previous: Option<Value> = None;
        for turn in 0..4 {
            let req = ModelRequest { model: "m", system: "sys", messages: &history, tools: &[], max_tokens: 100 };
            let body = serde_json::to_value(p.body(&req)).unwrap();
            let messages = body["messages"].as_array().cloned().unwrap_or_default();
            let marked: Vec<(usize, usize)> = messages
                .iter()
                .enumerate()
                .flat_map(|(i, m)| {
                    let blocks = m["content"].as_array().cloned().unwrap_or_default();
                    (0..blocks.len()).filter(move |j| blocks[*j].get("cache_control").is_some()).map(move |j| (i, j))
                })
                .collect();
            // At most two in the conversation (four with the tools' and the system's).
            assert!(marked.len() <= 2, "{marked:?}");
            let last = messages.len() - 1;
            let ends = messages[last]["content"].as_array().map_or(0, Vec::len) - 1;
            assert!(marked.contains(&(last, ends)), "the request's end is a breakpoint: {marked:?}");
            if let Some(prev) = previous {
                let prev = prev.as_array().cloned().unwrap_or_default();
                let end = prev.len() - 1;
                let end_block = prev[end]["content"].as_array().map_or(0, Vec::len) - 1;
                assert!(marked.contains(&(end, end_block)), "turn {turn}: the previous request's end is read back");
                // The same bytes up to there, breakpoints aside.
                let strip = |v: &Value| {
                    let mut v = v.clone();
                    for b in v["content"].as_array_mut().into_iter().flatten() {
                        b.as_object_mut().map(|o| o.remove("cache_control"));
                    }
                    v
                };
                for i in 0..=end {
                    assert_eq!(strip(&prev[i]), strip(&messages[i]), "turn {turn}: message {i} changed");
                }
            }
            previous = Some(body["messages"].clone());
            // A turn of a dozen parallel reads: more blocks than the API's lookback.
            let calls: Vec<AssistantBlock> = (0..12)
                .map(|k| AssistantBlock::ToolUse { id: format!("t{turn}-{k}"), name: "Read".into(), input: json!({}) })
                .collect();
            history.push(Message::Assistant { content: calls });
            history.push(Message::User {
                content: (0..12)
                    .map(|k| UserBlock::ToolResult {
                        call_id: format!("t{turn}-{k}"),
                        content: "x".into(),
                        is_error: false,
                    })
                    .collect(),
            });
        }
    }

    /// The whole body, as the `json!` tree it was built as before it was serialised
    /// straight from the history: the wire format must not drift.
    #[test]
    fn the_whole_body_has_the_messages_api_shape() {
        let p = AnthropicProvider::new(AnthropicConfig { thinking_budget: Some(1000), ..Default::default() }).unwrap();
        let (history, tools) = (rich_history(), two_tools());
        let req = ModelRequest { model: "m", system: "sys", messages: &history, tools: &tools, max_tokens: 100 };
        let expected = json!({
            "max_tokens": 100, "model": "m", "stream": true,
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "hi \"there\" é"},
                    {"type": "text", "text": "second user text", "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "signed", "signature": "sig"},
                    {"type": "redacted_thinking", "data": "xx"},
                    {"type": "text", "text": "let me look"},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a", "n": [1, 2.5, null]}},
                    {"type": "tool_use", "id": "t2", "name": "Glob", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "x", "is_error": false},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "", "is_error": true},
                    {"type": "text", "text": "steer"}, {"type": "text", "text": "steer 2"},
                    {"type": "text", "text": "and then", "cache_control": {"type": "ephemeral"}}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "a"}, {"type": "text", "text": "b"}, {"type": "text", "text": "c"}]}
            ],
            "system": [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}],
            "thinking": {"type": "enabled", "budget_tokens": 1000},
            "tools": [
                {"name": "A", "description": "a",
                 "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}},
                {"name": "B", "description": "b\nline", "input_schema": {"type": "object"},
                 "cache_control": {"type": "ephemeral"}}
            ]
        });
        assert_eq!(serde_json::to_value(p.body(&req)).unwrap(), expected);
        let bytes = serde_json::to_vec(&p.body(&req)).unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), expected);
        // Without caching, system or tools, those fields are absent rather than empty.
        let p = AnthropicProvider::new(AnthropicConfig { prompt_caching: false, ..Default::default() }).unwrap();
        let req = ModelRequest { model: "m", system: "", messages: &history[..1], tools: &[], max_tokens: 100 };
        let expected = json!({"max_tokens": 100, "model": "m", "stream": true,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi \"there\" é"}]}]});
        assert_eq!(serde_json::to_value(p.body(&req)).unwrap(), expected);
        let req = ModelRequest { system: "sys", tools: &tools, ..req };
        let body = serde_json::to_value(p.body(&req)).unwrap();
        assert!(body["system"][0].get("cache_control").is_none() && body["tools"][1].get("cache_control").is_none());
    }
}
