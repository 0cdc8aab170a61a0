//! The model providers Arbor speaks to, and how one is built from a key, a base
//! URL and a model. Keys arrive from the caller (keyring or environment) and are
//! handed to the runtime; they are never printed, logged or saved here.

use arbor_core::provider::{
    AnthropicConfig, AnthropicProvider, ApiKey, OPENAI_DEFAULT_BASE_URL, OpenAiConfig, OpenAiProvider, Provider,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The two wire formats: Anthropic Messages, and OpenAI Chat Completions (which
/// also covers Ollama, llama.cpp, vLLM, LM Studio, OpenRouter through a base URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    Anthropic,
    Openai,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 2] = [ProviderKind::Anthropic, ProviderKind::Openai];

    /// The name sessions and agent files use for it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::Openai => "openai",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Anthropic => "Anthropic",
            Self::Openai => "OpenAI-compatible",
        }
    }

    /// The environment variable the official SDKs read the key from.
    pub fn key_var(self) -> &'static str {
        match self {
            Self::Anthropic => "ANTHROPIC_API_KEY",
            Self::Openai => "OPENAI_API_KEY",
        }
    }

    pub fn base_url_var(self) -> &'static str {
        match self {
            Self::Anthropic => "ANTHROPIC_BASE_URL",
            Self::Openai => "OPENAI_BASE_URL",
        }
    }

    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Anthropic => arbor_core::provider::ANTHROPIC_DEFAULT_BASE_URL,
            Self::Openai => OPENAI_DEFAULT_BASE_URL,
        }
    }

    pub fn default_model(self) -> &'static str {
        match self {
            Self::Anthropic => "claude-sonnet-4-5",
            Self::Openai => "gpt-4.1",
        }
    }

    /// Whether this base URL needs a key: only the vendors' own endpoints do;
    /// local servers (Ollama, llama.cpp, …) take none.
    pub fn needs_key(self, base_url: &str) -> bool {
        match self {
            Self::Anthropic => true,
            Self::Openai => base_url.trim_end_matches('/') == OPENAI_DEFAULT_BASE_URL,
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("the {provider} provider needs an API key: {hint}")]
    NoKey { provider: &'static str, hint: String },
    #[error("cannot set up the {provider} provider: {reason}")]
    Build { provider: &'static str, reason: String },
}

/// Builds the provider for `kind` at `base_url` (None: the vendor's endpoint).
pub fn build(
    kind: ProviderKind,
    base_url: Option<String>,
    key: Option<ApiKey>,
) -> Result<Arc<dyn Provider>, ProviderError> {
    let base = base_url.unwrap_or_else(|| kind.default_base_url().to_string());
    if key.is_none() && kind.needs_key(&base) {
        let hint = match kind {
            ProviderKind::Anthropic => "set ANTHROPIC_API_KEY or save one in Settings".to_string(),
            ProviderKind::Openai => {
                "set OPENAI_API_KEY for api.openai.com, or OPENAI_BASE_URL for a local server".to_string()
            }
        };
        return Err(ProviderError::NoKey { provider: kind.name(), hint });
    }
    let built: Result<Arc<dyn Provider>, String> = match kind {
        ProviderKind::Anthropic => {
            AnthropicProvider::new(AnthropicConfig { api_key: key, base_url: base, ..AnthropicConfig::default() })
                .map(|p| Arc::new(p) as Arc<dyn Provider>)
                .map_err(|e| e.to_string())
        }
        ProviderKind::Openai => {
            OpenAiProvider::new(OpenAiConfig { api_key: key, base_url: base, ..OpenAiConfig::default() })
                .map(|p| Arc::new(p) as Arc<dyn Provider>)
                .map_err(|e| e.to_string())
        }
    };
    built.map_err(|reason| ProviderError::Build { provider: kind.name(), reason })
}

/// A non-blank environment variable.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty())
}
