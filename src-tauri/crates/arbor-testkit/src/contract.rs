//! The event-stream contracts (design.md §3.1), checked over a whole log: what
//! scenario tests, the soak and the store's tests assert after every run.
//!
//! - `seq` starts where the log starts and has no gaps or repeats;
//! - per tool call: `tool_input_chunk`s < `tool_call` < `approval_request` < `approval_resolved`
//!   < `tool_output`, each but the chunks and the requests at most once (a call left waiting
//!   when its session closed is asked again when it is continued), and every call that ran or
//!   was refused has its output (a call whose stream broke may have chunks and nothing else; an
//!   agent that ended `interrupted` may leave calls open, to be settled when it is continued);
//! - every approval request is resolved exactly once, by an event of its own agent;
//! - every agent that started has ended: its last status is terminal;
//! - what decided each call is said, and true: a rule decides nothing before the
//!   answer that set it is in the stream, nor after it was revoked; a stale
//!   notice falls between its request and its resolution.

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
            EventKind::ToolInputChunk(c)
                if calls.get(&(e.agent_id.clone(), c.call_id.clone())).is_some_and(|s| s.call.is_some()) =>
            {
                bad(format!("{}: tool_input_chunk (seq {}) after its tool_call {}", e.agent_id, e.seq, c.call_id));
            }
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
            // A change a call made is recorded while the call runs: after its tool_call, before its output.
            EventKind::FileChanged(c) => {
                if let Some(call) = &c.call_id {
                    let steps = calls.entry((e.agent_id.clone(), call.clone())).or_default();
                    if steps.call.is_none() || steps.output.is_some() {
                        bad(format!(
                            "{}: file_changed {} ({}) outside its call {call}",
                            e.agent_id, c.change_id, c.path
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    out.extend(decision_violations(events));
    if ended {
        let mut bad = |s: String| out.push(Violation(s));
        for (id, (agent, _, n)) in &requests {
            if *n == 0 {
                bad(format!("approval {id} of {agent} was never resolved"));
            }
        }
        let mut states = AgentStates::default();
        for e in events {
            states.apply(e);
        }
        let interrupted = |agent: &AgentId| {
            states.agents().iter().any(|a| a.id == *agent && a.status == arbor_protocol::AgentStatus::Interrupted)
        };
        for ((agent, call), steps) in &calls {
            if steps.output.is_none() && !interrupted(agent) {
                bad(format!("{agent}: tool call {call} has no tool_output"));
            }
        }
        for a in states.agents() {
            if !a.status.is_terminal() {
                bad(format!("{} ({}) left {}", a.id, a.description, a.status.as_str()));
            }
        }
    }
    out
}

/// The decision contracts: each `approval_resolved` and `tool_output` says what
/// decided it, consistently with the rules announced so far.
fn decision_violations(events: &[AgentEvent]) -> Vec<Violation> {
    use arbor_protocol::{ApprovalOutcome, ApprovalScope, DecidedBy};
    let mut out = Vec::new();
    let mut bad = |s: String| out.push(Violation(s));
    // rule id → (seq announced, seq revoked)
    let mut rules: HashMap<String, (u64, Option<u64>)> = HashMap::new();
    // request id → (resolved?, the resolution's decided_by when approved or denied)
    let mut requests: HashMap<String, Option<Option<DecidedBy>>> = HashMap::new();
    // (agent, call) → seq of its tool_call, the request that asked about it, the tool
    let mut calls: HashMap<(AgentId, String), (u64, Option<String>, String)> = HashMap::new();
    // request id → (asking agent, tool)
    let mut asked: HashMap<String, (AgentId, String)> = HashMap::new();
    let mut parents: HashMap<AgentId, AgentId> = HashMap::new();
    let ancestors = |parents: &HashMap<AgentId, AgentId>, id: &AgentId| {
        let mut out = Vec::new();
        let mut cur = parents.get(id);
        while let Some(p) = cur.filter(|p| !out.contains(*p) && out.len() < parents.len()) {
            out.push(p.clone());
            cur = parents.get(p);
        }
        out
    };
    for e in events {
        match &e.kind {
            EventKind::AgentStarted(s) => {
                if let Some(p) = &s.parent_id {
                    parents.insert(e.agent_id.clone(), p.clone());
                }
            }
            EventKind::ToolCall(c) => {
                calls.insert((e.agent_id.clone(), c.call_id.clone()), (e.seq, None, c.tool_name.clone()));
            }
            EventKind::ApprovalRequest(r) => {
                requests.insert(r.request_id.clone(), None);
                asked.insert(r.request_id.clone(), (e.agent_id.clone(), r.tool_name.clone()));
                if let Some(c) = calls.get_mut(&(e.agent_id.clone(), r.call_id.clone())) {
                    c.1 = Some(r.request_id.clone());
                }
            }
            EventKind::ApprovalStale(s) => match requests.get(&s.request_id) {
                Some(None) => {}
                Some(Some(_)) => bad(format!("approval_stale {} after its resolution", s.request_id)),
                None => bad(format!("approval_stale {} with no request before it", s.request_id)),
            },
            EventKind::ApprovalResolved(r) => {
                match (&r.outcome, &r.decided_by) {
                    (ApprovalOutcome::Withdrawn, Some(d)) => {
                        bad(format!("withdrawn approval {} says it was decided by {d:?}", r.request_id))
                    }
                    (ApprovalOutcome::Approved | ApprovalOutcome::Denied, None) => {
                        bad(format!("approval {} was answered but does not say by what", r.request_id))
                    }
                    (_, Some(DecidedBy::Policy)) => {
                        bad(format!("approval {} says the policy answered a person's question", r.request_id))
                    }
                    (_, Some(DecidedBy::Rule { rule })) => match rules.get(&rule.rule_id) {
                        None => bad(format!(
                            "approval {} (seq {}) answered by rule {} before that rule was announced",
                            r.request_id, e.seq, rule.rule_id
                        )),
                        Some(_) if rule.approved != r.outcome.is_approved() => {
                            bad(format!("approval {} resolved against its rule {}", r.request_id, rule.rule_id))
                        }
                        Some(_) => {
                            if let Some((agent, tool)) = asked.get(&r.request_id)
                                && !rule.covers(agent, &ancestors(&parents, agent), tool)
                            {
                                bad(format!(
                                    "approval {} answered by rule {} that does not cover it",
                                    r.request_id, rule.rule_id
                                ));
                            }
                        }
                    },
                    _ => {}
                }
                if let Some(rule) = &r.rule {
                    if r.decided_by != Some(DecidedBy::Person) || rule.scope == ApprovalScope::Once {
                        bad(format!(
                            "rule {} set by approval {} that was not a person's scoped answer",
                            rule.rule_id, r.request_id
                        ));
                    }
                    if rule.approved != r.outcome.is_approved() || rule.request_id != r.request_id {
                        bad(format!("rule {} does not match the answer that set it", rule.rule_id));
                    }
                    if rules.insert(rule.rule_id.clone(), (e.seq, None)).is_some() {
                        bad(format!("rule {} announced twice", rule.rule_id));
                    }
                }
                requests.insert(r.request_id.clone(), Some(r.decided_by.clone()));
            }
            EventKind::RuleRevoked(r) => match rules.get_mut(&r.rule_id) {
                Some((_, revoked @ None)) => *revoked = Some(e.seq),
                Some((_, Some(_))) => bad(format!("rule {} revoked twice", r.rule_id)),
                None => bad(format!("rule_revoked {} of a rule never announced", r.rule_id)),
            },
            EventKind::ToolOutput(o) => {
                let Some((call_seq, request, tool)) = calls.get(&(e.agent_id.clone(), o.call_id.clone())) else {
                    continue;
                };
                if let Some(DecidedBy::Rule { rule }) = &o.decided_by
                    && !rule.covers(&e.agent_id, &ancestors(&parents, &e.agent_id), tool)
                {
                    bad(format!(
                        "{}: call {} decided by rule {} that does not cover it",
                        e.agent_id, o.call_id, rule.rule_id
                    ));
                }
                if let Some(DecidedBy::Rule { rule }) = &o.decided_by {
                    match rules.get(&rule.rule_id) {
                        None => bad(format!(
                            "{}: call {} decided by rule {} that was never announced before it",
                            e.agent_id, o.call_id, rule.rule_id
                        )),
                        Some((_, Some(revoked))) if revoked < call_seq => bad(format!(
                            "{}: call {} (seq {call_seq}) decided by rule {} revoked at seq {revoked}",
                            e.agent_id, o.call_id, rule.rule_id
                        )),
                        _ => {}
                    }
                }
                // A call that was asked about ran (or not) on that answer, and says so.
                if let Some(Some(Some(answered))) = request.as_ref().map(|id| requests.get(id).cloned().flatten())
                    && o.decided_by.as_ref() != Some(&answered)
                {
                    bad(format!(
                        "{}: call {} says {:?} decided it, but its request was answered by {answered:?}",
                        e.agent_id, o.call_id, o.decided_by
                    ));
                }
            }
            _ => {}
        }
    }
    out
}
