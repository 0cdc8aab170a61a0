//! Approvals: the policy that decides which tool calls need a person, the grants
//! a person's scoped answers leave behind, and the pending requests, each
//! suspending only its own agent until answered (design.md §3.4). The pending
//! requests and grants live in the session's state, behind its one lock.

use crate::definitions::PermissionMode;
use crate::tools::ToolClass;
use arbor_protocol::{AgentId, ApprovalAnswer, ApprovalScope};
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

/// What scoped answers left behind: (scope owner, tool) → approved.
#[derive(Default)]
struct Grants {
    session: HashMap<String, bool>,
    agent: HashMap<(AgentId, String), bool>,
    subtree: HashMap<(AgentId, String), bool>,
}

struct Pending {
    agent_id: AgentId,
    answer: oneshot::Sender<ApprovalAnswer>,
}

/// Pending requests and the grants answers left.
#[derive(Default)]
pub(crate) struct Approvals {
    grants: Grants,
    pending: HashMap<String, Pending>,
}

impl Approvals {
    /// A standing answer for this tool and agent, from an earlier scoped answer.
    /// `ancestors` are the agent's ancestors, nearest first.
    pub(crate) fn granted(&self, agent: &AgentId, ancestors: &[AgentId], tool: &str) -> Option<bool> {
        let g = &self.grants;
        let key = |a: &AgentId| (a.clone(), tool.to_string());
        g.agent
            .get(&key(agent))
            .or_else(|| std::iter::once(agent).chain(ancestors).find_map(|a| g.subtree.get(&key(a))))
            .or_else(|| g.session.get(tool))
            .copied()
    }

    /// Registers request `id` (unique: the session draws a UUID); the receiver yields the person's answer.
    pub(crate) fn open(&mut self, id: &str, agent_id: &AgentId) -> oneshot::Receiver<ApprovalAnswer> {
        let (tx, rx) = oneshot::channel();
        self.pending.insert(id.to_string(), Pending { agent_id: agent_id.clone(), answer: tx });
        rx
    }

    /// Delivers an answer to its request. Returns the asking agent, or None when
    /// no such request is pending (answered, cancelled or unknown). The asking
    /// agent announces the outcome itself (`approval_resolved`) and only then does
    /// a scoped answer become a rule ([`Approvals::grant`]), in the same step: a
    /// rule never decides a call before the event that made it is in the stream.
    pub(crate) fn resolve(&mut self, answer: ApprovalAnswer) -> Option<AgentId> {
        let pending = self.pending.remove(&answer.request_id)?;
        let agent = pending.agent_id.clone();
        // The agent may have been cancelled a moment ago; then nobody waits for this.
        let _ = pending.answer.send(answer);
        Some(agent)
    }

    /// Records what a scoped answer to `agent`'s request for `tool` leaves behind.
    pub(crate) fn grant(&mut self, agent: &AgentId, tool: &str, scope: ApprovalScope, approved: bool) {
        let g = &mut self.grants;
        let tool = tool.to_string();
        match scope {
            ApprovalScope::Once => {}
            ApprovalScope::Agent => {
                g.agent.insert((agent.clone(), tool), approved);
            }
            ApprovalScope::Subtree => {
                g.subtree.insert((agent.clone(), tool), approved);
            }
            ApprovalScope::Session => {
                g.session.insert(tool, approved);
            }
        }
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

    #[test]
    fn answers_resolve_only_their_own_request_and_leave_scoped_grants() {
        let mut b = Approvals::default();
        let (a_id, b_id) = ("approval-a".to_string(), "approval-b".to_string());
        let mut a_rx = b.open(&a_id, &id("agent-000a"));
        let mut b_rx = b.open(&b_id, &id("agent-000b"));
        let who = b.resolve(ApprovalAnswer { request_id: a_id.clone(), approved: true, scope: ApprovalScope::Agent });
        assert_eq!(who, Some(id("agent-000a")));
        assert!(a_rx.try_recv().is_ok());
        assert_eq!(b.granted(&id("agent-000a"), &[], "Write"), None, "no rule until the asking agent announces it");
        b.grant(&id("agent-000a"), "Write", ApprovalScope::Agent, true);
        assert!(b_rx.try_recv().is_err(), "the other request stays pending");
        assert_eq!(b.resolve(ApprovalAnswer { request_id: a_id, approved: true, scope: ApprovalScope::Once }), None);
        assert_eq!(b.granted(&id("agent-000a"), &[], "Write"), Some(true));
        assert_eq!(b.granted(&id("agent-000b"), &[], "Write"), None);
        assert_eq!(b.granted(&id("agent-000a"), &[], "Bash"), None);
    }

    #[test]
    fn subtree_grants_reach_descendants_and_session_grants_everyone() {
        let mut b = Approvals::default();
        let r = "approval-1".to_string();
        let _rx = b.open(&r, &id("agent-0001"));
        b.resolve(ApprovalAnswer { request_id: r, approved: false, scope: ApprovalScope::Subtree });
        b.grant(&id("agent-0001"), "Bash", ApprovalScope::Subtree, false);
        assert_eq!(b.granted(&id("agent-0002"), &[id("agent-0001")], "Bash"), Some(false));
        assert_eq!(b.granted(&id("agent-0003"), &[], "Bash"), None);
        let r = "approval-2".to_string();
        let _rx = b.open(&r, &id("agent-0003"));
        b.resolve(ApprovalAnswer { request_id: r, approved: true, scope: ApprovalScope::Session });
        b.grant(&id("agent-0003"), "Edit", ApprovalScope::Session, true);
        assert_eq!(b.granted(&id("agent-0009"), &[], "Edit"), Some(true));
    }
}
