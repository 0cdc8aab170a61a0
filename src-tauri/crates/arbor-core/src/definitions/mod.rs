//! Subagent types: Claude Code's agent files (Markdown with YAML front matter)
//! read from the workspace and the user's config dir (design.md §3.6).
//!
//! Files written for Claude Code load unchanged: unknown fields are noted and
//! ignored, since Claude Code adds fields over time. A bad file is reported and
//! skipped; it never stops the others from loading. What a definition's fields
//! are allowed to do (e.g. whether `permissionMode` may loosen the parent's
//! policy) is decided where agents are started, not here.

mod load;
mod parse;
#[cfg(test)]
mod tests;

pub use load::{load, search_dirs};
pub use parse::parse_definition;

use crate::tools::ToolFilter;
use std::fmt;
use std::path::{Path, PathBuf};

/// The type a Task call names when it gives no `subagent_type`: a child that
/// inherits its parent's model, provider, system prompt and tools.
pub use arbor_protocol::GENERAL_PURPOSE;

/// Where a definition was found; later sources win on a name clash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DefinitionSource {
    /// `<workspace>/.claude/agents/`
    ClaudeProject,
    /// `<workspace>/.arbor/agents/`
    ArborProject,
    /// The user's config dir (`~/.config/arbor/agents/`).
    User,
}

/// Claude Code's `permissionMode` (defined with the wire types: a delegation may name one).
pub use arbor_protocol::PermissionMode;

/// The spellings `permissionMode` accepts, as Claude Code writes them (its serde names).
const PERMISSION_MODES: [PermissionMode; 5] = PermissionMode::ALL;

/// Where a subagent does its work (Claude Code's `isolation`).
pub use arbor_protocol::Isolation;

/// An external ACP agent to start (`acp: {command, args, env}` in an agent file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcpCommand {
    pub command: String,
    pub args: Vec<String>,
    /// Added to the environment it starts with; `${VAR}` is expanded from Arbor's when the
    /// session is set up (the app does, as for `.mcp.json`), so values here may be secrets.
    pub env: std::collections::BTreeMap<String, String>,
    /// Why it may not start (a workspace's file not trusted yet, a `${VAR}` not set); None: it may.
    pub blocked: Option<String>,
    /// Its own process runs in the agent's sandbox: its file asks for one (`sandbox:`), with
    /// what the program needs (its network, its config dir). Otherwise it runs outside it.
    pub sandboxed: bool,
}

impl AcpCommand {
    /// The command line as a person reads it (never its environment: it may hold keys).
    pub fn display(&self) -> String {
        std::iter::once(self.command.as_str()).chain(self.args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
    }
}

/// One subagent type.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDefinition {
    /// What a Task call's `subagent_type` names it by.
    pub name: String,
    /// When to use it: shown to the parent's model so it can choose.
    pub description: String,
    /// The Markdown body.
    pub system_prompt: String,
    /// `tools` (None: all the parent's) and `disallowedTools`.
    pub tools: ToolFilter,
    /// None or `inherit`: the parent's model. Claude Code's aliases (sonnet, opus, haiku) are kept as written.
    pub model: Option<String>,
    /// Arbor's addition: a key of the session's providers; None: the parent's.
    pub provider: Option<String>,
    /// `maxTurns`; None: the session's default for subagents.
    pub max_turns: Option<u32>,
    /// `permissionMode`; [`PermissionMode::Default`] when not given.
    pub permission_mode: PermissionMode,
    /// `mcpServers` as written (names of configured servers, or inline configs).
    pub mcp_servers: Vec<serde_json::Value>,
    /// `color`: how the UI marks this type's agents.
    pub color: Option<String>,
    /// `approveSpawn` (Arbor's): agents of this type ask a person before each subagent they start.
    pub approve_spawn: bool,
    /// `sandbox` (Arbor's): a mode (`off`, `workspace`, `strict`) or `{mode, network, write}`.
    /// A workspace's file may only tighten what the parent has; the user's own may loosen it.
    pub sandbox: Option<arbor_protocol::SandboxRequest>,
    /// `isolation: worktree` (Claude Code's): the agent works in a git worktree of its own.
    pub isolation: Isolation,
    /// Arbor's `maxTokens`, `maxCostUsd`, `maxDurationSeconds`, `maxSubagents`: each agent of
    /// this type gets this budget (covering its subtree), within what its parent has left.
    pub budget: arbor_protocol::Budget,
    /// Arbor's `contextWindow` (tokens) and `compactAt` (percent): this type's agents' window
    /// and compaction threshold, over the session's.
    pub context: ContextOverride,
    /// `hooks` (Claude Code's, as in settings): they run for this type's agents, over the session's.
    pub hooks: crate::hooks::HookSet,
    /// `acp` (Arbor's): this type's agents are an external ACP agent (Claude Code, Codex,
    /// Gemini CLI, …) started as this command, rather than Arbor's own loop.
    pub acp: Option<AcpCommand>,
    /// The file it came from; None for built-in types.
    pub file: Option<PathBuf>,
    /// Which directory the file came from; None for built-in types.
    pub source: Option<DefinitionSource>,
}

