//! HTTP plumbing shared by the providers: sending with timeouts, turning error
//! responses into `ProviderError`, and decoding a server-sent-event body (with the
//! `eventsource-stream` crate) into a `ResponseStream` through a per-API decoder.

use super::{ModelResponse, ProviderError, ResponseStream, StreamEvent};
use eventsource_stream::{Event, EventStreamError, Eventsource};
use futures::{StreamExt, stream};
use std::time::Duration;

/// How long to wait before giving up, so that nothing hangs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timeouts {
    pub connect: Duration,
    /// From sending the request to the response's headers.
    pub response: Duration,
    /// Between two pieces of a streamed body (providers send pings while they think).
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self { connect: Duration::from_secs(10), response: Duration::from_secs(120), idle: Duration::from_secs(120) }
    }
}

/// The process's HTTP client for `connect` (every provider and MCP server shares it,
/// so its connection pool and the CA bundle it reads at the first HTTPS handshake
/// serve them all); another connect timeout gets a client of its own.
pub(crate) fn client(timeouts: &Timeouts) -> Result<reqwest::Client, ProviderError> {
    static SHARED: parking_lot::Mutex<Option<(Duration, reqwest::Client)>> = parking_lot::Mutex::new(None);
    let mut shared = SHARED.lock();
    if let Some((connect, client)) = shared.as_ref()
        && *connect == timeouts.connect
    {
        return Ok(client.clone());
    }
    let client = build(timeouts.connect).map_err(|e| ProviderError::Connect {
        url: String::new(),
        reason: format!("cannot build an HTTP client: {e}"),
    })?;
    *shared = Some((timeouts.connect, client.clone()));
    Ok(client)
}

fn build(connect: Duration) -> Result<reqwest::Client, String> {
    let tls = super::tls::client_config().map_err(|e| e.to_string())?;
    reqwest::Client::builder()
        .connect_timeout(connect)
        .tls_backend_preconfigured(tls)
        .build()
        .map_err(|e| e.to_string())
}

/// The client for an MCP server's streamable HTTP transport.
pub(crate) fn mcp_client() -> Result<reqwest::Client, String> {
    client(&Timeouts::default()).map_err(|e| e.to_string())
}

/// Sends the request; a non-success status becomes `ProviderError::Http` with the
/// API's own message and retry-after.
pub(crate) async fn send(
    provider: &'static str,
    url: &str,
    request: reqwest::RequestBuilder,
    timeouts: &Timeouts,
) -> Result<reqwest::Response, ProviderError> {
    let connect_err = |reason: String| ProviderError::Connect { url: url.to_string(), reason };
    let response = match tokio::time::timeout(timeouts.response, request.send()).await {
        Err(_) => return Err(connect_err(format!("no response within {:?}", timeouts.response))),
        Ok(Err(e)) => return Err(connect_err(error_chain(&e))),
        Ok(Ok(r)) => r,
    };
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    let retry_after = retry_after(response.headers());
    let body = tokio::time::timeout(timeouts.idle, response.text()).await.ok().and_then(Result::ok).unwrap_or_default();
    Err(ProviderError::Http { provider, status: status.as_u16(), message: api_error_message(&body), retry_after })
}

/// The human part of an error body from either API, else the body itself, shortened.
fn api_error_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let msg = parsed.as_ref().and_then(|v| {
        let err = v.get("error")?;
        let text = err.get("message").and_then(|m| m.as_str()).or_else(|| err.as_str())?;
        let mut out = match err.get("type").and_then(|t| t.as_str()) {
            Some(kind) => format!("{kind}: {text}"),
            None => text.to_string(),
        };
        // OpenAI's code (context_length_exceeded) and llama.cpp's sizes say what the text may not.
        if let Some(code) = err.get("code").and_then(|c| c.as_str()).filter(|c| !out.contains(c)) {
            out.push_str(&format!(" ({code})"));
        }
        let n = |k: &str| err.get(k).and_then(serde_json::Value::as_u64);
        if let (Some(prompt), Some(ctx)) = (n("n_prompt_tokens"), n("n_ctx")) {
            out.push_str(&format!(" ({prompt} tokens > {ctx} maximum)"));
        }
        Some(out)
    });
    let text = msg.unwrap_or_else(|| body.trim().to_string());
    if text.is_empty() { "(empty body)".to_string() } else { truncate(&text, 500) }
}

