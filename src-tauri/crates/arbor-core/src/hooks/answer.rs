//! What a hook said, read as Claude Code reads it: exit 0 with JSON (or plain
//! text, for the events that take text as context), exit 2 to block where the
//! event can be blocked (stderr being the reason), any other code a failure
//! shown to the person; then several hooks of one firing, combined.

use super::run::{Exit, Ran};
use arbor_protocol::{HookDecision, HookEvent, HookOrigin};
use serde_json::Value;

/// The most of a reason, a context or a message a hook's answer carries on.
const MAX_TEXT: usize = 10_000;

/// One hook's answer, as Arbor applies it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Answer {
    pub decision: HookDecision,
    /// For the model: why a call was refused, why it must go on, what a tool's result needs.
    pub reason: Option<String>,
    /// Context the model reads (`additionalContext`, or plain stdout where that is context).
    pub context: Option<String>,
    /// The tool call's input as the hook rewrote it (PreToolUse, PermissionRequest).
    pub updated_input: Option<Value>,
    /// `"continue": false`: the agent stops, with this reason for the person.
    pub stop: Option<String>,
    /// For the person: a `systemMessage`, or stderr of a hook that failed.
    pub message: Option<String>,
}

impl Answer {
    fn of(decision: HookDecision) -> Self {
        Self { decision, reason: None, context: None, updated_input: None, stop: None, message: None }
    }
}

/// Whether exit code 2 blocks what `event` runs for.
fn blocks(event: HookEvent) -> bool {
    matches!(
        event,
        HookEvent::PreToolUse
            | HookEvent::PermissionRequest
            | HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure
            | HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::SubagentStop
    )
}

/// Whether plain stdout of exit 0 is context for the model.
fn stdout_is_context(event: HookEvent) -> bool {
    matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart | HookEvent::SubagentStart)
}

fn text(s: &str) -> Option<String> {
    let s = s.trim();
    (!s.is_empty()).then(|| arbor_protocol::text::quote(s, MAX_TEXT))
}

fn field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Reads one hook's run. `origin` bounds it: a workspace's hook may refuse, ask or
/// add, but its letting a call run unasked is not applied (`Ignored`).
pub(crate) fn read(event: HookEvent, origin: HookOrigin, ran: &Ran) -> Answer {
    let mut answer = match &ran.exit {
        Exit::TimedOut => {
            let mut a = Answer::of(HookDecision::TimedOut);
            a.message = Some("still running at its timeout: killed; nothing it would have decided applies".into());
            return a;
        }
        Exit::Cancelled => return Answer::of(HookDecision::Nothing),
        Exit::NotStarted(why) => {
            let mut a = Answer::of(HookDecision::Failed);
            a.message = Some(format!("could not start: {why}"));
            return a;
        }
        Exit::Signalled => {
            let mut a = Answer::of(HookDecision::Failed);
            a.message = text(&ran.stderr).or(Some("ended by a signal".into()));
            return a;
        }
        Exit::Code(2) if blocks(event) => {
            let decision = if matches!(event, HookEvent::PreToolUse | HookEvent::PermissionRequest) {
                HookDecision::Deny
            } else {
                HookDecision::Block
            };
            let mut a = Answer::of(decision);
            a.reason = text(&ran.stderr).or(Some(format!("blocked by a {} hook", event.as_str())));
            return a;
        }
        Exit::Code(0) => from_stdout(event, &ran.stdout),
        Exit::Code(code) => {
            let mut a = Answer::of(HookDecision::Failed);
            a.message = Some(match text(&ran.stderr) {
                Some(e) => format!("exit code {code}: {e}"),
                None => format!("exit code {code}"),
            });
            return a;
        }
    };
    if origin == HookOrigin::Workspace && answer.decision == HookDecision::Allow {
        answer.decision = HookDecision::Ignored;
        answer.message = Some(
            "a workspace's hook may not let a call run unasked: the person's policy decides (put the hook in your own settings to let it)"
                .into(),
        );
    }
    answer
}

