//! Time-bounded property-based fuzzing (proptest; no nightly toolchain here):
//! a target runs random inputs for `ARBOR_FUZZ_SECONDS` (a short default in CI,
//! `ARBOR_FUZZ_SECONDS=600` for the long run), reports a panic with the shrunk
//! input that caused it and the seed that replays it, and treats a case that runs
//! longer than [`HANG`] as a hang.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One case running longer than this is a hang.
pub const HANG: Duration = Duration::from_secs(10);

/// Runs `check` on inputs from `strategy` for the configured time; panics with
/// the failing (shrunk) input. Returns how many cases ran.
#[allow(clippy::print_stderr)]
pub fn fuzz<S>(name: &str, default_secs: u64, strategy: S, check: impl Fn(S::Value))
where
    S: Strategy,
    S::Value: std::fmt::Debug,
{
    let secs = std::env::var("ARBOR_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(default_secs);
    let first_seed = std::env::var("ARBOR_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1u64);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let current = Arc::new(parking_lot::Mutex::new((Instant::now(), String::new())));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (current, done, name) = (current.clone(), done.clone(), name.to_string());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let (since, input) = current.lock().clone();
                if since.elapsed() > HANG && !done.load(Ordering::Relaxed) {
                    eprintln!("fuzz {name}: a case has run for over {HANG:?} (a hang) on input {input}");
                    std::process::exit(101);
                }
            }
        })
    };
    let cases = std::sync::atomic::AtomicU64::new(0);
    let mut seed = first_seed;
    while Instant::now() < deadline {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
        let config = Config { cases: 256, failure_persistence: None, max_shrink_iters: 2048, ..Config::default() };
        let mut runner = TestRunner::new_with_rng(config, rng);
        let result = runner.run(&strategy, |input| {
            *current.lock() = (Instant::now(), format!("{input:?}").chars().take(2000).collect());
            cases.fetch_add(1, Ordering::Relaxed);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(input)));
            outcome.map_err(|p| {
                let msg =
                    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
                TestCaseError::fail(msg.unwrap_or_default())
            })
        });
        if let Err(e) = result {
            done.store(true, Ordering::Relaxed);
            panic!("fuzz {name} (ARBOR_FUZZ_SEED={seed}): {e}");
        }
        seed += 1;
    }
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    eprintln!("fuzz {name}: {} cases in {secs} s, 0 panics, 0 hangs", cases.load(Ordering::Relaxed));
}

/// Any JSON value, nested a few levels, with strings that mix plain text,
/// unicode, escapes and the markers parsers look for.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Object keys: the names the parsers under test know, and anything else.
pub fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(KEYS).prop_map(str::to_string),
        1 => text(),
    ]
}

/// Text parsers meet: arbitrary unicode, or pieces of the formats themselves.
pub fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,40}",
        prop::sample::select(PIECES).prop_map(str::to_string),
        "[a-z_:{}$\\[\\]\"\\\\ -]{0,30}",
        (0usize..5000).prop_map(|n| "x".repeat(n)),
    ]
}

const KEYS: &[&str] = &[
    "type",
    "index",
    "id",
    "name",
    "input",
    "delta",
    "text",
    "thinking",
    "partial_json",
    "signature",
    "content_block",
    "message",
    "usage",
    "input_tokens",
    "output_tokens",
    "stop_reason",
    "error",
    "choices",
    "finish_reason",
    "tool_calls",
    "function",
    "arguments",
    "content",
    "reasoning_content",
    "role",
    "mcpServers",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "request_id",
    "approved",
    "scope",
    "agent_id",
    "prompt",
    "file_path",
    "pattern",
];

const PIECES: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
    "text_delta",
    "input_json_delta",
    "thinking_delta",
    "signature_delta",
    "tool_use",
    "text",
    "[DONE]",
    "{\"",
    "\"}",
    "${HOME}",
    "${X:-y}",
    "${",
    "---",
    "\u{feff}",
    "\r\n",
    "null",
];
