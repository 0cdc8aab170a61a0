//! Chooses and builds the model provider from flags and the environment
//! variables the official SDKs honour. Keys are read here, at the edge, and
//! handed to the runtime; they are never printed or logged.

use crate::args::ProviderKind;
use anyhow::{Result, bail};
use arbor_core::provider::{AnthropicConfig, AnthropicProvider, ApiKey, OpenAiConfig, OpenAiProvider, Provider};
use std::sync::Arc;

pub struct Chosen {
    pub name: &'static str,
    pub provider: Arc<dyn Provider>,
    pub model: String,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}

pub fn from_env(kind: Option<ProviderKind>, model: Option<String>) -> Result<Chosen> {
    let kind = match kind {
        Some(k) => k,
        None if env("ANTHROPIC_API_KEY").is_some() => ProviderKind::Anthropic,
        None if env("OPENAI_API_KEY").is_some() || env("OPENAI_BASE_URL").is_some() => ProviderKind::Openai,
        None => bail!(
            "no model provider configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY \
             (or OPENAI_BASE_URL for Ollama, llama.cpp, vLLM, LM Studio), or try `arbor demo`"
        ),
    };
    build(kind, model, env("ANTHROPIC_BASE_URL"), env("OPENAI_BASE_URL"), |name| env(name).map(ApiKey::new))
}

/// Builds the provider from explicit values (the demo passes its own).
pub fn build(
    kind: ProviderKind,
    model: Option<String>,
    anthropic_base: Option<String>,
    openai_base: Option<String>,
    key: impl Fn(&str) -> Option<ApiKey>,
) -> Result<Chosen> {
    let provider: Arc<dyn Provider> = match kind {
        ProviderKind::Anthropic => {
            let Some(api_key) = key("ANTHROPIC_API_KEY") else {
                bail!("the anthropic provider needs an API key: set ANTHROPIC_API_KEY")
            };
            let mut config = AnthropicConfig { api_key: Some(api_key), ..AnthropicConfig::default() };
            if let Some(base) = anthropic_base {
                config.base_url = base;
            }
            Arc::new(AnthropicProvider::new(config)?)
        }
        ProviderKind::Openai => {
            let mut config = OpenAiConfig { api_key: key("OPENAI_API_KEY"), ..OpenAiConfig::default() };
            if let Some(base) = openai_base {
                config.base_url = base;
            }
            if config.api_key.is_none()
                && config.base_url.trim_end_matches('/') == arbor_core::provider::OPENAI_DEFAULT_BASE_URL
            {
                bail!(
                    "the openai provider needs an API key for api.openai.com: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server"
                );
            }
            Arc::new(OpenAiProvider::new(config)?)
        }
    };
    let model = model.unwrap_or_else(|| match kind {
        ProviderKind::Anthropic => "claude-sonnet-4-5".to_string(),
        ProviderKind::Openai => "gpt-4.1".to_string(),
    });
    Ok(Chosen { name: kind.name(), provider, model })
}
