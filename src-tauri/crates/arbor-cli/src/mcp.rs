//! `arbor mcp`: which servers a workspace's agents
//! would get, where each is configured, and whether it starts and what tools it has.

use crate::args::McpListArgs;
use crate::setup;
use anyhow::Result;
use arbor_app::Environment;
use arbor_protocol::{McpServerState, McpSource};
use std::io::Write;
use std::process::ExitCode;

/// Exit 1 when a server fails or a configuration has problems, so a script can check its setup.
#[allow(clippy::print_stdout)]
pub async fn list(args: McpListArgs, env: Environment) -> Result<ExitCode> {
    let workspace = setup::workspace(args.workspace.as_deref())?;
    let host = setup::host(None, env)?;
    let report = host.mcp_servers(Some(workspace.display().to_string()), &args.mcp.files, false).await;
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
    }
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
