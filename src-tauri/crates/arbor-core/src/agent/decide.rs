//! What decides a tool call before anyone is asked: the PreToolUse hooks'
//! answer, the settings files' permission rules, the approval policy, and the
//! sandbox. A refusal wins over a question, a question over letting the call
//! run; nothing lets a call run that the policy refuses, nor one a person's
//! standing rule denies.

use crate::approval::{ApprovalPolicy, Decision};
use crate::hooks::answer::Combined;
use crate::permissions::PermissionRule;
use crate::tools::ToolClass;
use arbor_protocol::{DecidedBy, HookDecision, HookEvent};

/// What the call's deciders said.
pub(super) struct Unasked<'a> {
    pub policy: &'a ApprovalPolicy,
    /// The settings rule that covers the call, if one does.
    pub settings: Option<&'a PermissionRule>,
    /// The PreToolUse hooks' answer (a refusal was handled before).
    pub hook: &'a Combined,
}

/// Before a person is asked.
pub(super) enum Before {
    Run(DecidedBy),
    /// Refused, with the words after the tool's name ("is not allowed by …").
    Refuse(String, DecidedBy),
    Ask,
}

impl Unasked<'_> {
    /// `contained`: the sandbox holds this call; `person_denies`: a person's standing rule
    /// refuses this tool to this agent.
    pub(super) fn decide(
        &self,
        tool: &str,
        class: ToolClass,
        contained: impl FnOnce() -> bool,
        person_denies: impl Fn() -> bool,
    ) -> Before {
        let setting =
            |r: &PermissionRule| DecidedBy::Setting { rule: r.text.clone(), source: r.source.display().to_string() };
        if let Some(r) = self.settings.filter(|r| r.decision == Decision::Deny) {
            return Before::Refuse(format!("is denied by the rule {} in {}", r.text, r.source.display()), setting(r));
        }
        let policy = self.policy.decide(tool, class);
        if policy == Decision::Deny {
            return Before::Refuse("is not allowed by the approval policy".into(), DecidedBy::Policy);
        }
        let asked_by_rule = self.settings.is_some_and(|r| r.decision == Decision::Ask);
        if self.hook.is(HookDecision::Ask) || asked_by_rule {
            return Before::Ask;
        }
        if policy == Decision::Allow {
            return Before::Run(DecidedBy::Policy);
        }
        // The policy would ask: a person's own hook, or a settings rule, may let it run.
        if self.hook.is(HookDecision::Allow) && !person_denies() {
            return Before::Run(self.hook.decided_by(HookEvent::PreToolUse));
        }
        if let Some(r) = self.settings.filter(|r| r.decision == Decision::Allow)
            && !person_denies()
        {
            return Before::Run(setting(r));
        }
        // The sandbox holds it, so it runs unasked (a person's choice); unless their standing rule denies it.
        if self.policy.run_sandboxed && contained() && !person_denies() {
            return Before::Run(DecidedBy::Policy);
        }
        Before::Ask
    }
}
