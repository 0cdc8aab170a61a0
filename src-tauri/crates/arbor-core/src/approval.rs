//! Approvals: the policy that decides which tool calls need a person, the grants
//! a person's scoped answers leave behind, and the pending requests, each
//! suspending only its own agent until answered (design.md §3.4). The pending
//! requests and grants live in the session's state, behind its one lock.

use crate::tools::ToolClass;
use arbor_protocol::PermissionMode;
use arbor_protocol::{AgentId, ApprovalAnswer, ApprovalRule, ApprovalScope, DecidedBy, SpawnEdit};
use std::collections::{BTreeMap, HashMap};
use tokio::sync::oneshot;

/// Ordered from loosest to strictest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

impl From<arbor_protocol::ApprovalChoice> for Decision {
    fn from(c: arbor_protocol::ApprovalChoice) -> Self {
        match c {
            arbor_protocol::ApprovalChoice::Allow => Decision::Allow,
            arbor_protocol::ApprovalChoice::Ask => Decision::Ask,
            arbor_protocol::ApprovalChoice::Deny => Decision::Deny,
        }
    }
}

impl From<Decision> for arbor_protocol::ApprovalChoice {
    fn from(d: Decision) -> Self {
        match d {
            Decision::Allow => Self::Allow,
            Decision::Ask => Self::Ask,
            Decision::Deny => Self::Deny,
        }
    }
}

/// Per tool class, overridable per tool by name, with limits a subagent type
/// may add but never lift.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalPolicy {
    pub read_only: Decision,
    pub mutating: Decision,
    /// Task and the tools that manage subagents (a Task call can be made to ask).
    pub delegation: Decision,
    pub per_tool: BTreeMap<String, Decision>,
    /// Mutating calls are never looser than this, whatever `per_tool` says (`permissionMode: plan`).
    pub mutating_floor: Decision,
    /// What would ask is refused instead (`permissionMode: dontAsk`).
    pub ask_denies: bool,
    /// Calls that would ask run without asking when the OS sandbox holds them
    /// (a person's choice: "run sandboxed commands without asking").
    pub run_sandboxed: bool,
}

impl Default for ApprovalPolicy {
    /// Reads run; anything that can change something asks; subagents start.
    fn default() -> Self {
        Self {
            read_only: Decision::Allow,
            mutating: Decision::Ask,
            delegation: Decision::Allow,
            per_tool: BTreeMap::new(),
            mutating_floor: Decision::Allow,
            ask_denies: false,
            run_sandboxed: false,
        }
    }
}

/// Claude Code's edit tools, which `permissionMode: acceptEdits` lets run.
const EDIT_TOOLS: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];

impl ApprovalPolicy {
    pub fn allow_all() -> Self {
        Self { mutating: Decision::Allow, ..Self::default() }
    }

    pub fn deny_mutating() -> Self {
        Self { mutating: Decision::Deny, ..Self::default() }
    }

    /// Task calls ask a person first, unless this policy refuses them outright.
    pub fn ask_before_spawning(&mut self) {
        let task = crate::delegation::TASK;
        let now = self.decide(task, ToolClass::Delegation);
        self.per_tool.insert(task.to_string(), now.max(Decision::Ask));
    }

    pub fn decide(&self, tool: &str, class: ToolClass) -> Decision {
        let d = self.per_tool.get(tool).copied().unwrap_or(match class {
            ToolClass::ReadOnly => self.read_only,
            ToolClass::Mutating => self.mutating,
            ToolClass::Delegation => self.delegation,
        });
        let d = if class == ToolClass::Mutating { d.max(self.mutating_floor) } else { d };
        if self.ask_denies && d == Decision::Ask { Decision::Deny } else { d }
    }

