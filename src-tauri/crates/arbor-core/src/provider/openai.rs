//! OpenAI's Chat Completions API, streamed, with tool_calls deltas. The same
//! client serves Ollama, llama.cpp's server, vLLM, LM Studio and OpenRouter by
//! base URL; their reasoning deltas (`reasoning_content` / `reasoning`) become thinking.

use super::http::{self, Decoder, Timeouts};
use super::{ApiKey, ModelRequest, ModelResponse, Provider, ProviderError, ResponseStream, StopReason, StreamEvent};
use arbor_protocol::{AssistantBlock, Message, Usage, UserBlock};
use async_trait::async_trait;
use eventsource_stream::Event;
use serde_json::{Value, json};

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
const PROVIDER: &str = "openai";

#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// Up to and including `/v1`, as `OPENAI_BASE_URL` is given to the SDKs.
    pub base_url: String,
    /// Local servers need none; api.openai.com does.
    pub api_key: Option<ApiKey>,
    /// Sent as `max_tokens` only when set: OpenAI's newer models reject that field.
    pub send_max_tokens: bool,
    pub timeouts: Timeouts,
}

impl Default for OpenAiConfig {
    fn default() -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_string(),
            api_key: None,
            send_max_tokens: false,
            timeouts: Timeouts::default(),
        }
    }
}

pub struct OpenAiProvider {
    config: OpenAiConfig,
    client: reqwest::Client,
}

impl OpenAiProvider {
    pub fn new(config: OpenAiConfig) -> Result<Self, ProviderError> {
        let client = http::client(&config.timeouts)?;
        Ok(Self { config, client })
    }

    fn body(&self, req: &ModelRequest<'_>) -> Value {
        let mut msgs = Vec::new();
        if !req.system.is_empty() {
            msgs.push(json!({"role": "system", "content": req.system}));
        }
        msgs.extend(messages(req.messages));
        let mut body = json!({
            "model": req.model,
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": msgs,
        });
        if !req.tools.is_empty() {
            body["tools"] = req
                .tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.name, "description": t.description, "parameters": t.input_schema,
                    }})
                })
                .collect();
        }
        if self.config.send_max_tokens {
            body["max_tokens"] = json!(req.max_tokens);
        }
        body
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
}

/// The history in Chat Completions' shape: tool results become `tool` messages
/// right after the assistant message that called them; thinking is not sent back.
fn messages(history: &[Message]) -> Vec<Value> {
    let mut out = Vec::new();
    for msg in history {
        match msg {
            Message::User { content } => {
                let mut texts = Vec::new();
                for block in content {
                    match block {
                        UserBlock::ToolResult { call_id, content, .. } => {
                            out.push(json!({"role": "tool", "tool_call_id": call_id, "content": content}));
                        }
                        UserBlock::Text { text } if !text.is_empty() => texts.push(text.as_str()),
                        UserBlock::Text { .. } => {}
                    }
                }
                if !texts.is_empty() {
                    out.push(json!({"role": "user", "content": texts.join("\n\n")}));
                }
            }
            Message::Assistant { content } => {
                let text = msg.assistant_text();
                let calls: Vec<Value> = content
                    .iter()
                    .filter_map(|b| match b {
                        AssistantBlock::ToolUse { id, name, input } => Some(json!({
                            "id": id, "type": "function",
                            "function": {"name": name, "arguments": input.to_string()},
                        })),
                        _ => None,
                    })
                    .collect();
                if text.is_empty() && calls.is_empty() {
                    continue;
                }
                let mut m =
                    json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
                if !calls.is_empty() {
                    m["tool_calls"] = Value::Array(calls);
                }
                out.push(m);
            }
        }
    }
    out
}

#[derive(Default)]
struct ToolCallAcc {
    id: String,
    name: String,
    arguments: String,
}

#[derive(Default)]
struct OpenAiDecoder {
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
            if let Some(id) = call.get("id").and_then(Value::as_str) {
                acc.id = id.to_string();
            }
            if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
                acc.name.push_str(name);
            }
            if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
                acc.arguments.push_str(args);
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
            let id = if call.id.is_empty() { format!("call_{i}") } else { call.id };
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
        let v = messages(&history);
        assert_eq!(v.len(), 4);
        assert_eq!(v[1]["content"], Value::Null);
        assert_eq!(v[1]["tool_calls"][0]["function"]["arguments"], r#"{"file_path":"a"}"#);
        assert_eq!(v[2]["role"], "tool");
        assert_eq!(v[3]["role"], "user");
    }
}
