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

    /// How long the provider asked us to wait, if it did.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16) -> ProviderError {
        ProviderError::Http { provider: "anthropic", status, message: String::new(), retry_after: None }
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
