//! Test helpers over the runtime's event stream: wait for an event or collect
//! up to one, failing with a description of what was seen instead.

use arbor_protocol::{AgentEvent, EventKind};
use std::collections::VecDeque;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

/// How many recent events an error describes.
const SEEN: usize = 12;

#[derive(Debug, thiserror::Error)]
pub enum WaitError {
    #[error("timed out after {timeout:?} waiting for a matching event; saw {count} event(s), the last: {}", last.join(", "))]
    Timeout { timeout: Duration, count: usize, last: Vec<String> },
    #[error("the event channel closed before a matching event; saw {count} event(s), the last: {}", last.join(", "))]
    Closed { count: usize, last: Vec<String> },
}

/// The first event matching `pred`; events before it are dropped.
pub async fn wait_for_event(
    rx: &mut UnboundedReceiver<AgentEvent>,
    timeout: Duration,
    mut pred: impl FnMut(&AgentEvent) -> bool,
) -> Result<AgentEvent, WaitError> {
    let mut all = collect(rx, timeout, &mut pred, false).await?;
    all.pop().ok_or(WaitError::Closed { count: 0, last: Vec::new() })
}

/// Every event up to and including the first one matching `pred`.
pub async fn collect_until(
    rx: &mut UnboundedReceiver<AgentEvent>,
    timeout: Duration,
    mut pred: impl FnMut(&AgentEvent) -> bool,
) -> Result<Vec<AgentEvent>, WaitError> {
    collect(rx, timeout, &mut pred, true).await
}

async fn collect(
    rx: &mut UnboundedReceiver<AgentEvent>,
    timeout: Duration,
    pred: &mut impl FnMut(&AgentEvent) -> bool,
    keep: bool,
) -> Result<Vec<AgentEvent>, WaitError> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut kept = Vec::new();
    let mut last = VecDeque::new();
    let mut count = 0;
    loop {
        let event = match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(event)) => event,
            Ok(None) => {
                return Err(WaitError::Closed { count, last: last.into() });
            }
            Err(_) => {
                return Err(WaitError::Timeout { timeout, count, last: last.into() });
            }
        };
        count += 1;
        if last.len() == SEEN {
            last.pop_front();
        }
        last.push_back(describe(&event));
        let hit = pred(&event);
        if keep || hit {
            kept.push(event);
        }
        if hit {
            return Ok(kept);
        }
    }
}

/// The event type plus the detail that usually explains a stuck test.
pub fn describe(event: &AgentEvent) -> String {
    let name = event.kind.type_name();
    let detail = match &event.kind {
        EventKind::AgentStatus(s) => s.status.as_str().to_string(),
        EventKind::ToolCall(c) => c.tool_name.clone(),
        EventKind::ToolOutput(o) if o.is_error => format!("error: {}", short(&o.content)),
        EventKind::ApprovalRequest(a) => a.tool_name.clone(),
        EventKind::AgentFinished(f) => match &f.error {
            Some(e) => format!("{}: {}", f.status.as_str(), short(e)),
            None => f.status.as_str().to_string(),
        },
        _ => return format!("{name}[{}]", event.agent_id.0),
    };
    format!("{name}({detail})[{}]", event.agent_id.0)
}

fn short(s: &str) -> String {
    crate::request::truncate(s, 80)
}
