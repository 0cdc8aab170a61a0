//! Tool calls a run left without results because its session closed (the
//! window, a signal) or its process died while they waited for a person or
//! ran. The agent's next run settles them before its first turn, so its model
//! never sees a call without a result and a person never loses a question:
//! a call that was waiting for a person is asked again (the same call, a new
//! card with a fresh preview) and runs if approved; one whose output was stored
//! takes that output; any other is closed with a result saying so (a Task's
//! child goes on with the session and reports back as a notification).

use super::AgentRun;
use super::calls::{self, Call};
use crate::shared::Shared;
use arbor_protocol::{AgentEvent, AgentId, ApprovalOutcome, AssistantBlock, EventKind, Message, ToolOutput, UserBlock};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// What a tool call that never finished reads to the model that made it.
const UNFINISHED_CALL: &str =
    "interrupted: this tool call did not finish (the run was stopped); its effects are unknown";

pub(crate) use crate::registry::{Settle, Unanswered};

/// The calls of the history's last model response that have no result in the
/// message after it, as (call id, tool, input).
fn open_calls(history: &[Message]) -> Vec<(String, String, Value)> {
    let Some(at) = history.iter().rposition(|m| matches!(m, Message::Assistant { .. })) else { return Vec::new() };
    let Message::Assistant { content } = &history[at] else { return Vec::new() };
    let answered: HashSet<&str> = match history.get(at + 1) {
        Some(Message::User { content }) => content
            .iter()
            .filter_map(|b| match b {
                UserBlock::ToolResult { call_id, .. } => Some(call_id.as_str()),
                _ => None,
            })
            .collect(),
        _ => HashSet::new(),
    };
    content
        .iter()
        .filter_map(|b| match b {
            AssistantBlock::ToolUse { id, name, input } if !answered.contains(id.as_str()) => {
                Some((id.clone(), name.clone(), input.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The first call the history leaves without a result: where its stored events start.
pub(crate) fn first_open_call(history: &[Message]) -> Option<String> {
    open_calls(history).into_iter().next().map(|(id, _, _)| id)
}

/// How each call the history leaves open is to be settled, from the agent's
/// stored events for those calls (`tool_output`, `approval_request`,
/// `approval_resolved`). `child_of` names the child a Task call started, if the
/// run left it unfinished.
pub(crate) fn find<'a>(
    history: &[Message],
    events: &[AgentEvent],
    child_of: impl Fn(&str) -> Option<&'a AgentId>,
) -> Vec<Unanswered> {
    let mut outputs: HashMap<&str, &ToolOutput> = HashMap::new();
    // call id → its latest request, and each request's outcome once resolved.
    let mut asked: HashMap<&str, &str> = HashMap::new();
    let mut outcomes: HashMap<&str, ApprovalOutcome> = HashMap::new();
    for e in events {
        match &e.kind {
            EventKind::ToolOutput(o) => {
                outputs.insert(o.call_id.as_str(), o);
            }
            EventKind::ApprovalRequest(r) => {
                asked.insert(r.call_id.as_str(), r.request_id.as_str());
            }
            EventKind::ApprovalResolved(r) => {
                outcomes.insert(r.request_id.as_str(), r.outcome);
            }
            _ => {}
        }
    }
    open_calls(history)
        .into_iter()
        .map(|(call_id, name, input)| {
            let settle = if let Some(o) = outputs.get(call_id.as_str()) {
                Settle::Output { content: o.content.clone(), is_error: o.is_error }
            } else if let Some(child) = child_of(&call_id) {
                Settle::Closed(format!(
                    "interrupted: subagent {child} was stopped with the run. Continuing the session resumes it, \
                     and its result reaches you as a task notification: do not start it again."
                ))
            } else {
                // Waiting for a person when the run stopped: never answered, or withdrawn by the stop.
                match asked.get(call_id.as_str()).map(|r| outcomes.get(r)) {
                    Some(None | Some(ApprovalOutcome::Withdrawn)) => Settle::Ask,
                    _ => Settle::Closed(UNFINISHED_CALL.to_string()),
                }
            };
            Unanswered { call_id, name, input, settle }
        })
        .collect()
}

/// Settles the calls the agent's last run left open, before its first turn:
/// their results go into its history, first in the message after the response
/// that made them. False when the session closed again while a person was asked:
/// what was not answered stays open, in the history and the events, for next time.
pub(crate) async fn settle(shared: &Arc<Shared>, agent: &mut AgentRun) -> bool {
    let open = std::mem::take(&mut agent.unanswered);
    let ask: Vec<Call> = open
        .iter()
        .filter(|u| u.settle == Settle::Ask)
        .map(|u| Call { id: u.call_id.clone(), name: u.name.clone(), input: u.input.clone(), invalid: None, seq: None })
        .collect();
    for u in &open {
        if let Settle::Closed(text) = &u.settle {
            calls::report_closed(shared, &agent.id, &u.call_id, text);
        }
    }
    let Some(asked) = calls::run_announced(shared, agent, ask).await else { return false };
    let mut asked: HashMap<String, UserBlock> = asked
        .into_iter()
        .filter_map(|b| match &b {
            UserBlock::ToolResult { call_id, .. } => Some((call_id.clone(), b)),
            _ => None,
        })
        .collect();
    let results: Vec<UserBlock> = open
        .into_iter()
        .filter_map(|u| match u.settle {
            Settle::Output { content, is_error } => {
                Some(UserBlock::ToolResult { call_id: u.call_id, content, is_error })
            }
            Settle::Closed(content) => Some(UserBlock::ToolResult { call_id: u.call_id, content, is_error: true }),
            Settle::Ask => asked.remove(&u.call_id),
        })
        .collect();
    put_results(&mut agent.history, results);
    shared.save_history(&agent.id, &agent.history);
    true
}

/// Puts results first in the message after the last model response (where a
/// provider expects them, before any text the new run was started with).
fn put_results(history: &mut Vec<Message>, results: Vec<UserBlock>) {
    if results.is_empty() {
        return;
    }
    let Some(at) = history.iter().rposition(|m| matches!(m, Message::Assistant { .. })) else { return };
    match history.get_mut(at + 1) {
        Some(Message::User { content }) => {
            let rest = std::mem::take(content);
            *content = results;
            content.extend(rest);
        }
        _ => history.insert(at + 1, Message::User { content: results }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{ApprovalRequest, ApprovalResolved, ApprovalScope, SessionId};
    use serde_json::json;

    fn ev(seq: u64, kind: EventKind) -> AgentEvent {
        AgentEvent { agent_id: AgentId("agent-0001".into()), session_id: SessionId("s".into()), seq, ts: 0, kind }
    }

    fn request(seq: u64, call: &str, id: &str) -> AgentEvent {
        ev(
            seq,
            EventKind::ApprovalRequest(ApprovalRequest {
                request_id: id.into(),
                call_id: call.into(),
                tool_name: "Write".into(),
                tool_args: json!({}),
                agent_path: Vec::new(),
                preview: None,
                options: Vec::new(),
            }),
        )
    }

    fn resolved(seq: u64, id: &str, outcome: ApprovalOutcome) -> AgentEvent {
        ev(
            seq,
            EventKind::ApprovalResolved(ApprovalResolved {
                request_id: id.into(),
                outcome,
                scope: ApprovalScope::Once,
                decided_by: None,
                reason: None,
                rule: None,
                edit: None,
            }),
        )
    }

    fn history(calls: &[&str]) -> Vec<Message> {
        let content = calls
            .iter()
            .map(|c| AssistantBlock::ToolUse { id: (*c).into(), name: "Write".into(), input: json!({"c": c}) })
            .collect();
        vec![Message::user_text("go"), Message::Assistant { content }]
    }

    #[test]
    fn each_open_call_is_settled_by_what_its_events_say() {
        let h = history(&["ran", "waiting", "withdrawn", "approved", "child", "unknown"]);
        let events = vec![
            ev(
                2,
                EventKind::ToolOutput(ToolOutput {
                    call_id: "ran".into(),
                    content: "wrote it".into(),
                    is_error: false,
                    decided_by: None,
                }),
            ),
            request(3, "waiting", "r1"),
            request(4, "withdrawn", "r2"),
            resolved(5, "r2", ApprovalOutcome::Withdrawn),
            request(6, "approved", "r3"),
            resolved(7, "r3", ApprovalOutcome::Approved),
        ];
        let child = AgentId("agent-00c1".into());
        let found = find(&h, &events, |c| (c == "child").then_some(&child));
        let settles: Vec<(&str, &Settle)> = found.iter().map(|u| (u.call_id.as_str(), &u.settle)).collect();
        assert_eq!(settles[0], ("ran", &Settle::Output { content: "wrote it".into(), is_error: false }));
        assert_eq!(settles[1], ("waiting", &Settle::Ask));
        assert_eq!(settles[2], ("withdrawn", &Settle::Ask));
        assert!(matches!(settles[3], ("approved", Settle::Closed(t)) if t.contains("effects are unknown")));
        assert!(matches!(settles[4], ("child", Settle::Closed(t)) if t.contains("agent-00c1")));
        assert!(matches!(settles[5], ("unknown", Settle::Closed(_))));
        assert_eq!(found[1].input, json!({"c": "waiting"}), "the same call is asked again");
    }

    #[test]
    fn answered_calls_are_not_open_and_results_go_before_the_runs_text() {
        let mut h = history(&["a", "b"]);
        h.push(Message::User {
            content: vec![UserBlock::ToolResult { call_id: "a".into(), content: "ok".into(), is_error: false }],
        });
        assert_eq!(open_calls(&h).into_iter().map(|c| c.0).collect::<Vec<_>>(), ["b"]);
        assert_eq!(first_open_call(&h).as_deref(), Some("b"));

        let mut h = history(&["a"]);
        h.push(Message::user_text("carry on"));
        put_results(
            &mut h,
            vec![UserBlock::ToolResult { call_id: "a".into(), content: "done".into(), is_error: false }],
        );
        let Some(Message::User { content }) = h.last() else { panic!("a user message") };
        assert!(matches!(&content[0], UserBlock::ToolResult { call_id, .. } if call_id == "a"));
        assert!(matches!(&content[1], UserBlock::Text { text } if text == "carry on"));
        assert_eq!(h.len(), 3);
        // Nothing open, nothing found.
        assert!(find(&h, &[], |_| None).is_empty());
    }
}
