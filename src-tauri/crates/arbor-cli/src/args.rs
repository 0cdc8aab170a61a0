//! The command line's shape (clap).

use arbor_protocol::ProviderKind;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "arbor",
    version,
    about = "Run LLM agents and their subagents from the terminal",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run an agent on a prompt in a workspace.
    Run(RunArgs),
    /// Watch a scripted demonstration: no API key, no network, no real model.
    Demo(DemoArgs),
    /// List the subagent types found for a workspace (agent files), and any that failed to load.
    Agents(AgentsArgs),
    /// List the MCP servers agents would get in a workspace (each is started once to list its
    /// tools), or trust or untrust a workspace's .mcp.json.
    Mcp(McpCommand),
    /// List stored sessions, newest first.
    Sessions(SessionsArgs),
    /// Print a stored session: every agent's full transcript, subagents' included.
    Show(ShowArgs),
    /// Search every stored transcript.
    Search(SearchArgs),
    /// Continue a stored session: a new prompt for its main agent, or carry on where it stopped.
    Resume(ResumeArgs),
    /// The files a session's agents created, changed or deleted, each attributed to its agent.
    Changes(ChangesArgs),
    /// Undo an agent's file changes (all, or the files named): all or nothing, refused file by
    /// file when anyone changed it since.
    Revert(RevertArgs),
    /// Arbor's worktrees in the workspace's repository (those a crash left too), or merge or
    /// discard one.
    Worktrees(WorktreesCommand),
    /// Store other tools' transcripts as read-only sessions, shown with the same tree,
    /// output, search, timeline and export.
    Import(ImportCommand),
    /// Serve the Agent Client Protocol on stdin/stdout, for an editor to drive Arbor
    /// (Zed's `agent_servers`, JetBrains, Neovim, …). The flags apply to every session.
    Acp(AcpArgs),
}

#[derive(Args, Debug, Clone)]
pub struct AcpArgs {
    #[command(flatten)]
    pub common: Common,
    /// Model provider (default: as for `arbor run`).
    #[arg(long, value_enum)]
    pub provider: Option<Provider>,
    /// Model name (default: the provider's).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
}

#[derive(Args, Debug)]
pub struct ImportCommand {
    #[command(subcommand)]
    pub source: ImportSource,
}

#[derive(Subcommand, Debug)]
pub enum ImportSource {
    /// Claude Code's sessions and their subagents (read only; nothing is written there).
    /// Importing again adds only what is new: a session that grew is updated.
    ClaudeCode(ImportArgs),
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// A projects folder, or one project's (default: $CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects).
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The report as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ChangesArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The session's id (a unique prefix is enough).
    #[arg(value_name = "SESSION")]
    pub session: String,
    /// Only this agent's changes.
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    /// diff: a unified diff per change; json: one object per change per line.
    #[arg(long, value_enum, default_value_t = ChangesFormat::Diff)]
    pub format: ChangesFormat,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangesFormat {
    Diff,
    Json,
}

#[derive(Args, Debug)]
pub struct RevertArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The session's id (a unique prefix is enough).
    #[arg(value_name = "SESSION")]
    pub session: String,
    /// The agent whose changes are undone.
    #[arg(long, value_name = "ID")]
    pub agent: String,
    /// Only these files (as `arbor changes` names them); default: every file it changed.
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WorktreesCommand {
    #[command(subcommand)]
    pub action: Option<WorktreesAction>,
    #[command(flatten)]
    pub list: WorktreesListArgs,
}

#[derive(Args, Debug, Clone)]
pub struct WorktreesListArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// A directory of the repository (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// One JSON object per worktree on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum WorktreesAction {
    /// Apply an agent's branch to the tree it came from (all of it, or nothing on a conflict), then remove it.
    Merge(WorktreeTarget),
    /// Delete an agent's worktree and branch, and the changes on it.
    Discard(WorktreeTarget),
}

#[derive(Args, Debug)]
pub struct WorktreeTarget {
    #[command(flatten)]
    pub list: WorktreesListArgs,
    /// The agent whose worktree it is.
    #[arg(value_name = "AGENT_ID")]
    pub agent: String,
}

