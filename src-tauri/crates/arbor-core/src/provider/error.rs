//! Provider errors, and which of them are worth a retry.

use std::time::Duration;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ProviderError {
    #[error("{provider} API key missing: set {env_var}")]
    MissingApiKey { provider: &'static str, env_var: &'static str },
    #[error("cannot reach {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("{provider} answered HTTP {status}: {message}")]
    Http { provider: &'static str, status: u16, message: String, retry_after: Option<Duration> },
    #[error("{provider} reported {kind}: {message}")]
    Api { provider: &'static str, kind: String, message: String },
    #[error("the {provider} response stream broke midway: {reason}")]
    StreamBroken { provider: &'static str, reason: String },
    #[error("no data from {provider} for {0:?}; gave up waiting", .after)]
    Idle { provider: &'static str, after: Duration },
    #[error("unexpected data from {provider}: {reason}")]
    Decode { provider: &'static str, reason: String },
    /// The turn's retry budget ran out: the last error, and the whole time spent.
    #[error("gave up after {:.1} s and {attempts} attempts (retry budget {:.0} s); the last: {last}", .waited.as_secs_f64(), .budget.as_secs_f64())]
    GaveUp { waited: Duration, attempts: u32, budget: Duration, last: Box<ProviderError> },
}

impl ProviderError {
    /// Whether the same request may succeed if sent again: overload, rate limits,
    /// server errors, and failures to connect or to get a first byte.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Http { status, .. } => matches!(status, 408 | 409 | 429 | 500..=599),
            Self::Api { kind, .. } => {
                matches!(
                    kind.as_str(),
                    "overloaded_error" | "api_error" | "rate_limit_error" | "server_error" | "timeout"
                )
            }
            Self::Connect { .. } | Self::StreamBroken { .. } | Self::Idle { .. } => true,
            Self::MissingApiKey { .. } | Self::Decode { .. } | Self::GaveUp { .. } => false,
        }
    }

    /// Whether the provider refused the request as longer than the model's
    /// context window: Anthropic's `prompt is too long`, OpenAI's
    /// `context_length_exceeded`, llama.cpp's `exceeds the available context
    /// size`, Ollama's and vLLM's wordings.
    pub fn is_context_overflow(&self) -> bool {
        let message = match self {
            Self::Http { status: 400 | 413 | 422, message, .. } | Self::Api { message, .. } => message,
            _ => return false,
        };
        let m = message.to_ascii_lowercase();
        OVERFLOW_WORDS.iter().any(|w| m.contains(w))
    }

    /// The sizes a context-window refusal names: (the request's tokens, the window).
    pub fn overflow_sizes(&self) -> (Option<u64>, Option<u64>) {
        let (Self::Http { message, .. } | Self::Api { message, .. }) = self else { return (None, None) };
        overflow_sizes(message)
    }

    /// How long the provider asked us to wait, if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

const OVERFLOW_WORDS: &[&str] = &[
    "prompt is too long",
    "context_length_exceeded",
    "maximum context length",
    "exceeds the available context size",
    "exceed_context_size",
    "exceed context limit",
    "context window",
    "longer than the model's context length",
    "input length exceeds",
];

/// Reads "31830 tokens > 30000 maximum" (Anthropic, and llama.cpp's sizes as
/// http.rs words them) or "maximum context length is 8192 tokens … resulted in
/// 9000 tokens" (OpenAI, vLLM).
fn overflow_sizes(message: &str) -> (Option<u64>, Option<u64>) {
    let numbers: Vec<(usize, u64)> = message
        .char_indices()
        .filter(|(i, c)| c.is_ascii_digit() && !message[..*i].ends_with(|p: char| p.is_ascii_digit()))
        .filter_map(|(i, _)| {
            let digits: String = message[i..].chars().take_while(char::is_ascii_digit).collect();
            Some((i, digits.parse().ok()?))
        })
        .collect();
    let after = |i: usize, word: &str| {
        message[i..].chars().skip_while(char::is_ascii_digit).collect::<String>().trim_start().starts_with(word)
    };
    if let Some(k) = numbers.iter().position(|&(i, _)| after(i, "tokens >")) {
        return (Some(numbers[k].1), numbers.get(k + 1).map(|n| n.1));
    }
    let lower = message.to_ascii_lowercase();
    if let Some(at) = lower.find("maximum context length is") {
        let window = numbers.iter().find(|(i, _)| *i > at).map(|n| n.1);
        let used = lower.find("resulted in").and_then(|r| numbers.iter().find(|(i, _)| *i > r)).map(|n| n.1);
        return (used, window);
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> ProviderError {
        ProviderError::Http { provider: "anthropic", status, message: String::new(), retry_after: None }
    }

    #[test]
    fn each_providers_context_window_refusal_is_known_with_its_sizes() {
        let anthropic = ProviderError::Http {
            provider: "anthropic",
            status: 400,
            message: "invalid_request_error: prompt is too long: 31830 tokens > 30000 maximum".into(),
            retry_after: None,
        };
        assert!(anthropic.is_context_overflow());
        assert_eq!(anthropic.overflow_sizes(), (Some(31_830), Some(30_000)));
        let openai = ProviderError::Http {
            provider: "openai",
            status: 400,
            message: "invalid_request_error: This model's maximum context length is 8192 tokens. However, your \
                      messages resulted in 9013 tokens. Please reduce the length of the messages. (context_length_exceeded)"
                .into(),
            retry_after: None,
        };
        assert!(openai.is_context_overflow());
        assert_eq!(openai.overflow_sizes(), (Some(9013), Some(8192)));
        let llama = ProviderError::Http {
            provider: "openai",
            status: 400,
            message: "exceed_context_size_error: the request exceeds the available context size, try increasing it \
                      (8300 tokens > 8192 maximum)"
                .into(),
            retry_after: None,
        };
        assert!(llama.is_context_overflow());
        assert_eq!(llama.overflow_sizes(), (Some(8300), Some(8192)));
        // Other refusals are not, and a server error never is.
        let other = ProviderError::Http {
            provider: "anthropic",
            status: 400,
            message: "invalid_request_error: messages: roles must alternate".into(),
            retry_after: None,
        };
        assert!(!other.is_context_overflow());
        assert!(!http(500).is_context_overflow());
    }

    #[test]
    fn overload_rate_limit_and_server_errors_are_retryable() {
        for s in [429, 500, 502, 503, 529] {
            assert!(http(s).is_retryable(), "{s}");
        }
        for s in [400, 401, 403, 404, 413] {
            assert!(!http(s).is_retryable(), "{s}");
        }
        assert!(
            ProviderError::Api { provider: "anthropic", kind: "overloaded_error".into(), message: String::new() }
                .is_retryable()
        );
        assert!(
            !ProviderError::Api { provider: "anthropic", kind: "invalid_request_error".into(), message: String::new() }
                .is_retryable()
        );
    }
}