/// Exit 0: stdout's JSON, or its text.
fn from_stdout(event: HookEvent, stdout: &str) -> Answer {
    let trimmed = stdout.trim();
    if !trimmed.starts_with('{') {
        let mut a = Answer::of(HookDecision::Nothing);
        if stdout_is_context(event)
            && let Some(t) = text(trimmed)
        {
            a.decision = HookDecision::Context;
            a.context = Some(t);
        }
        return a;
    }
    let Ok(v) = serde_json::from_str::<Value>(trimmed) else {
        let mut a = Answer::of(HookDecision::Failed);
        a.message =
            Some(format!("its output begins like JSON but is not: {}", arbor_protocol::text::quote(trimmed, 200)));
        return a;
    };
    let mut a = Answer::of(HookDecision::Nothing);
    a.message = field(&v, "systemMessage").and_then(text);
    // `suppressOutput` hides stdout from Claude Code's transcript view; Arbor never shows a
    // hook's stdout (only what it decided, and why), so there is nothing for it to hide.
    let specific = v.get("hookSpecificOutput").filter(|s| s.is_object());
    if let Some(ctx) = specific.and_then(|s| field(s, "additionalContext")).and_then(text) {
        a.decision = HookDecision::Context;
        a.context = Some(ctx);
    }
    match event {
        HookEvent::PreToolUse => {
            let s = specific.cloned().unwrap_or(Value::Null);
            // The older top-level form: "decision": "approve" | "block".
            let decision = field(&s, "permissionDecision").or(match field(&v, "decision") {
                Some("approve") => Some("allow"),
                Some("block") => Some("deny"),
                _ => None,
            });
            let reason = field(&s, "permissionDecisionReason").or(field(&v, "reason")).and_then(text);
            match decision {
                Some("allow") => a.decision = HookDecision::Allow,
                Some("deny") => {
                    a.decision = HookDecision::Deny;
                    a.reason = reason.or(Some("refused by a PreToolUse hook".into()));
                }
                Some("ask") => a.decision = HookDecision::Ask,
                _ => {}
            }
            if a.decision != HookDecision::Deny && a.message.is_none() {
                a.message = field(&s, "permissionDecisionReason").and_then(text);
            }
            a.updated_input = s.get("updatedInput").filter(|i| i.is_object()).cloned();
        }
        HookEvent::PermissionRequest => {
            let d = specific.and_then(|s| s.get("decision")).cloned().unwrap_or(Value::Null);
            match field(&d, "behavior") {
                Some("allow") => {
                    a.decision = HookDecision::Allow;
                    a.updated_input = d.get("updatedInput").filter(|i| i.is_object()).cloned();
                }
                Some("deny") => {
                    a.decision = HookDecision::Deny;
                    a.reason =
                        field(&d, "message").and_then(text).or(Some("refused by a PermissionRequest hook".into()));
                }
                _ => {}
            }
        }
        HookEvent::PostToolUse
        | HookEvent::PostToolUseFailure
        | HookEvent::UserPromptSubmit
        | HookEvent::Stop
        | HookEvent::SubagentStop
            if field(&v, "decision") == Some("block") =>
        {
            a.decision = HookDecision::Block;
            a.reason = field(&v, "reason").and_then(text).or(Some(format!("blocked by a {} hook", event.as_str())));
        }
        _ => {}
    }
    if v.get("continue").and_then(Value::as_bool) == Some(false) {
        a.decision = HookDecision::Stop;
        a.stop = Some(
            field(&v, "stopReason")
                .and_then(text)
                .unwrap_or_else(|| format!("a {} hook stopped the agent", event.as_str())),
        );
    }
    a
}

/// The answers of every hook of one firing, together: a refusal over asking over
/// letting run (Claude Code's order), every block's reason and every context kept,
/// the last rewritten input.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Combined {
    /// Deny, Ask or Allow for a tool call, when a hook said so; Block when one blocked.
    pub decision: Option<HookDecision>,
    pub reasons: Vec<String>,
    pub contexts: Vec<String>,
    pub updated_input: Option<Value>,
    pub stop: Option<String>,
    /// The file of the hook whose answer is `decision`.
    pub source: Option<String>,
}

impl Combined {
    /// Adds the answer of a hook defined in `source`.
    pub(crate) fn add(&mut self, a: &Answer, source: &str) {
        let rank = |d: HookDecision| match d {
            HookDecision::Stop => 5,
            HookDecision::Deny => 4,
            HookDecision::Block => 3,
            HookDecision::Ask => 2,
            HookDecision::Allow => 1,
            _ => 0,
        };
        if rank(a.decision) > 0 && self.decision.is_none_or(|d| rank(a.decision) > rank(d)) {
            self.decision = Some(a.decision);
            self.source = Some(source.to_string());
        }
        if matches!(a.decision, HookDecision::Deny | HookDecision::Block) {
            self.reasons.extend(a.reason.clone());
        }
        self.contexts.extend(a.context.clone());
        if a.updated_input.is_some() {
            self.updated_input.clone_from(&a.updated_input);
        }
        if a.stop.is_some() && self.stop.is_none() {
            self.stop.clone_from(&a.stop);
        }
    }

    /// The reasons, one per line.
    pub(crate) fn reason(&self) -> String {
        self.reasons.join("\n")
    }

    /// The contexts, one per paragraph; None when no hook added any.
    pub(crate) fn context(&self) -> Option<String> {
        (!self.contexts.is_empty()).then(|| self.contexts.join("\n\n"))
    }

    pub(crate) fn is(&self, d: HookDecision) -> bool {
        self.decision == Some(d)
    }

