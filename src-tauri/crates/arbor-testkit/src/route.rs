//! Routing: validates a request, finds the rule and turn it lands on, and
//! decides the answer (an error or the SSE events of a played turn).

use crate::play::{Play, Slot};
use crate::request::{Conversation, truncate};
use crate::scenario::{Match, Scenario};
use crate::{Api, anthropic, openai, validate};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How many `fail_first` failures each (rule, turn) has served.
pub(crate) type FailCounts = HashMap<(usize, usize), u32>;

pub(crate) enum Outcome {
    Error {
        status: u16,
        message: String,
        retry_after: Option<u64>,
    },
    /// Longer than the scenario's context window: the provider's own refusal.
    Overflow {
        tokens: u64,
        window: u64,
    },
    Stream {
        events: Vec<String>,
        chunk_delay: Duration,
        cut_after: Option<usize>,
    },
}

pub(crate) fn error(status: u16, message: String) -> Outcome {
    Outcome::Error { status, message, retry_after: None }
}

/// Validates, routes and picks the turn: (rule index, delay_ms, outcome).
pub(crate) fn decide(
    scenario: &Scenario,
    failures: &Mutex<FailCounts>,
    api: Api,
    headers: &[(String, String)],
    body: &Value,
    conv: &Conversation,
    request_chars: usize,
) -> (Option<usize>, u64, Outcome) {
    let checked = match api {
        Api::Anthropic => validate::anthropic(headers, body, scenario.keyless),
        Api::OpenAi => validate::openai(headers, body, scenario.keyless),
    };
    if let Err(v) = checked {
        return (None, 0, error(v.status, v.message));
    }
    let tokens = crate::play::tokens(request_chars);
    if let Some(window) = scenario.context_window.filter(|w| tokens > *w) {
        return (None, 0, Outcome::Overflow { tokens, window });
    }
    let Some((r, rule)) = scenario.rules.iter().enumerate().find(|(_, rule)| matches(&rule.matcher, conv)) else {
        let message = format!(
            "arbor-testkit scenario '{}': no rule matches this request (first user text: {:?}; last user text: {:?})",
            scenario.name,
            truncate(&conv.first_user, 120),
            truncate(&conv.last_user, 80)
        );
        return (None, 0, error(400, message));
    };
    let n = conv.assistant_count;
    let t = match (n < rule.turns.len(), rule.repeat_last) {
        (true, _) => n,
        (false, true) => rule.turns.len() - 1,
        (false, false) => {
            let message = format!(
                "arbor-testkit scenario '{}' has no turn {n} for rule {r} (the rule has {} turn(s); set repeat_last to replay the last one)",
                scenario.name,
                rule.turns.len()
            );
            return (Some(r), 0, error(400, message));
        }
    };
    let turn = &rule.turns[t];
    let delay = turn.delay_ms;
    if let Some(fail) = &turn.fail_first {
        let mut failures = failures.lock().unwrap_or_else(PoisonError::into_inner);
        let served = failures.entry((r, t)).or_insert(0);
        if *served < fail.times {
            *served += 1;
            let message = format!("arbor-testkit scripted failure {} of {} (rule {r}, turn {t})", *served, fail.times);
            return (Some(r), delay, Outcome::Error { status: fail.status, message, retry_after: fail.retry_after });
        }
    }
    if let Some(status) = turn.status {
        return (Some(r), delay, error(status, format!("arbor-testkit scripted error (rule {r}, turn {t})")));
    }
    let model = body.get("model").and_then(Value::as_str).unwrap_or_default();
    let mut play = Play::new(api, turn, conv, Slot { rule: r, turn: n }, model, request_chars);
    let events = match api {
        Api::Anthropic => anthropic::events(&play),
        Api::OpenAi => {
            play.include_usage = body.pointer("/stream_options/include_usage") == Some(&Value::Bool(true));
            let created = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
            openai::events(&play, created)
        }
    };
    let chunk_delay = Duration::from_millis(turn.chunk_delay_ms);
    (Some(r), delay, Outcome::Stream { events, chunk_delay, cut_after: turn.cut_after_events })
}

fn matches(m: &Match, conv: &Conversation) -> bool {
    let holds = |needle: &Option<String>, hay: &str| needle.as_deref().is_none_or(|n| hay.contains(n));
    holds(&m.first_user_contains, &conv.first_user)
        && holds(&m.system_contains, &conv.system)
        && holds(&m.last_user_contains, &conv.last_user)
        && holds(&m.last_tool_result_contains, &conv.last_tool_result)
        && m.model.as_deref().is_none_or(|want| conv.model == want)
}