/// Where the transcript store is (shared by the commands that only read it).
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// Where Arbor keeps its data (default: $ARBOR_DATA_DIR, else the platform's data dir).
    #[arg(long, value_name = "DIR", env = "ARBOR_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct SessionsArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// One JSON object per session on stdout.
    #[arg(long)]
    pub json: bool,
    /// Only sessions whose first prompt or workspace contains this text.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// At most this many (0: all).
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: u32,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShowFormat {
    /// A readable transcript.
    Markdown,
    /// A first line with the session and its agents, then every stored event, one per line,
    /// exactly as `arbor run --json` printed them.
    Json,
    /// One line per agent, in tree order, with a bar of when it queued, ran model turns,
    /// ran tools and waited for you, scaled to the terminal's width.
    Timeline,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// The session's id (a unique prefix is enough).
    #[arg(value_name = "SESSION")]
    pub session: String,
    /// Only this agent's transcript.
    #[arg(long, value_name = "ID")]
    pub agent: Option<String>,
    #[arg(long, value_enum, default_value_t = ShowFormat::Markdown)]
    pub format: ShowFormat,
    /// Columns for `--format timeline` (default: the terminal's width, else 100).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(40..))]
    pub width: Option<u16>,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub store: StoreArgs,
    /// One JSON object per hit on stdout.
    #[arg(long)]
    pub json: bool,
    /// At most this many hits, newest first.
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub limit: u32,
    #[arg(required = true, value_name = "TEXT")]
    pub text: Vec<String>,
}

#[derive(Args, Debug)]
pub struct ResumeArgs {
    #[command(flatten)]
    pub common: Common,
    /// The session's id (a unique prefix is enough).
    #[arg(value_name = "SESSION")]
    pub session: String,
    /// The main agent's next prompt; without one it carries on where it stopped.
    #[arg(value_name = "PROMPT")]
    pub prompt: Vec<String>,
}

#[derive(Args, Debug)]
pub struct AgentsArgs {
    /// The workspace whose .claude/agents and .arbor/agents are read (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// One JSON object per type on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug, Clone)]
pub struct Common {
    /// One JSON event per line on stdout, nothing else; approvals are answered by JSON lines on stdin.
    #[arg(long)]
    pub json: bool,
    /// The folder the agents work in.
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Which tool calls run without asking (default: ask, or what your settings' `defaultMode` says).
    #[arg(long, value_enum)]
    pub approve: Option<ApproveMode>,
    /// Run the main agent as this agent type (a name `arbor agents` lists): its prompt,
    /// tools, model, provider, permission mode, MCP servers, budget and hooks.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Ask before any subagent starts: its type, model, tools, limits and prompt,
    /// which an answer may change (`"edit"` in a `--json` approval line).
    #[arg(long)]
    pub approve_spawn: bool,
    /// Turn limit of the main agent.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Subagents that run at once; more wait in a queue.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub max_parallel: u32,
    /// How deep subagents may nest: 1 lets only the main agent start them, 0 turns them off.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=8))]
    pub max_depth: u32,
    /// Subagents the models may start in the whole session.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub max_subagents: u32,
    /// Where Arbor keeps its data and logs (default: $ARBOR_DATA_DIR, else the platform's data dir).
    #[arg(long, value_name = "DIR", env = "ARBOR_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// Give up on a model's response after this many seconds without data (default 120).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub idle_timeout: Option<u64>,
    /// The most seconds one model turn may take, retries included (default 300).
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub retry_budget: Option<u64>,
    /// The models' context window in tokens, where Arbor does not know it or a server holds fewer (default: each model's own; unknown models 128000, a guess).
    #[arg(long, value_name = "TOKENS", value_parser = clap::value_parser!(u64).range(1_000..=100_000_000))]
    pub context_window: Option<u64>,
    /// Compact an agent's conversation when its next request would fill this much of its window (default 80).
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(10..=100))]
    pub compact_at: Option<u8>,
    /// The model that writes compaction summaries, on the agent's provider (a cheaper one, say; default: the agent's own).
    #[arg(long, value_name = "MODEL")]
    pub summary_model: Option<String>,
    #[command(flatten)]
    pub mcp: McpArgs,
    #[command(flatten)]
    pub sandbox: SandboxArgs,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// The session's budget: the main agent's, so it covers every agent of the session.
#[derive(Args, Debug, Clone, Default)]
pub struct BudgetArgs {
    /// Stop the session before its agents use more than N tokens (input, output and cache writes; cache reads are not counted).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: Option<u64>,
    /// Stop the session before its agents cost more than USD dollars (where the models' prices are known).
    #[arg(long, value_name = "USD", value_parser = positive_dollars)]
    pub max_budget_usd: Option<f64>,
    /// Stop the session after this many seconds of wall time.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_duration: Option<u64>,
    /// The spawn-rate guard: at most N new subagents a minute (0: no guard; default 30, or the settings').
    #[arg(long, value_name = "N")]
    pub max_spawns_per_minute: Option<u32>,
}

fn positive_dollars(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').parse::<f64>() {
        Ok(n) if n > 0.0 && n.is_finite() => Ok(n),
        _ => Err(format!("expected an amount of dollars above 0, like 2.50 (got {s:?})")),
    }
}

