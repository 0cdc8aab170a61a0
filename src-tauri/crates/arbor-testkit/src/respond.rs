//! Building HTTP responses: API-shaped error bodies and SSE streams that can
//! be slowed down or cut mid-way.

use crate::{Api, anthropic, openai};
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

fn request_id_header(api: Api) -> &'static str {
    match api {
        Api::Anthropic => "request-id",
        Api::OpenAi => "x-request-id",
    }
}

pub(crate) fn error_response(
    api: Api,
    status: u16,
    message: &str,
    retry_after: Option<u64>,
    request_id: &str,
) -> Response {
    let body = match api {
        Api::Anthropic => anthropic::error_body(status, message, request_id),
        Api::OpenAi => openai::error_body(status, message),
    };
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    let mut response = (code, axum::Json(body)).into_response();
    let h = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(request_id) {
        h.insert(request_id_header(api), v);
    }
    if let Some(secs) = retry_after {
        h.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    response
}

/// A request longer than the window, refused as each API refuses it (the real bodies).
pub(crate) fn overflow_response(api: Api, tokens: u64, window: u64, request_id: &str) -> Response {
    let body = match api {
        Api::Anthropic => {
            anthropic::error_body(400, &format!("prompt is too long: {tokens} tokens > {window} maximum"), request_id)
        }
        Api::OpenAi => openai::overflow_body(tokens, window),
    };
    let mut response = (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    if let Ok(v) = HeaderValue::from_str(request_id) {
        response.headers_mut().insert(request_id_header(api), v);
    }
    response
}

struct Feed {
    events: std::vec::IntoIter<String>,
    sent: usize,
    chunk_delay: Duration,
    /// When the first event went out: event n is due `n × chunk_delay` after it.
    started: Option<tokio::time::Instant>,
    cut_after: Option<usize>,
    done: bool,
    counter: Arc<AtomicU64>,
}

pub(crate) fn stream_response(
    api: Api,
    events: Vec<String>,
    chunk_delay: Duration,
    cut_after: Option<usize>,
    request_id: &str,
    counter: Arc<AtomicU64>,
) -> Response {
    let feed =
        Feed { events: events.into_iter(), sent: 0, chunk_delay, started: None, cut_after, done: false, counter };
    let stream = futures::stream::unfold(feed, |mut f| async move {
        if f.done {
            return None;
        }
        let next = if f.cut_after == Some(f.sent) { None } else { f.events.next() };
        let Some(event) = next else {
            f.cut_after?;
            // Let hyper flush what was sent, then fail the body so the connection
            // drops without a clean end (no terminating chunk).
            tokio::time::sleep(Duration::from_millis(20)).await;
            f.done = true;
            return Some((Err(std::io::Error::other("arbor-testkit: cut_after_events")), f));
        };
        // Paced against a schedule rather than a sleep per event: tokio's timer rounds
        // each sleep up to its next millisecond tick, so "1 ms apart" would really be
        // 1-2 ms and a stream's rate would depend on the timer, not the scenario.
        let started = *f.started.get_or_insert_with(tokio::time::Instant::now);
        if f.sent > 0 && !f.chunk_delay.is_zero() {
            let sent = u32::try_from(f.sent).unwrap_or(u32::MAX);
            tokio::time::sleep_until(started + f.chunk_delay.saturating_mul(sent)).await;
        }
        f.sent += 1;
        f.counter.fetch_add(1, Ordering::Relaxed);
        Some((Ok(Bytes::from(event)), f))
    });
    let mut response = Response::new(Body::from_stream(stream));
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream; charset=utf-8"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(request_id) {
        h.insert(request_id_header(api), v);
    }
    response
}