    /// What decided a call these hooks (of `event`) decided, named by the deciding hook's file.
    pub(crate) fn decided_by(&self, event: HookEvent) -> arbor_protocol::DecidedBy {
        arbor_protocol::DecidedBy::Hook { hook_event: event, source: self.source.clone().unwrap_or_default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ran(code: i32, stdout: &str, stderr: &str) -> Ran {
        Ran { exit: Exit::Code(code), stdout: stdout.into(), stderr: stderr.into(), duration: Duration::ZERO }
    }

    #[test]
    fn exit_two_blocks_where_claude_code_blocks_and_stderr_is_the_reason() {
        let a = read(HookEvent::PreToolUse, HookOrigin::Workspace, &ran(2, "", "no rm -rf\n"));
        assert_eq!((a.decision, a.reason.as_deref()), (HookDecision::Deny, Some("no rm -rf")));
        let a = read(HookEvent::Stop, HookOrigin::User, &ran(2, "", "tests fail"));
        assert_eq!(a.decision, HookDecision::Block);
        let a = read(HookEvent::SessionStart, HookOrigin::User, &ran(2, "", "x"));
        assert_eq!(a.decision, HookDecision::Failed, "SessionStart cannot block: shown to the person");
        let a = read(HookEvent::Notification, HookOrigin::User, &ran(1, "", "boom"));
        assert_eq!((a.decision, a.message.as_deref()), (HookDecision::Failed, Some("exit code 1: boom")));
    }

    #[test]
    fn json_answers_as_claude_code_reads_them() {
        let out = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on main"}}"#;
        let a = read(HookEvent::PreToolUse, HookOrigin::User, &ran(0, out, ""));
        assert_eq!((a.decision, a.reason.as_deref()), (HookDecision::Deny, Some("not on main")));
        let out = r#"{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}"#;
        let a = read(HookEvent::PreToolUse, HookOrigin::User, &ran(0, out, ""));
        assert_eq!(a.decision, HookDecision::Allow);
        assert_eq!(a.updated_input, Some(serde_json::json!({"command": "ls -a"})));
        let a = read(HookEvent::PreToolUse, HookOrigin::Workspace, &ran(0, out, ""));
        assert_eq!(a.decision, HookDecision::Ignored, "a workspace hook never lets a call run unasked");
        let a = read(HookEvent::PreToolUse, HookOrigin::User, &ran(0, r#"{"decision":"block","reason":"old"}"#, ""));
        assert_eq!((a.decision, a.reason.as_deref()), (HookDecision::Deny, Some("old")));
        let out = r#"{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"not now"}}}"#;
        let a = read(HookEvent::PermissionRequest, HookOrigin::User, &ran(0, out, ""));
        assert_eq!((a.decision, a.reason.as_deref()), (HookDecision::Deny, Some("not now")));
        let a =
            read(HookEvent::Stop, HookOrigin::User, &ran(0, r#"{"decision":"block","reason":"run the tests"}"#, ""));
        assert_eq!((a.decision, a.reason.as_deref()), (HookDecision::Block, Some("run the tests")));
        let out = r#"{"continue":false,"stopReason":"enough","systemMessage":"bye","suppressOutput":true}"#;
        let a = read(HookEvent::PostToolUse, HookOrigin::User, &ran(0, out, ""));
        assert_eq!(
            (a.decision, a.stop.as_deref(), a.message.as_deref()),
            (HookDecision::Stop, Some("enough"), Some("bye"))
        );
        let out = r#"{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"be brief"}}"#;
        let a = read(HookEvent::SubagentStart, HookOrigin::User, &ran(0, out, ""));
        assert_eq!((a.decision, a.context.as_deref()), (HookDecision::Context, Some("be brief")));
        let a = read(HookEvent::UserPromptSubmit, HookOrigin::User, &ran(0, "It is Friday.\n", ""));
        assert_eq!(a.context.as_deref(), Some("It is Friday."), "plain stdout is context here");
        let a = read(HookEvent::PostToolUse, HookOrigin::User, &ran(0, "formatted\n", ""));
        assert_eq!(a.decision, HookDecision::Nothing, "and not here");
        let a = read(HookEvent::PostToolUse, HookOrigin::User, &ran(0, "{not json", ""));
        assert_eq!(a.decision, HookDecision::Failed);
    }

    #[test]
    fn deny_wins_over_ask_over_allow_and_every_reason_is_kept() {
        let mut c = Combined::default();
        let allow = read(
            HookEvent::PreToolUse,
            HookOrigin::User,
            &ran(0, r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#, ""),
        );
        let ask = read(
            HookEvent::PreToolUse,
            HookOrigin::User,
            &ran(0, r#"{"hookSpecificOutput":{"permissionDecision":"ask"}}"#, ""),
        );
        let deny = read(HookEvent::PreToolUse, HookOrigin::User, &ran(2, "", "a"));
        c.add(&allow, "s");
        c.add(&ask, "s");
        assert!(c.is(HookDecision::Ask));
        c.add(&deny, "s");
        c.add(&allow, "s");
        assert!(c.is(HookDecision::Deny));
        assert_eq!(c.reason(), "a");
    }
}
