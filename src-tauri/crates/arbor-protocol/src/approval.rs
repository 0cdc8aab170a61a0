//! Approvals on the wire (design.md §3.4): a request with a preview of what the
//! call would do, how it ended and what decided it, the standing rules a
//! person's scoped answers leave, and the edits a person may make to a
//! subagent before it starts.

use crate::{AgentId, ApprovalOutcome, ApprovalScope};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ApprovalRequest {
    pub request_id: String,
    /// The tool call this request is about.
    pub call_id: String,
    pub tool_name: String,
    pub tool_args: Value,
    /// Descriptions from the root agent down to the requesting agent.
    pub agent_path: Vec<String>,
    /// What the call would do, as the runtime saw it when it asked.
    #[serde(default)]
    pub preview: Option<ApprovalPreview>,
    /// The answers an external ACP agent offers, in its own words (empty for Arbor's own
    /// agents, whose card offers Arbor's scopes). Choosing one answers as any approval.
    #[serde(default)]
    pub options: Vec<AgentOption>,
}

/// One answer an external agent offers for its permission request: its own label, and
/// what choosing it means in Arbor's terms. An "always" answer is this agent's rule in
/// Arbor too, so a later request it covers is answered without asking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct AgentOption {
    pub name: String,
    pub approved: bool,
    pub scope: ApprovalScope,
}

/// What a call would do, for the person deciding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ApprovalPreview {
    /// A Write or Edit: the file on disk when the request was made and as the call would leave it.
    File {
        /// Workspace-relative when inside the workspace.
        path: String,
        /// None: the file does not exist yet.
        before: Option<String>,
        /// None: the call cannot apply (`note` says why).
        after: Option<String>,
        /// Why a side is missing or cut (too large, not text, the text to replace is not there).
        note: Option<String>,
    },
    /// A shell command, where it runs, and the agent's reason for it.
    Command {
        command: String,
        cwd: String,
        description: Option<String>,
        /// What the command will run in; absent in transcripts older than the sandbox.
        #[serde(default)]
        sandbox: Option<crate::CommandSandbox>,
    },
    /// An MCP server's tool (its arguments are the request's `tool_args`).
    Mcp { server: String, tool: String },
    /// A subagent a Task call would start; the answer may edit it.
    Spawn(SpawnPlan),
}

/// The subagent a Task call would start, as it would start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct SpawnPlan {
    pub subagent_type: String,
    pub description: String,
    pub model: String,
    pub provider: String,
    /// Every tool it would be offered; an edit may narrow the list, never widen it.
    pub tools: Vec<String>,
    pub max_turns: u32,
    pub background: bool,
    pub prompt: String,
    /// Set when the child would be a fork: it starts from the caller's conversation.
    #[serde(default)]
    pub fork: Option<crate::Fork>,
}

/// What a person changed in a spawn card before approving it: what the child gets.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct SpawnEdit {
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    /// A subset of the plan's tools.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub max_turns: Option<u32>,
}

impl SpawnEdit {
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The file a waiting request previews is no longer what the preview showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ApprovalStale {
    pub request_id: String,
    /// In words for the person ("changed on disk", "was deleted").
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ApprovalResolved {
    pub request_id: String,
    pub outcome: ApprovalOutcome,
    /// How far the answer reaches (always `once` when withdrawn or answered by a rule).
    pub scope: ApprovalScope,
    /// Who answered: a person, or a standing rule. None when withdrawn.
    #[serde(default)]
    pub decided_by: Option<DecidedBy>,
    /// The person's reason, given to the agent with a denial.
    #[serde(default)]
    pub reason: Option<String>,
    /// The rule this answer set (a scoped answer by a person).
    #[serde(default)]
    pub rule: Option<ApprovalRule>,
    /// What the person changed in a spawn before approving it.
    #[serde(default)]
    pub edit: Option<SpawnEdit>,
}

impl ApprovalResolved {
    /// A request nobody answered: its agent was stopped, its session closed or its
    /// process died while it waited. The call did not run.
    pub fn withdrawn(request_id: String) -> Self {
        Self {
            request_id,
            outcome: ApprovalOutcome::Withdrawn,
            scope: ApprovalScope::Once,
            decided_by: None,
            reason: None,
            rule: None,
            edit: None,
        }
    }
}

/// What decided whether a call ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecidedBy {
    /// A person's answer to this call's own request.
    Person,
    /// A rule a person's earlier scoped answer set.
    Rule { rule: ApprovalRule },
    /// Nobody was asked: the approval policy lets this tool run (or refuses it).
    Policy,
    /// A hook decided (PreToolUse or PermissionRequest), defined in `source`.
    Hook { hook_event: crate::HookEvent, source: String },
    /// A permission rule of a settings file (`permissions.allow`, `ask`, `deny`), as written.
    Setting { rule: String, source: String },
}

/// A standing answer: every later call of `tool` it covers runs (or is
/// refused) without asking, until a person revokes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ApprovalRule {
    pub rule_id: String,
    pub tool: String,
    /// `agent`: calls by `agent_id`; `subtree`: by it and its descendants; `session`: by anyone.
    pub scope: ApprovalScope,
    /// The agent whose request the answer was to.
    pub agent_id: AgentId,
    pub approved: bool,
    /// The request whose answer set it.
    pub request_id: String,
    pub created_at: i64,
}

impl ApprovalRule {
    /// What it covers, in words, with the answering agent's description:
    /// "Write for “Update changelog”", "… and all its subagents", "Write anywhere in this session".
    pub fn reach(&self, agent: &str) -> String {
        match self.scope {
            ApprovalScope::Once => format!("this {} call", self.tool),
            ApprovalScope::Agent => format!("{} for “{agent}”", self.tool),
            ApprovalScope::Subtree => format!("{} for “{agent}” and all its subagents", self.tool),
            ApprovalScope::Session => format!("{} anywhere in this session", self.tool),
        }
    }

    /// Whether a call of `tool` by `agent` (whose ancestors are `ancestors`, nearest first) falls under it.
    pub fn covers(&self, agent: &AgentId, ancestors: &[AgentId], tool: &str) -> bool {
        self.tool == tool
            && match self.scope {
                ApprovalScope::Once => false,
                ApprovalScope::Agent => self.agent_id == *agent,
                ApprovalScope::Subtree => self.agent_id == *agent || ancestors.contains(&self.agent_id),
                ApprovalScope::Session => true,
            }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct RuleRevoked {
    pub rule_id: String,
}

/// The rules in force, as the events so far left them: set by an answer's
/// `rule`, gone with `rule_revoked`. What a front end lists as "Active rules".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActiveRules {
    rules: Vec<ApprovalRule>,
}

impl ActiveRules {
    /// Applies one event; true when the rules changed.
    pub fn apply(&mut self, event: &crate::AgentEvent) -> bool {
        match &event.kind {
            crate::EventKind::ApprovalResolved(ApprovalResolved { rule: Some(rule), .. }) => {
                self.rules.push(rule.clone());
                true
            }
            crate::EventKind::RuleRevoked(r) => {
                let before = self.rules.len();
                self.rules.retain(|x| x.rule_id != r.rule_id);
                self.rules.len() != before
            }
            _ => false,
        }
    }

    /// Oldest first.
    pub fn rules(&self) -> &[ApprovalRule] {
        &self.rules
    }
}
