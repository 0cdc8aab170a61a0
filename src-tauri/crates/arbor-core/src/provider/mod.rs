//! The one provider trait: a streamed model response from a provider-neutral
//! request. Anthropic's Messages API and OpenAI's Chat Completions API (which
//! also covers Ollama, llama.cpp, vLLM, LM Studio and OpenRouter) implement it.
//!
//! Retries are not here: the agent loop retries a turn only while nothing of it
//! has been shown (see `agent::turn`), which a provider cannot know.

mod anthropic;
mod error;
#[cfg(test)]
mod fixtures;
#[cfg(test)]
mod fuzz;
mod http;
mod openai;
mod pricing;
mod retry;
mod served;
mod tls;
mod windows;

pub use anthropic::DEFAULT_BASE_URL as ANTHROPIC_DEFAULT_BASE_URL;
pub use anthropic::{AnthropicConfig, AnthropicProvider};
pub use error::ProviderError;
pub use http::Timeouts;
pub(crate) use http::mcp_client;
pub use openai::{DEFAULT_BASE_URL as OPENAI_DEFAULT_BASE_URL, OpenAiConfig, OpenAiProvider};
pub use pricing::price_usage;
pub use retry::RetryPolicy;
pub use windows::{GUESSED_WINDOW, context_window};

use arbor_protocol::{AssistantBlock, Message, Usage};
use async_trait::async_trait;
use futures::stream::BoxStream;
use serde_json::Value;
use std::fmt;

/// A tool as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// One model call. Borrowed: the provider serialises it before streaming.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    pub model: &'a str,
    pub system: &'a str,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
    pub max_tokens: u32,
}

/// What a response stream yields: deltas as they arrive, then the whole response.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ThinkingDelta(String),
    /// A tool call the model has started, and the next piece of its input's JSON
    /// (empty when it only just started).
    ToolInputDelta {
        call_id: String,
        name: String,
        json: String,
    },
    Completed(ModelResponse),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ModelResponse {
    pub content: Vec<AssistantBlock>,
    pub usage: Usage,
    pub stop_reason: StopReason,
    /// Tool calls whose arguments were not valid JSON: (call id, reason). Their
    /// `ToolUse` block carries an empty input; the agent answers them with an error.
    pub invalid_tool_inputs: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    EndTurn,
    ToolUse,
    MaxTokens,
    Other(String),
}

impl StopReason {
    fn from_wire(s: &str) -> Self {
        match s {
            "end_turn" | "stop" | "stop_sequence" => Self::EndTurn,
            "tool_use" | "tool_calls" | "function_call" => Self::ToolUse,
            "max_tokens" | "length" => Self::MaxTokens,
            other => Self::Other(other.to_string()),
        }
    }
}

/// A tool call's streamed arguments as an input object; an empty object and the
/// reason when the model sent something else (the agent answers with that reason).
fn parse_tool_input(raw: &str) -> (Value, Option<String>) {
    let empty = || Value::Object(Default::default());
    if raw.trim().is_empty() {
        return (empty(), None);
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => (v, None),
        Ok(_) => (empty(), Some("arguments are not a JSON object".to_string())),
        Err(e) => (empty(), Some(format!("arguments are not valid JSON ({e})"))),
    }
}

pub type ResponseStream = BoxStream<'static, Result<StreamEvent, ProviderError>>;

#[async_trait]
pub trait Provider: Send + Sync {
    /// "anthropic" or "openai": what agent_started reports.
    fn name(&self) -> &str;
    /// Opens a streamed response. Dropping the stream closes the connection, which
    /// is how cancellation reaches the provider.
    async fn stream(&self, request: ModelRequest<'_>) -> Result<ResponseStream, ProviderError>;
    /// The context window the server serves `model` with, where it says so (a local
    /// server's own setting, which no table can know). None: it does not say.
    async fn served_window(&self, _model: &str) -> Option<u64> {
        None
    }
}

/// An API key: never printed, never serialised.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}
