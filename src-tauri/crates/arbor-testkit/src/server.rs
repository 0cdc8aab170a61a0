//! The HTTP side: binds 127.0.0.1:0, routes each request to a scenario turn,
//! records it, and answers with an error body or an SSE stream.

use crate::request::Conversation;
use crate::respond::{error_response, stream_response};
use crate::route::{FailCounts, Outcome, decide, error};
use crate::scenario::Scenario;
use crate::{Api, RecordedRequest, TestkitError};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use serde_json::Value;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

struct Shared {
    scenario: Scenario,
    requests: Mutex<Vec<RecordedRequest>>,
    failures: Mutex<FailCounts>,
    next_id: AtomicU64,
    /// SSE events written to responses so far (a benchmark's model-side rate).
    sent: Arc<AtomicU64>,
}

/// A poisoned lock only means another handler panicked; the data is still usable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The scripted model server. Runs on the current tokio runtime; stops on
/// [`ScriptedServer::shutdown`] or when dropped.
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl ScriptedServer {
    pub async fn start(scenario: Scenario) -> Result<ScriptedServer, TestkitError> {
        scenario
            .check()
            .map_err(|message| TestkitError::Scenario { file: format!("scenario '{}'", scenario.name), message })?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(TestkitError::Bind)?;
        let addr = listener.local_addr().map_err(TestkitError::Bind)?;
        let shared = Arc::new(Shared {
            scenario,
            requests: Mutex::new(Vec::new()),
            failures: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            sent: Arc::new(AtomicU64::new(0)),
        });
        let app = Router::new()
            .route("/v1/messages", post(anthropic_handler))
            .route("/v1/chat/completions", post(openai_handler))
            .route("/chat/completions", post(openai_handler))
            .route("/props", get(props_handler))
            .route("/api/show", post(not_served))
            .fallback(fallback)
            // Long agent conversations easily pass axum's 2 MB default.
            .layer(DefaultBodyLimit::disable())
            .with_state(shared.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            // Real APIs flush each SSE event at once; without NODELAY, Nagle's algorithm
            // would hold small events back and distort latency in tests and benchmarks.
            let listener = listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let serve = axum::serve(listener, app).with_graceful_shutdown(async {
                // A dropped sender stops the server too.
                let _ = stopped.await;
            });
            if let Err(e) = serve.await {
                tracing::warn!("arbor-testkit server stopped with an error: {e}");
            }
        });
        Ok(ScriptedServer { addr, shared, stop: Some(stop), task: Some(task) })
    }

    pub fn anthropic_base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn scenario(&self) -> &Scenario {
        &self.shared.scenario
    }

    /// Every request so far, in arrival order, failed ones included.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// How many SSE events (text and tool-input deltas among them) the server has
    /// written to its streams so far: what a benchmark's model sent, before any client
    /// merged them.
    pub fn events_sent(&self) -> u64 {
        self.shared.sent.load(Ordering::Relaxed)
    }

    /// Stops accepting, lets in-flight responses finish for up to a second, then aborts.
    pub async fn shutdown(mut self) {
        self.stop.take();
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(1), &mut task).await.is_err()
        {
            task.abort();
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        // Dropping the sender triggers the graceful shutdown.
        self.stop.take();
    }
}

async fn anthropic_handler(State(s): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    handle(&s, Api::Anthropic, uri.path(), &headers, &body).await
}

async fn openai_handler(State(s): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    handle(&s, Api::OpenAi, uri.path(), &headers, &body).await
}

/// llama.cpp's `GET /props`, played by a local server's scenario (`keyless`) with a
/// window: the window it serves. Not a model request, so not recorded.
async fn props_handler(State(s): State<Arc<Shared>>) -> Response {
    match (s.scenario.keyless, s.scenario.context_window) {
        (true, Some(n_ctx)) => {
            axum::Json(serde_json::json!({ "default_generation_settings": { "n_ctx": n_ctx }, "total_slots": 1 }))
                .into_response()
        }
        _ => not_served().await,
    }
}

/// What a server that does not serve a probe answers (Ollama's `/api/show` here).
async fn not_served() -> Response {
    (axum::http::StatusCode::NOT_FOUND, "not served").into_response()
}