fn retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).and_then(|s| s.trim().parse::<f64>().ok());
    if let Some(ms) = get("retry-after-ms") {
        return Duration::try_from_secs_f64(ms / 1000.0).ok();
    }
    get("retry-after").and_then(|s| Duration::try_from_secs_f64(s).ok())
}

/// reqwest's Display hides the cause ("error sending request"); the chain says why.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// What each API's stream decoder does with one SSE event.
pub(crate) trait Decoder: Send + 'static {
    const PROVIDER: &'static str;
    /// Deltas to pass on, and whether this event ends the response.
    fn on_event(&mut self, event: &Event) -> Result<(Vec<StreamEvent>, bool), ProviderError>;
    /// The whole response; `saw_end` says whether the API's end marker arrived.
    fn finish(self, saw_end: bool) -> Result<ModelResponse, ProviderError>;
}

/// Decodes an SSE body with `decoder`, giving up after `idle` without data.
pub(crate) fn decode<D: Decoder>(response: reqwest::Response, decoder: D, idle: Duration) -> ResponseStream {
    let events = response.bytes_stream().eventsource();
    let state = Some((Box::pin(events), decoder));
    stream::unfold(state, move |state| async move {
        let (mut events, mut decoder) = state?;
        loop {
            let next = match tokio::time::timeout(idle, events.next()).await {
                Ok(next) => next,
                Err(_) => return Some((vec![Err(ProviderError::Idle { provider: D::PROVIDER, after: idle })], None)),
            };
            let event = match next {
                None => return Some((vec![decoder.finish(false).map(StreamEvent::Completed)], None)),
                Some(Err(e)) => return Some((vec![Err(stream_error::<D>(e))], None)),
                Some(Ok(event)) => event,
            };
            match decoder.on_event(&event) {
                Err(e) => return Some((vec![Err(e)], None)),
                Ok((deltas, true)) => {
                    drain(events, idle);
                    let mut out: Vec<_> = deltas.into_iter().map(Ok).collect();
                    out.push(decoder.finish(true).map(StreamEvent::Completed));
                    return Some((out, None));
                }
                Ok((deltas, false)) if deltas.is_empty() => continue,
                Ok((deltas, false)) => return Some((deltas.into_iter().map(Ok).collect(), Some((events, decoder)))),
            }
        }
    })
    .flat_map(stream::iter)
    .boxed()
}

/// Reads what follows the end marker (the body's terminator) in the background,
/// so the connection goes back to the pool instead of being torn down: otherwise
/// every turn would pay a new TCP and TLS handshake.
fn drain<S: futures::Stream + Send + Unpin + 'static>(mut rest: S, idle: Duration) {
    tokio::spawn(async move {
        let _ = tokio::time::timeout(idle, async { while rest.next().await.is_some() {} }).await;
    });
}

fn stream_error<D: Decoder>(e: EventStreamError<reqwest::Error>) -> ProviderError {
    match e {
        EventStreamError::Transport(e) => {
            ProviderError::StreamBroken { provider: D::PROVIDER, reason: error_chain(&e) }
        }
        EventStreamError::Utf8(e) => {
            ProviderError::Decode { provider: D::PROVIDER, reason: format!("invalid UTF-8: {e}") }
        }
        EventStreamError::Parser(e) => {
            ProviderError::Decode { provider: D::PROVIDER, reason: format!("malformed SSE: {e}") }
        }
    }
}

/// Parses one SSE event's JSON payload.
pub(crate) fn json<D: Decoder>(event: &Event) -> Result<serde_json::Value, ProviderError> {
    serde_json::from_str(&event.data).map_err(|e| ProviderError::Decode {
        provider: D::PROVIDER,
        reason: format!("event {:?} is not JSON ({e}): {}", event.event, truncate(&event.data, 200)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_error_bodies_of_both_apis_are_read() {
        let a = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(api_error_message(a), "overloaded_error: Overloaded");
        let o = r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}"#;
        assert_eq!(api_error_message(o), "invalid_request_error: Incorrect API key (invalid_api_key)");
        // llama.cpp's refusal of a request over its window names the sizes in fields of their own.
        let l = r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8300,"n_ctx":8192}}"#;
        assert_eq!(
            api_error_message(l),
            "exceed_context_size_error: the request exceeds the available context size, try increasing it \
             (8300 tokens > 8192 maximum)"
        );
        assert_eq!(api_error_message("  bad gateway \n"), "bad gateway");
        assert_eq!(api_error_message(""), "(empty body)");
    }
}