/// The OS sandbox `Bash` commands run in (default: the settings', else `workspace` with network off).
#[derive(Args, Debug, Clone, Default)]
pub struct SandboxArgs {
    /// off: commands run as you; workspace: they write only in the workspace and a private /tmp,
    /// with ~/.ssh and other secret places hidden; strict: the whole home directory hidden too.
    #[arg(long = "sandbox", value_enum, value_name = "MODE")]
    pub mode: Option<SandboxArg>,
    /// Sandboxed commands may open network connections.
    #[arg(long)]
    pub allow_network: bool,
    /// A directory sandboxed commands may also write to; may be repeated.
    #[arg(long = "sandbox-write", value_name = "DIR")]
    pub write: Vec<PathBuf>,
    /// Commands the sandbox holds run without asking (other calls still ask).
    #[arg(long)]
    pub sandboxed_without_asking: bool,
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxArg {
    Off,
    Workspace,
    Strict,
}

/// MCP servers beyond the user's (`<config dir>/mcp.json`) and the workspace's (`.mcp.json`).
#[derive(Args, Debug, Clone, Default)]
pub struct McpArgs {
    /// A file of MCP servers in the `.mcp.json` format (`{"mcpServers": {...}}`); may be repeated.
    #[arg(long = "mcp-config", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Start the workspace's `.mcp.json` servers this once even though it is not
    /// trusted (`arbor mcp trust` trusts it for good).
    #[arg(long)]
    pub trust_mcp: bool,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct McpCommand {
    #[command(subcommand)]
    pub action: Option<McpAction>,
    #[command(flatten)]
    pub list: McpListArgs,
}

#[derive(Subcommand, Debug)]
pub enum McpAction {
    /// List the servers (what `arbor mcp` does without a subcommand).
    List(McpListArgs),
    /// Let the workspace's .mcp.json start its servers, as the file is now (an edit asks again).
    Trust(TrustArgs),
    /// Withdraw that: its servers no longer start.
    Untrust(TrustArgs),
}

#[derive(Args, Debug)]
pub struct TrustArgs {
    /// The workspace (default: the current directory).
    #[arg(value_name = "WORKSPACE")]
    pub workspace: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct McpListArgs {
    /// The workspace whose .mcp.json and agent types are read (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    #[command(flatten)]
    pub mcp: McpArgs,
    /// One JSON object per server on stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub common: Common,
    /// Model provider (default: the first with a key, or with a base URL of a local server:
    /// ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, then OPENAI_API_KEY / OPENAI_BASE_URL).
    #[arg(long, value_enum)]
    pub provider: Option<Provider>,
    /// Model name (default: claude-sonnet-4-5 / gpt-4.1).
    #[arg(long, value_name = "M")]
    pub model: Option<String>,
    /// What to ask the agent.
    #[arg(required = true, value_name = "PROMPT")]
    pub prompt: Vec<String>,
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    #[command(flatten)]
    pub common: Common,
}

/// A provider on the command line: its wire name (`anthropic`, `openai`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Provider(pub ProviderKind);

impl From<Provider> for ProviderKind {
    fn from(p: Provider) -> Self {
        p.0
    }
}

impl ValueEnum for Provider {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [Provider; 2] = [Provider(ProviderKind::ALL[0]), Provider(ProviderKind::ALL[1])];
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()))
    }
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApproveMode {
    /// Reads run; writes and commands ask (a y/n prompt, or JSON lines on stdin with --json).
    Ask,
    /// Everything runs without asking.
    All,
    /// Only read-only tools are offered; anything else is refused.
    ReadOnly,
    /// Writes and commands are refused without asking.
    Deny,
}
