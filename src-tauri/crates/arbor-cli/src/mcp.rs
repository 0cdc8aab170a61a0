//! `arbor mcp`: which servers a workspace's agents
//! would get, where each is configured, and whether it starts and what tools it
//! has; `arbor mcp trust|untrust` decides whether a workspace's `.mcp.json` may
//! start the commands it names.

use crate::args::{McpAction, McpCommand, McpListArgs, TrustArgs};
use crate::setup;
use anyhow::Result;
use arbor_app::Environment;
use arbor_app::mcp::McpListing;
use arbor_protocol::{McpServerState, McpSource};
use std::io::Write;
use std::process::ExitCode;

pub async fn run(command: McpCommand, env: Environment) -> Result<ExitCode> {
    match command.action {
        None => list(command.list, env).await,
        Some(McpAction::List(args)) => list(args, env).await,
        Some(McpAction::Trust(args)) => trust(args, env, true),
        Some(McpAction::Untrust(args)) => trust(args, env, false),
    }
}

/// Stores (or withdraws) the decision, and says what it covers.
#[allow(clippy::print_stdout)]
fn trust(args: TrustArgs, env: Environment, trusted: bool) -> Result<ExitCode> {
    let workspace = setup::workspace(args.workspace.as_deref())?;
    let host = setup::host(None, env)?;
    let mut out = anstream::stdout();
    if trusted {
        // What is trusted is what this prints: the servers as they are now.
        let seen = host.workspace_mcp(&workspace).map(|w| w.sha256).unwrap_or_default();
        let w = host.trust_workspace_mcp(&workspace, &seen).map_err(|e| anyhow::anyhow!(e.message))?;
        writeln!(out, "trusted {} as it is now; these may start:", w.path)?;
        for s in &w.servers {
            writeln!(out, "    {}", launch_line(s))?;
        }
        for h in &w.hooks {
            writeln!(out, "    {}", hook_line(h))?;
        }
        for a in &w.allows {
            writeln!(out, "    allow rule {} from {} (runs such calls without asking)", a.rule, a.defined_in)?;
        }
    } else if host.untrust_workspace_mcp(&workspace).map_err(|e| anyhow::anyhow!(e.message))? {
        writeln!(out, "{}: no longer trusted; its MCP servers will not start nor its hooks run", workspace.display())?;
    } else {
        writeln!(out, "{}: was not trusted", workspace.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `hook PreToolUse (Bash) from …/settings.json: ./guard.sh`.
fn hook_line(h: &arbor_app::trust::HookLaunch) -> String {
    let matcher = h.matcher.as_deref().map(|m| format!(" ({m})")).unwrap_or_default();
    format!("hook {}{matcher} from {}: {}", h.event, h.defined_in, h.command)
}

/// `name: command args… (env: A, B)`.
fn launch_line(s: &arbor_app::trust::ServerLaunch) -> String {
    let mut line = format!("{}: {}", s.name, s.command);
    if s.defined_in != ".mcp.json" {
        line = format!("{} ({}): {}", s.name, s.defined_in, s.command);
    }
    for a in &s.args {
        line.push(' ');
        line.push_str(a);
    }
    if !s.env_names.is_empty() {
        line.push_str(&format!(" (sets {})", s.env_names.join(", ")));
    }
    line
}

/// Exit 1 when a server fails or a configuration has problems, so a script can check its setup.
#[allow(clippy::print_stdout)]
async fn list(args: McpListArgs, env: Environment) -> Result<ExitCode> {
    let workspace = setup::workspace(args.workspace.as_deref())?;
    let host = setup::host(None, env)?;
    // Listing runs the servers: --trust-mcp lets this listing run the workspace's, once.
    let listing = McpListing { fresh: false, trust_workspace: args.mcp.trust_mcp };
    let report = host.mcp_servers(Some(workspace.display().to_string()), &args.mcp.files, listing).await;
    let mut out = anstream::stdout();
    let failed = report.servers.iter().any(|s| s.state == McpServerState::Failed) || !report.problems.is_empty();
    if args.json {
        for s in &report.servers {
            writeln!(out, "{}", serde_json::to_string(s)?)?;
        }
        for p in &report.problems {
            writeln!(out, "{}", serde_json::json!({ "problem": p }))?;
        }
    } else {
        if report.servers.is_empty() {
            writeln!(out, "no MCP servers configured; looked in:")?;
            for f in &report.files {
                writeln!(out, "    {f}")?;
            }
        }
        for s in &report.servers {
            let from = match &s.source {
                McpSource::Workspace { path } | McpSource::File { path } => path.clone(),
                McpSource::Agent { agent_type } => format!("agent type {agent_type}"),
                McpSource::Client { client } => format!("given by {client} (ACP)"),
            };
            writeln!(out, "{}  ({}, {}) {}", s.name, s.transport, from, s.target)?;
            match (&s.state, &s.error) {
                (McpServerState::Failed, e) => writeln!(out, "    failed: {}", e.as_deref().unwrap_or("no detail"))?,
                _ => {
                    writeln!(out, "    {} tools", s.tools.len())?;
                    for t in &s.tools {
                        let ro = if t.read_only { " (read-only)" } else { "" };
                        let about = t.description.lines().next().unwrap_or("");
                        writeln!(out, "    {}{ro}  {about}", t.name)?;
                    }
                }
            }
        }
        for p in &report.problems {
            writeln!(out, "problem: {p}")?;
        }
        if let Some(w) = report.workspace.as_ref().filter(|w| !w.trusted) {
            writeln!(out, "{}", arbor_app::trust::untrusted_warning(w))?;
            for s in &w.servers {
                writeln!(out, "    would run {}", launch_line(s))?;
            }
            for h in &w.hooks {
                writeln!(out, "    would run {}", hook_line(h))?;
            }
            for a in &w.allows {
                writeln!(out, "    would apply the allow rule {} from {}", a.rule, a.defined_in)?;
            }
        }
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
