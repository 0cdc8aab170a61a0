//! Building a model provider from a key, a base URL and the timeouts a person
//! set. Keys arrive from the caller (keyring or environment) and are handed to
//! the runtime; they are never printed, logged or saved here.

use arbor_core::provider::{
    AnthropicConfig, AnthropicProvider, ApiKey, OpenAiConfig, OpenAiProvider, Provider, Timeouts,
};
pub use arbor_protocol::ProviderKind;
use std::sync::Arc;

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
    timeouts: Timeouts,
) -> Result<Arc<dyn Provider>, ProviderError> {
    let base = base_url.unwrap_or_else(|| kind.default_base_url().to_string());
    if key.is_none() && kind.needs_key(&base) {
        let hint = format!(
            "set {} or save one in Settings (a local server at {} takes none)",
            kind.key_var(),
            kind.base_url_var()
        );
        return Err(ProviderError::NoKey { provider: kind.name(), hint });
    }
    let built: Result<Arc<dyn Provider>, String> = match kind {
        ProviderKind::Anthropic => AnthropicProvider::new(AnthropicConfig {
            api_key: key,
            base_url: base,
            timeouts,
            ..AnthropicConfig::default()
        })
        .map(|p| Arc::new(p) as Arc<dyn Provider>)
        .map_err(|e| e.to_string()),
        ProviderKind::Openai => OpenAiProvider::new(OpenAiConfig { api_key: key, base_url: base, timeouts })
            .map(|p| Arc::new(p) as Arc<dyn Provider>)
            .map_err(|e| e.to_string()),
    };
    built.map_err(|reason| ProviderError::Build { provider: kind.name(), reason })
}
