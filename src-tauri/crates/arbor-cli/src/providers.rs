//! Chooses the model provider from flags and the environment variables the
//! official SDKs honour. Keys are read here, at the edge, and handed to the
//! runtime; they are never printed or logged.

use crate::args::ProviderKind;
use anyhow::{Result, bail};
use arbor_app::providers::{self, env};
use arbor_core::provider::{ApiKey, Provider};
use std::sync::Arc;

pub struct Chosen {
    pub name: &'static str,
    pub provider: Arc<dyn Provider>,
    pub model: String,
}

impl From<ProviderKind> for arbor_app::ProviderKind {
    fn from(k: ProviderKind) -> Self {
        match k {
            ProviderKind::Anthropic => Self::Anthropic,
            ProviderKind::Openai => Self::Openai,
        }
    }
}

impl From<arbor_app::ProviderKind> for ProviderKind {
    fn from(k: arbor_app::ProviderKind) -> Self {
        match k {
            arbor_app::ProviderKind::Anthropic => Self::Anthropic,
            arbor_app::ProviderKind::Openai => Self::Openai,
        }
    }
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
    let k = arbor_app::ProviderKind::from(kind);
    build(k, model, env(k.base_url_var()), env(k.key_var()).map(ApiKey::new))
}

/// Builds the provider from explicit values (the demo passes its own).
pub fn build(
    kind: arbor_app::ProviderKind,
    model: Option<String>,
    base_url: Option<String>,
    key: Option<ApiKey>,
) -> Result<Chosen> {
    let provider = providers::build(kind, base_url, key)?;
    let model = model.unwrap_or_else(|| kind.default_model().to_string());
    Ok(Chosen { name: kind.name(), provider, model })
}
