//! Subagent types for a run, and `arbor agents`: which agent files were found
//! for a workspace, which loaded, and why any did not.

use crate::args::AgentsArgs;
use crate::setup;
use anyhow::Result;
use arbor_app::Environment;
use arbor_app::catalog::{load, source_name};
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;

#[allow(clippy::print_stdout)]
pub fn list(args: AgentsArgs, env: Environment) -> Result<ExitCode> {
    let workspace = setup::workspace(args.workspace.as_deref())?;
    let catalog = load(&workspace, arbor_app::paths::config_dir(&env).as_deref());
    let mut out = anstream::stdout();
    if args.json {
        for d in &catalog.definitions {
            let line = json!({
                "name": d.name,
                "description": d.description,
                "tools": d.tools.allow,
                "disallowed_tools": d.tools.deny,
                "model": d.model,
                "provider": d.provider,
                "max_turns": d.max_turns,
                "file": d.file,
                "source": source_name(d.source),
            });
            writeln!(out, "{line}")?;
        }
        for p in &catalog.problems {
            let line = json!({"problem": p.to_string(), "file": p.file, "field": p.field, "skipped": p.skipped});
            writeln!(out, "{line}")?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "general-purpose  (built in) a copy of the calling agent: same model, prompt and tools")?;
    for d in &catalog.definitions {
        let model = d.model.as_deref().unwrap_or("inherit");
        let tools = d.tools.allow.as_ref().map_or_else(|| "all".to_string(), |t| t.join(", "));
        let file = d.file.as_deref().map(|f| f.display().to_string()).unwrap_or_default();
        writeln!(out, "{}  ({}) {}", d.name, source_name(d.source), d.description.lines().next().unwrap_or(""))?;
        writeln!(out, "    model {model} · tools {tools} · {file}")?;
    }
    for p in &catalog.problems {
        let kind = if p.skipped { "error" } else { "warning" };
        writeln!(out, "{kind}: {p}")?;
    }
    Ok(ExitCode::SUCCESS)
}
