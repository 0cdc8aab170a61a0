//! The event-stream contracts (design.md §3.1), checked over a whole log: what
//! scenario tests, the soak and the store's tests assert after every run.
//!
//! - `seq` starts where the log starts and has no gaps or repeats;
//! - per tool call: `tool_call` < `approval_request` < `approval_resolved` < `tool_output`,
//!   each at most once, and every call that ran or was refused has its output;
//! - every approval request is resolved exactly once, by an event of its own agent;
//! - every agent that started has ended: its last status is terminal.

use arbor_protocol::{AgentEvent, AgentId, AgentStates, EventKind};
use std::collections::HashMap;

/// One broken promise, in words that name the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation(pub String);

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where each step of one tool call was seen (by `seq`).
#[derive(Default)]
struct CallSteps {
    call: Option<u64>,
    requests: Vec<(u64, String)>,
    output: Option<u64>,
}

/// Every contract `events` (one session's log, in the order received) breaks.
/// `ended`: the session is over, so every agent must be in a terminal state.
pub fn violations(events: &[AgentEvent], ended: bool) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut bad = |s: String| out.push(Violation(s));
    if let Some(first) = events.first() {
        for (i, e) in events.iter().enumerate() {
            let want = first.seq + i as u64;
            if e.seq != want {
                bad(format!("seq {} at position {i}: expected {want} (a gap, a repeat or out of order)", e.seq));
                break;
            }
        }
    }
    let mut calls: HashMap<(AgentId, String), CallSteps> = HashMap::new();
    // request id → (asking agent, call id, resolutions seen)
    let mut requests: HashMap<String, (AgentId, String, u32)> = HashMap::new();
    for e in events {
        match &e.kind {
            EventKind::ToolCall(c) => {
                let steps = calls.entry((e.agent_id.clone(), c.call_id.clone())).or_default();
                if steps.call.replace(e.seq).is_some() {
                    bad(format!("{}: tool_call {} announced twice", e.agent_id, c.call_id));
                }
            }
            EventKind::ApprovalRequest(r) => {
                let steps = calls.entry((e.agent_id.clone(), r.call_id.clone())).or_default();
                if steps.call.is_none() {
                    bad(format!(
                        "{}: approval_request {} before its tool_call {}",
                        e.agent_id, r.request_id, r.call_id
                    ));
                }
                if steps.output.is_some() {
                    bad(format!("{}: approval_request {} after its call's output", e.agent_id, r.request_id));
                }
                steps.requests.push((e.seq, r.request_id.clone()));
                if requests.insert(r.request_id.clone(), (e.agent_id.clone(), r.call_id.clone(), 0)).is_some() {
                    bad(format!("approval request id {} used twice", r.request_id));
                }
            }
            EventKind::ApprovalResolved(r) => match requests.get_mut(&r.request_id) {
                None => bad(format!("approval_resolved {} (seq {}) with no request before it", r.request_id, e.seq)),
                Some((agent, call_id, n)) => {
                    *n += 1;
                    if *n > 1 {
                        bad(format!("approval {} resolved {} times", r.request_id, n));
                    }
                    if *agent != e.agent_id {
                        bad(format!("approval {} of {agent} resolved as {}'s", r.request_id, e.agent_id));
                    }
                    let done = calls.get(&(agent.clone(), call_id.clone())).and_then(|s| s.output);
                    if let Some(at) = done {
                        bad(format!(
                            "approval_resolved {} (seq {}) after its call's tool_output (seq {at})",
                            r.request_id, e.seq
                        ));
                    }
                }
            },
            EventKind::ToolOutput(o) => {
                let steps = calls.entry((e.agent_id.clone(), o.call_id.clone())).or_default();
                if steps.call.is_none() {
                    bad(format!("{}: tool_output {} with no tool_call before it", e.agent_id, o.call_id));
                }
                if steps.output.replace(e.seq).is_some() {
                    bad(format!("{}: tool_output {} twice", e.agent_id, o.call_id));
                }
                for (_, id) in &steps.requests {
                    if requests.get(id).is_some_and(|(_, _, n)| *n == 0) {
                        bad(format!("{}: tool_output {} before approval {id} was resolved", e.agent_id, o.call_id));
                    }
                }
            }
            _ => {}
        }
    }
    if ended {
        for (id, (agent, _, n)) in &requests {
            if *n == 0 {
                bad(format!("approval {id} of {agent} was never resolved"));
            }
        }
        for ((agent, call), steps) in &calls {
            if steps.output.is_none() {
                bad(format!("{agent}: tool call {call} has no tool_output"));
            }
        }
        let mut states = AgentStates::default();
        for e in events {
            states.apply(e);
        }
        for a in states.agents() {
            if !a.status.is_terminal() {
                bad(format!("{} ({}) left {}", a.id, a.description, a.status.as_str()));
            }
        }
    }
    out
}
