//! The model providers Arbor speaks to and the approval choices a person can
//! set per tool: the settings' vocabulary, shared by the app, the CLI and the UI.

use serde::{Deserialize, Serialize};

pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

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

    /// The name sessions and agent files use for it (its wire name).
    pub fn name(self) -> &'static str {
        crate::wire::name(&self)
    }

    pub fn from_name(name: &str) -> Option<Self> {
        crate::wire::parse(&Self::ALL, name)
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
            Self::Anthropic => ANTHROPIC_DEFAULT_BASE_URL,
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
    /// local servers (llama.cpp, Ollama, a proxy on loopback…) take none on either route.
    pub fn needs_key(self, base_url: &str) -> bool {
        base_url.trim().trim_end_matches('/') == self.default_base_url()
    }
}

/// What a person chose for a tool's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalChoice {
    Allow,
    Ask,
    Deny,
}

impl ApprovalChoice {
    pub const ALL: [ApprovalChoice; 3] = [Self::Allow, Self::Ask, Self::Deny];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_needed_only_by_the_vendors_endpoints() {
        for kind in ProviderKind::ALL {
            assert!(kind.needs_key(kind.default_base_url()));
            assert!(kind.needs_key(&format!("{}/", kind.default_base_url())));
            assert!(!kind.needs_key("http://127.0.0.1:8080"), "{kind:?} on a local server");
            assert_eq!(ProviderKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(ProviderKind::Openai.name(), "openai");
    }
}