    /// The policy of a child whose type asks for `mode`. Stricter modes always
    /// apply; looser ones only when `trusted` (the type comes from the user's own
    /// config dir), so a file checked into a workspace cannot lift the user's policy.
    pub fn for_child(&self, mode: PermissionMode, trusted: bool) -> ApprovalPolicy {
        let mut p = self.clone();
        match mode {
            PermissionMode::Default => {}
            PermissionMode::Plan => p.mutating_floor = Decision::Deny,
            PermissionMode::DontAsk => p.ask_denies = true,
            PermissionMode::AcceptEdits if trusted => {
                for t in EDIT_TOOLS {
                    p.per_tool.insert(t.to_string(), Decision::Allow);
                }
            }
            PermissionMode::BypassPermissions if trusted => {
                p.read_only = Decision::Allow;
                p.mutating = Decision::Allow;
                p.delegation = Decision::Allow;
                p.per_tool.retain(|_, d| *d == Decision::Deny);
            }
            PermissionMode::AcceptEdits | PermissionMode::BypassPermissions => {
                tracing::warn!(?mode, "a workspace agent type asked for a looser policy; the parent's applies");
            }
        }
        p
    }
}

/// How a request was answered, as its agent receives it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    pub approved: bool,
    /// The person's scope (`once` for a rule's answer).
    pub scope: ApprovalScope,
    /// A person's answer, or the rule that answered for them.
    pub by: DecidedBy,
    pub reason: Option<String>,
    pub edit: Option<SpawnEdit>,
    /// The previewed file changed before the answer and the card never said so:
    /// the approval was given to a preview that was out of date.
    pub unseen_change: Option<&'static str>,
}

impl Verdict {
    fn of_rule(rule: &ApprovalRule) -> Self {
        Self {
            approved: rule.approved,
            scope: ApprovalScope::Once,
            by: DecidedBy::Rule { rule: rule.clone() },
            reason: None,
            edit: None,
            unseen_change: None,
        }
    }
}

struct Pending {
    agent_id: AgentId,
    /// The asking agent's ancestors, nearest first: which rules cover it.
    ancestors: Vec<AgentId>,
    tool: String,
    answer: oneshot::Sender<Verdict>,
}

/// Pending requests and the rules scoped answers set.
#[derive(Default)]
pub(crate) struct Approvals {
    /// In force, oldest first.
    rules: Vec<ApprovalRule>,
    pending: HashMap<String, Pending>,
}

impl Approvals {
    /// The rule that answers a call of `tool` by `agent` without asking, if
    /// any: the agent's own, then the nearest subtree's, then the session's;
    /// the newest where two are alike. `ancestors`: nearest first.
    pub(crate) fn rule_for(&self, agent: &AgentId, ancestors: &[AgentId], tool: &str) -> Option<&ApprovalRule> {
        let rank = |r: &ApprovalRule| match r.scope {
            ApprovalScope::Agent => 0,
            ApprovalScope::Subtree if r.agent_id == *agent => 1,
            ApprovalScope::Subtree => 2 + ancestors.iter().position(|a| *a == r.agent_id).unwrap_or(ancestors.len()),
            ApprovalScope::Session | ApprovalScope::Once => usize::MAX,
        };
        self.rules.iter().rev().filter(|r| r.covers(agent, ancestors, tool)).min_by_key(|r| rank(r))
    }

    /// Registers request `id` (unique: the session draws a UUID); the receiver yields its answer.
    pub(crate) fn open(
        &mut self,
        id: &str,
        agent_id: &AgentId,
        ancestors: Vec<AgentId>,
        tool: &str,
    ) -> oneshot::Receiver<Verdict> {
        let (tx, rx) = oneshot::channel();
        let pending = Pending { agent_id: agent_id.clone(), ancestors, tool: tool.to_string(), answer: tx };
        self.pending.insert(id.to_string(), pending);
        rx
    }