async fn fallback(State(s): State<Arc<Shared>>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let path = uri.path();
    let api = if path.contains("chat/completions") { Api::OpenAi } else { Api::Anthropic };
    let body = serde_json::from_slice(&body).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into()));
    let conv = Conversation::of(api, &body);
    let message = format!(
        "arbor-testkit serves POST /v1/messages (Anthropic) and POST /v1/chat/completions (OpenAI), not {path}"
    );
    let request_id = request_id(&s);
    record(&s, api, path, lower_headers(&headers), body, &conv, None, 404);
    error_response(api, 404, &message, None, &request_id)
}

async fn handle(s: &Shared, api: Api, path: &str, headers: &HeaderMap, raw: &Bytes) -> Response {
    let headers = lower_headers(headers);
    let (body, parse_error) = match serde_json::from_slice::<Value>(raw) {
        Ok(v) => (v, None),
        Err(e) => (Value::String(String::from_utf8_lossy(raw).into()), Some(e)),
    };
    let conv = Conversation::of(api, &body);
    let (rule, delay, outcome) = match parse_error {
        Some(e) => (None, 0, error(400, format!("the request body is not valid JSON: {e}"))),
        None => decide(&s.scenario, &s.failures, api, &headers, &body, &conv, raw.len()),
    };
    let status = match &outcome {
        Outcome::Error { status, .. } => *status,
        Outcome::Overflow { .. } => 400,
        Outcome::Stream { .. } => 200,
    };
    tracing::debug!(?api, path, ?rule, turn = conv.assistant_count, status, "arbor-testkit request");
    let request_id = request_id(s);
    record(s, api, path, headers, body, &conv, rule, status);
    if delay > 0 {
        precise_sleep(Duration::from_millis(delay)).await;
    }
    match outcome {
        Outcome::Error { status, message, retry_after } => {
            error_response(api, status, &message, retry_after, &request_id)
        }
        Outcome::Overflow { tokens, window } => crate::respond::overflow_response(api, tokens, window, &request_id),
        Outcome::Stream { events, chunk_delay, cut_after } => {
            stream_response(api, events, chunk_delay, cut_after, &request_id, s.sent.clone())
        }
    }
}

fn lower_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(n, v)| (n.as_str().to_ascii_lowercase(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect()
}

fn request_id(s: &Shared) -> String {
    format!("req_01testkit{:06}", s.next_id.fetch_add(1, Ordering::Relaxed))
}

#[allow(clippy::too_many_arguments)]
fn record(
    s: &Shared,
    api: Api,
    path: &str,
    headers: Vec<(String, String)>,
    body: Value,
    conv: &Conversation,
    rule: Option<usize>,
    status: u16,
) {
    lock(&s.requests).push(RecordedRequest {
        api,
        path: path.to_string(),
        headers,
        body,
        rule,
        turn: conv.assistant_count,
        status,
        first_user_text: conv.first_user.clone(),
        system_text: conv.system.clone(),
    });
}

/// How far before the deadline [`precise_sleep`] leaves tokio's timer.
const TIMER_SLACK: Duration = Duration::from_millis(2);

/// Sleeps `d`, to within tens of microseconds. tokio's timer has millisecond ticks and
/// rounds deadlines up, so its sleeps end about 1.5 ms late on average: a "50 ms model"
/// would take 51.5 ms, and benchmarks against it would charge the client for the
/// server's oversleeping. So the timer covers all but the last [`TIMER_SLACK`], and a
/// blocking thread (whose sleep is precise) the rest, which holds a pool thread only briefly.
async fn precise_sleep(d: Duration) {
    let deadline = std::time::Instant::now() + d;
    if d > TIMER_SLACK {
        tokio::time::sleep_until((deadline - TIMER_SLACK).into()).await;
    }
    let rest = deadline.saturating_duration_since(std::time::Instant::now());
    if rest.is_zero() {
        return;
    }
    // A failed join only means the runtime is shutting down; the server stops with it.
    let _ = tokio::task::spawn_blocking(move || std::thread::sleep(rest)).await;
}
