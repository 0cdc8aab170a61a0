//! What a session is started with. Everything the runtime depends on is here,
//! passed in: no environment variables, no global clock, no default data dir.

use crate::approval::ApprovalPolicy;
use crate::clock::{Clock, SystemClock};
use crate::definitions::AgentDefinition;
use crate::journal::Journal;
use crate::mcp::McpCatalog;
use crate::provider::{Provider, RetryPolicy};
use crate::sandbox::{SandboxPolicy, Sandboxing};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The providers a session may use, by the name agents refer to them with.
pub type Providers = BTreeMap<String, Arc<dyn Provider>>;

pub use crate::tools::ToolFilter;

/// How the main agent is made: prompt, model, provider, tools, turn limit.
/// Subagent types are [`crate::definitions::AgentDefinition`]s.
#[derive(Debug, Clone, PartialEq)]
pub struct MainAgentConfig {
    /// Its label in the tree and at the root of every agent path.
    pub description: String,
    pub system_prompt: String,
    pub model: String,
    /// A key of the session's `Providers`.
    pub provider: String,
    pub tools: ToolFilter,
    pub max_turns: u32,
    /// Run it as this agent type (one of `agent_types`): the type's prompt, tools, model,
    /// provider, permission mode, MCP servers, budget and hooks apply to it.
    pub agent_type: Option<String>,
}

pub struct SessionConfig {
    pub workspace: PathBuf,
    /// Directories outside the workspace that tools may also touch.
    pub allowed_paths: Vec<PathBuf>,
    pub providers: Providers,
    pub main_agent: MainAgentConfig,
    /// The subagent types a Task call may name (loaded agent files).
    pub agent_types: Vec<AgentDefinition>,
    pub limits: Limits,
    pub approval: ApprovalPolicy,
    pub retry: RetryPolicy,
    /// Output token limit of one model response.
    pub max_tokens: u32,
    /// Add the workspace's AGENTS.md / CLAUDE.md to the main agent's system prompt.
    pub project_instructions: bool,
    pub clock: Arc<dyn Clock>,
    /// Seeds agent ids and retry jitter; None draws one.
    pub seed: Option<u64>,
    /// Keeps agents' histories as they grow (the store), so the session can be resumed.
    pub journal: Option<Arc<dyn Journal>>,
    /// The MCP servers agents may use, with their tool lists (shared across sessions).
    pub mcp: Arc<McpCatalog>,
    /// What this machine can sandbox commands with (probed once, at the edge).
    pub sandboxing: Arc<Sandboxing>,
    /// The main agent's sandbox; subagents start from it.
    pub sandbox: SandboxPolicy,
    /// The session's budget: the main agent's, so it covers the whole tree.
    pub budget: arbor_protocol::Budget,
    /// Every agent's context window and when it compacts.
    pub context: ContextConfig,
    /// The hooks of the settings files (an agent type's own come with its definition).
    pub hooks: crate::hooks::HookSet,
    /// The settings files' permission rules (`permissions.allow`, `ask`, `deny`).
    pub permissions: crate::permissions::PermissionRules,
    /// Where each agent's transcript is written, as JSON lines, for its hooks to read
    /// (`transcript_path`); None: a temporary directory of the session's own.
    pub hook_transcripts: Option<PathBuf>,
    /// The environment hooks run with (the front end's own, less the providers' keys); the
    /// hook's variables (`CLAUDE_PROJECT_DIR`, …) are added to it.
    pub hook_env: Vec<(String, String)>,
    /// The new session's id when its front end chose it beforehand (an ACP client is
    /// told the id at `session/new`, before the first prompt starts the session).
    pub session_id: Option<arbor_protocol::SessionId>,
}

impl ContextConfig {
    /// These settings with an agent type's own figures over them.
    pub fn overridden_by(self, own: &crate::definitions::ContextOverride) -> ContextConfig {
        ContextConfig {
            window: own.window.or(self.window),
            compact_at_percent: own.compact_at_percent.unwrap_or(self.compact_at_percent),
            summary_model: self.summary_model,
        }
    }
}

/// How agents treat their context window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextConfig {
    /// The window, for every model (Settings, `--context-window`); None: each model's own.
    pub window: Option<u64>,
    /// Compact when the next request would fill this share of the window (1–100).
    pub compact_at_percent: u8,
    /// The model that writes compaction summaries, on the agent's own provider (a cheaper
    /// one, say); None, or a model that provider refuses: the agent's own model.
    pub summary_model: Option<String>,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self { window: None, compact_at_percent: 80, summary_model: None }
    }
}

impl SessionConfig {
    /// A session in `workspace` whose main agent runs `model` on `provider`.
    pub fn new(workspace: impl Into<PathBuf>, provider_name: &str, provider: Arc<dyn Provider>, model: &str) -> Self {
        let mut providers = Providers::new();
        providers.insert(provider_name.to_string(), provider);
        Self {
            workspace: workspace.into(),
            allowed_paths: Vec::new(),
            providers,
            main_agent: MainAgentConfig {
                description: "main".to_string(),
                system_prompt: crate::prompt::DEFAULT_SYSTEM_PROMPT.to_string(),
                model: model.to_string(),
                provider: provider_name.to_string(),
                tools: ToolFilter::default(),
                max_turns: 100,
                agent_type: None,
            },
            agent_types: Vec::new(),
            limits: Limits::default(),
            approval: ApprovalPolicy::default(),
            retry: RetryPolicy::default(),
            max_tokens: 8192,
            project_instructions: true,
            clock: Arc::new(SystemClock),
            seed: None,
            journal: None,
            mcp: Arc::new(McpCatalog::default()),
            sandboxing: Arc::new(Sandboxing::default()),
            sandbox: SandboxPolicy::default(),
            budget: arbor_protocol::Budget::default(),
            context: ContextConfig::default(),
            hooks: crate::hooks::HookSet::default(),
            permissions: crate::permissions::PermissionRules::default(),
            hook_transcripts: None,
            hook_env: Vec::new(),
            session_id: None,
        }
    }
}

/// The scheduler's limits (design.md §3.3). The limits on depth and count bind
/// the models; a person delegating from outside is not held to them.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Subagents running at once; more wait, queued.
    pub max_parallel: usize,
    /// How deep the tree may grow: the main agent is depth 0; at the limit `Task` is not offered.
    pub max_depth: u32,
    /// Subagents a session's models may start in all.
    pub max_subagents: u32,
    /// A child's turn limit when neither its definition nor the call gives one.
    pub subagent_max_turns: u32,
    /// Turn limits asked for above this are clamped to it.
    pub max_turns_cap: u32,
    /// A child's result is cut to this many characters for its parent's model.
    pub result_chars: usize,
    /// The spawn-rate guard: models may start at most this many subagents a minute (0: no guard).
    pub max_spawns_per_minute: u32,
    /// The budget every subagent gets unless its type, its Task call or a person says otherwise.
    pub subagent_budget: arbor_protocol::Budget,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_parallel: 5,
            max_depth: 1,
            max_subagents: 10,
            subagent_max_turns: 10,
            max_turns_cap: 100,
            result_chars: 50_000,
            max_spawns_per_minute: 30,
            subagent_budget: arbor_protocol::Budget::default(),
        }
    }
}
