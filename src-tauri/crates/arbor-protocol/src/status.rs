//! Agent lifecycle statuses, approval scopes and outcomes. Each list the UI or
//! the CLI needs (which statuses are terminal, say) is a constant here, exported
//! to TypeScript through the generated bindings, never re-typed there.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    Queued,
    Running,
    WaitingApproval,
    Completed,
    Failed,
    Cancelled,
    MaxTurns,
    /// Its final answer was cut off by the output token limit (`max_tokens`, `length`).
    Truncated,
    /// Was running when the process died; set when a store is reopened.
    Interrupted,
    /// Its budget, or an ancestor's, ran out: its subtree was stopped.
    BudgetExhausted,
}

impl AgentStatus {
    pub const ALL: [AgentStatus; 10] = [
        Self::Queued,
        Self::Running,
        Self::WaitingApproval,
        Self::Completed,
        Self::Failed,
        Self::Cancelled,
        Self::MaxTurns,
        Self::Truncated,
        Self::Interrupted,
        Self::BudgetExhausted,
    ];

    /// The statuses in which an agent will do no more work (until resumed).
    pub const TERMINAL: [AgentStatus; 7] = [
        Self::Completed,
        Self::Failed,
        Self::Cancelled,
        Self::MaxTurns,
        Self::Truncated,
        Self::Interrupted,
        Self::BudgetExhausted,
    ];

    /// The ended statuses a plain new run ("Resume") carries on from. A
    /// completed agent is given more work with a message instead, and one its
    /// budget stopped by raising the budget (a plain run would stop at once).
    pub const RESUMABLE: [AgentStatus; 5] =
        [Self::Failed, Self::Cancelled, Self::MaxTurns, Self::Truncated, Self::Interrupted];

    pub fn is_terminal(self) -> bool {
        Self::TERMINAL.contains(&self)
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

/// How far an approval answer reaches beyond the request it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalScope {
    /// This request only.
    #[default]
    Once,
    /// Every call of this tool by this agent.
    Agent,
    /// Every call of this tool by this agent and its descendants.
    Subtree,
    /// Every call of this tool in the session.
    Session,
}

impl ApprovalScope {
    pub const ALL: [ApprovalScope; 4] = [Self::Once, Self::Agent, Self::Subtree, Self::Session];

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

/// How an approval request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalOutcome {
    Approved,
    Denied,
    /// Nobody answered: its agent was stopped while it waited. The call did not run.
    Withdrawn,
}

impl ApprovalOutcome {
    pub const ALL: [ApprovalOutcome; 3] = [Self::Approved, Self::Denied, Self::Withdrawn];

    pub fn of(approved: bool) -> Self {
        if approved { Self::Approved } else { Self::Denied }
    }

    pub fn is_approved(self) -> bool {
        self == Self::Approved
    }

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

/// What kind of thing a tool can do; the approval policy's default depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ToolClass {
    ReadOnly,
    Mutating,
    /// Starts or stops subagents: their own calls are checked, so the spawn itself runs by default.
    Delegation,
}

impl ToolClass {
    pub const ALL: [ToolClass; 3] = [Self::ReadOnly, Self::Mutating, Self::Delegation];

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant is listed in `ALL` (the match is exhaustive) and its wire
    /// name is the one serde writes and reads.
    #[test]
    fn every_variant_has_its_serde_wire_name() {
        fn listed<T: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug + Copy>(all: &[T]) {
            for v in all {
                let json = serde_json::to_value(v).unwrap();
                assert_eq!(json, serde_json::Value::String(crate::wire::name(v).to_string()));
                assert_eq!(serde_json::from_value::<T>(json).unwrap(), *v);
                assert_eq!(crate::wire::parse(all, crate::wire::name(v)), Some(*v));
            }
        }
        for s in AgentStatus::ALL {
            match s {
                AgentStatus::Queued
                | AgentStatus::Running
                | AgentStatus::WaitingApproval
                | AgentStatus::Completed
                | AgentStatus::Failed
                | AgentStatus::Cancelled
                | AgentStatus::MaxTurns
                | AgentStatus::Truncated
                | AgentStatus::Interrupted
                | AgentStatus::BudgetExhausted => {}
            }
        }
        listed(&AgentStatus::ALL);
        listed(&ApprovalScope::ALL);
        listed(&ApprovalOutcome::ALL);
        listed(&ToolClass::ALL);
        for m in PermissionMode::ALL {
            match m {
                PermissionMode::Default
                | PermissionMode::AcceptEdits
                | PermissionMode::BypassPermissions
                | PermissionMode::Plan
                | PermissionMode::DontAsk => {}
            }
        }
        listed(&PermissionMode::ALL);
        assert_eq!(PermissionMode::AcceptEdits.as_str(), "acceptEdits", "Claude Code's spelling");
        assert_eq!(AgentStatus::WaitingApproval.as_str(), "waiting_approval");
        assert!(AgentStatus::TERMINAL.iter().all(|s| AgentStatus::ALL.contains(s)));
        assert!(AgentStatus::RESUMABLE.iter().all(|s| s.is_terminal()));
        assert!(!AgentStatus::RESUMABLE.contains(&AgentStatus::Completed));
        assert!(!AgentStatus::RESUMABLE.contains(&AgentStatus::BudgetExhausted));
        assert!(!AgentStatus::Queued.is_terminal() && AgentStatus::Truncated.is_terminal());
    }
}

/// Claude Code's `permissionMode`, in an agent file or a delegation. Arbor
/// never lets one loosen its parent's policy unless it comes from the user's
/// own config dir (a delegation only ever tightens).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub enum PermissionMode {
    /// The parent's policy.
    #[default]
    Default,
    /// File edits run without asking.
    AcceptEdits,
    /// Everything runs without asking.
    BypassPermissions,
    /// Read-only: anything that changes something is refused.
    Plan,
    /// Whatever would ask is refused instead.
    DontAsk,
}

impl PermissionMode {
    pub const ALL: [PermissionMode; 5] =
        [Self::Default, Self::AcceptEdits, Self::BypassPermissions, Self::Plan, Self::DontAsk];

    /// The modes that only ever tighten a parent's policy (what a delegation may choose).
    pub const TIGHTENING: [PermissionMode; 3] = [Self::Default, Self::Plan, Self::DontAsk];

    pub fn as_str(self) -> &'static str {
        crate::wire::name(&self)
    }
}