    /// Delivers a person's answer to its request. Returns the asking agent, or
    /// None when no such request is pending (answered, cancelled or unknown).
    /// The asking agent announces the outcome itself (`approval_resolved`) and
    /// only then does a scoped answer become a rule ([`Approvals::add_rule`]), in
    /// the same step: a rule never decides a call before the event that made it
    /// is in the stream.
    pub(crate) fn resolve(&mut self, answer: ApprovalAnswer) -> Option<AgentId> {
        let pending = self.pending.remove(&answer.request_id)?;
        let verdict = Verdict {
            approved: answer.approved,
            scope: answer.scope,
            by: DecidedBy::Person,
            reason: answer.reason.filter(|r| !r.trim().is_empty()),
            // Only a spawn can be edited; an edit of anything else would be announced and do nothing.
            edit: answer.edit.filter(|e| !e.is_empty() && pending.tool == crate::delegation::TASK),
            unseen_change: None,
        };
        // The agent may have been cancelled a moment ago; then nobody waits for this.
        let _ = pending.answer.send(verdict);
        Some(pending.agent_id)
    }

    /// Puts `rule` in force and answers with it every pending request it
    /// covers; their agents announce it (each its own `approval_resolved`).
    pub(crate) fn add_rule(&mut self, rule: ApprovalRule) {
        let covered: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, p)| rule.covers(&p.agent_id, &p.ancestors, &p.tool))
            .map(|(id, _)| id.clone())
            .collect();
        for id in covered {
            if let Some(p) = self.pending.remove(&id) {
                let _ = p.answer.send(Verdict::of_rule(&rule));
            }
        }
        self.rules.push(rule);
    }

    /// Takes a rule out of force; the rule, if it was in force.
    pub(crate) fn revoke(&mut self, rule_id: &str) -> Option<ApprovalRule> {
        let i = self.rules.iter().position(|r| r.rule_id == rule_id)?;
        Some(self.rules.remove(i))
    }

    pub(crate) fn is_pending(&self, request_id: &str) -> bool {
        self.pending.contains_key(request_id)
    }

    /// Withdraws a request whose agent stopped waiting; true if it was still pending.
    pub(crate) fn withdraw(&mut self, request_id: &str) -> bool {
        self.pending.remove(request_id).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> AgentId {
        AgentId(s.to_string())
    }

    #[test]
    fn policy_defaults_by_class_and_overrides_by_tool() {
        let mut p = ApprovalPolicy::default();
        assert_eq!(p.decide("Read", ToolClass::ReadOnly), Decision::Allow);
        assert_eq!(p.decide("Write", ToolClass::Mutating), Decision::Ask);
        p.per_tool.insert("Bash".into(), Decision::Deny);
        assert_eq!(p.decide("Bash", ToolClass::Mutating), Decision::Deny);
    }

    #[test]
    fn a_child_is_never_looser_unless_its_type_is_the_users_own() {
        let parent = ApprovalPolicy::default();
        let plan = parent.for_child(PermissionMode::Plan, false);
        assert_eq!(plan.decide("Write", ToolClass::Mutating), Decision::Deny);
        assert_eq!(plan.decide("Read", ToolClass::ReadOnly), Decision::Allow);
        let mut loose_parent = ApprovalPolicy::allow_all();
        loose_parent.per_tool.insert("Bash".into(), Decision::Allow);
        assert_eq!(
            loose_parent.for_child(PermissionMode::Plan, false).decide("Bash", ToolClass::Mutating),
            Decision::Deny,
            "a per-tool allow does not lift plan mode"
        );
        let workspace_bypass = parent.for_child(PermissionMode::BypassPermissions, false);
        assert_eq!(workspace_bypass.decide("Bash", ToolClass::Mutating), Decision::Ask);
        let user_edits = parent.for_child(PermissionMode::AcceptEdits, true);
        assert_eq!(user_edits.decide("Edit", ToolClass::Mutating), Decision::Allow);
        assert_eq!(user_edits.decide("Bash", ToolClass::Mutating), Decision::Ask);
        let dont_ask = parent.for_child(PermissionMode::DontAsk, false);
        assert_eq!(dont_ask.decide("Bash", ToolClass::Mutating), Decision::Deny);
        assert_eq!(dont_ask.decide("Task", ToolClass::Delegation), Decision::Allow);
    }

    fn rule(id: &str, tool: &str, scope: ApprovalScope, agent: &str, approved: bool) -> ApprovalRule {
        ApprovalRule {
            rule_id: id.into(),
            tool: tool.into(),
            scope,
            agent_id: AgentId(agent.into()),
            approved,
            request_id: format!("request-of-{id}"),
            created_at: 0,
        }
    }

    fn answer(request_id: &str, approved: bool, scope: ApprovalScope) -> ApprovalAnswer {
        ApprovalAnswer { request_id: request_id.into(), approved, scope, reason: None, edit: None }
    }

    #[test]
    fn answers_resolve_only_their_own_request_and_a_rule_stands_only_once_added() {
        let mut b = Approvals::default();
        let mut a_rx = b.open("approval-a", &id("agent-000a"), vec![], "Write");
        let mut b_rx = b.open("approval-b", &id("agent-000b"), vec![], "Write");
        assert_eq!(b.resolve(answer("approval-a", true, ApprovalScope::Agent)), Some(id("agent-000a")));
        let got = a_rx.try_recv().unwrap();
        assert_eq!((got.approved, got.scope, got.by), (true, ApprovalScope::Agent, DecidedBy::Person));
        assert!(b.rule_for(&id("agent-000a"), &[], "Write").is_none(), "no rule until the asking agent adds it");
        b.add_rule(rule("rule-1", "Write", ApprovalScope::Agent, "agent-000a", true));
        assert!(b_rx.try_recv().is_err(), "another agent's request is not covered");
        assert_eq!(b.resolve(answer("approval-a", true, ApprovalScope::Once)), None);
        assert_eq!(b.rule_for(&id("agent-000a"), &[], "Write").map(|r| r.rule_id.as_str()), Some("rule-1"));
        assert!(b.rule_for(&id("agent-000b"), &[], "Write").is_none());
        assert!(b.rule_for(&id("agent-000a"), &[], "Bash").is_none());
    }

    #[test]
    fn a_new_rule_answers_the_pending_requests_it_covers_and_no_others() {
        let mut b = Approvals::default();
        let mut sibling = b.open("approval-1", &id("agent-0002"), vec![id("agent-0001")], "Write");
        let mut other_tool = b.open("approval-2", &id("agent-0003"), vec![id("agent-0001")], "Bash");
        let mut elsewhere = b.open("approval-3", &id("agent-0009"), vec![], "Write");
        let r = rule("rule-s", "Write", ApprovalScope::Subtree, "agent-0001", true);
        b.add_rule(r.clone());
        let got = sibling.try_recv().expect("covered: answered by the rule");
        assert_eq!(got.by, DecidedBy::Rule { rule: r });
        assert!(got.approved);
        assert!(other_tool.try_recv().is_err() && elsewhere.try_recv().is_err());
        assert!(!b.withdraw("approval-1"), "no longer pending");
        assert!(b.withdraw("approval-2"));
    }

    #[test]
    fn the_nearest_rule_decides_and_a_revoked_one_no_longer_does() {
        let mut b = Approvals::default();
        let (child, parent) = (id("agent-0002"), id("agent-0001"));
        b.add_rule(rule("rule-session", "Bash", ApprovalScope::Session, "agent-0009", true));
        b.add_rule(rule("rule-parent", "Bash", ApprovalScope::Subtree, "agent-0001", false));
        let decided =
            |b: &Approvals| b.rule_for(&child, std::slice::from_ref(&parent), "Bash").map(|r| r.rule_id.clone());
        assert_eq!(decided(&b).as_deref(), Some("rule-parent"), "a subtree rule is nearer than the session's");
        b.add_rule(rule("rule-own", "Bash", ApprovalScope::Agent, "agent-0002", true));
        assert_eq!(decided(&b).as_deref(), Some("rule-own"));
        assert_eq!(b.revoke("rule-own").map(|r| r.rule_id), Some("rule-own".to_string()));
        assert_eq!(b.revoke("rule-own"), None);
        b.revoke("rule-parent");
        assert_eq!(decided(&b).as_deref(), Some("rule-session"));
        b.revoke("rule-session");
        assert_eq!(decided(&b), None, "the next call asks again");
    }
}