/// An agent type's own context settings; None: the session's.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ContextOverride {
    pub window: Option<u64>,
    pub compact_at_percent: Option<u8>,
}

/// What loading found: the definitions (later sources winning on a name clash, sorted by name) and every problem.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    /// One per name, sorted by name.
    pub definitions: Vec<AgentDefinition>,
    /// Skipped files and notes on loaded ones, in the order the files were read.
    pub problems: Vec<DefinitionProblem>,
}

impl Catalog {
    /// The definition named `name`. [`GENERAL_PURPOSE`] is None unless a file defines it:
    /// the built-in type is made from the parent, which this catalog does not know.
    pub fn get(&self, name: &str) -> Option<&AgentDefinition> {
        self.definitions.iter().find(|d| d.name == name)
    }

    /// Every name a Task call may give, sorted; [`GENERAL_PURPOSE`] is always one.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.definitions.iter().map(|d| d.name.as_str()).collect();
        if !names.contains(&GENERAL_PURPOSE) {
            names.push(GENERAL_PURPOSE);
        }
        names.sort_unstable();
        names
    }
}

/// A file that was skipped (error) or loaded with a note (warning).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionProblem {
    /// The agent file (or a directory that could not be read).
    pub file: PathBuf,
    /// The front-matter field at fault, as written in the file (`maxTurns`); None for the file as a whole.
    pub field: Option<String>,
    /// What is wrong, for a person to read.
    pub reason: String,
    /// True: nothing from this file was loaded. False: a warning; the definition loaded.
    pub skipped: bool,
}

impl DefinitionProblem {
    fn error(file: &Path, field: Option<&str>, reason: impl Into<String>) -> Self {
        Self { file: file.to_path_buf(), field: field.map(str::to_string), reason: reason.into(), skipped: true }
    }

    fn warning(file: &Path, field: Option<&str>, reason: impl Into<String>) -> Self {
        Self { skipped: false, ..Self::error(file, field, reason) }
    }
}

impl fmt::Display for DefinitionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.file.display())?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.reason)?;
        if self.skipped {
            f.write_str("; the file was skipped")?;
        }
        Ok(())
    }
}

impl std::error::Error for DefinitionProblem {}

/// Larger than any real agent file: a bigger one is a mistake, not a prompt.
const MAX_FILE_BYTES: usize = 1 << 20;

const DELIMITER: &str = "---";

/// The fields read; any other is noted and ignored.
const KNOWN_FIELDS: [&str; 21] = [
    "acp",
    "hooks",
    "maxTokens",
    "maxCostUsd",
    "maxDurationSeconds",
    "maxSubagents",
    "contextWindow",
    "compactAt",
    "name",
    "description",
    "tools",
    "disallowedTools",
    "model",
    "provider",
    "permissionMode",
    "maxTurns",
    "mcpServers",
    "color",
    "approveSpawn",
    "sandbox",
    "isolation",
];
