//! MCP servers for a run, and `arbor mcp`: which servers a workspace's agents
//! would get, where each is configured, and whether it starts and what tools it has.

use crate::args::{McpArgs, McpListArgs};
use crate::setup;
use anyhow::Result;
use arbor_app::mcp::{McpReport, McpSources};
use arbor_core::AgentDefinition;
use arbor_protocol::{McpServerState, McpSource};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The user's file, the workspace's `.mcp.json`, then the `--mcp-config` files.
pub fn sources<'a>(workspace: &'a Path, args: &'a McpArgs, agent_types: &'a [AgentDefinition]) -> McpSources<'a> {
    McpSources {
        config_dir: arbor_app::paths::config_dir(),
        workspace: Some(workspace),
        files: &args.files,
        agent_types,
    }
}

/// Exit 1 when a server fails or a configuration has problems, so a script can check its setup.
#[allow(clippy::print_stdout)]
pub async fn list(args: McpListArgs) -> Result<ExitCode> {
    let workspace = setup::workspace(args.workspace.as_deref())?;
    let types = arbor_app::catalog::load(&workspace).definitions;
    let sources = sources(&workspace, &args.mcp, &types);
    let (catalog, problems) = sources.build();
    catalog.check(false).await;
    let report = McpReport::of(&catalog, problems, sources.paths());
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
