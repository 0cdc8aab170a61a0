//! `arbor import claude-code [DIR]`: Claude Code's transcripts stored as
//! read-only sessions, and a report of what was added, updated or left as it was.

use crate::args::ImportArgs;
use crate::setup;
use crate::transcripts::out;
use anyhow::Result;
use arbor_app::Environment;
use arbor_app::import::ImportOutcome;
use std::process::ExitCode;

pub async fn claude_code(args: ImportArgs, env: Environment) -> Result<ExitCode> {
    let host = setup::host(args.store.data_dir.as_deref(), env)?;
    let report = host.import_claude_code(args.dir.clone()).await?;
    if args.json {
        out(&format!("{}\n", serde_json::to_string(&report)?))?;
        return Ok(ExitCode::SUCCESS);
    }
    let count = |o: ImportOutcome| report.sessions.iter().filter(|s| s.outcome == o).count();
    let events: u64 = report.sessions.iter().map(|s| s.events).sum();
    let mut text = String::new();
    for s in report.sessions.iter().filter(|s| s.outcome != ImportOutcome::Unchanged) {
        let prompt: String = s.first_prompt.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(70).collect();
        let agents = if s.subagents == 0 { String::new() } else { format!(" · {} subagents", s.subagents) };
        let what = match s.outcome {
            ImportOutcome::Added => "added  ",
            ImportOutcome::Updated => "updated",
            ImportOutcome::Failed => "FAILED ",
            ImportOutcome::Unchanged => "",
        };
        text.push_str(&format!("{what} {}  {} events{agents}  {prompt}\n", s.session_id, s.events));
    }
    for p in &report.problems {
        let at = p.line.map(|l| format!(":{l}")).unwrap_or_default();
        text.push_str(&format!("problem: {}{at}: {}\n", p.file, p.message));
    }
    let skipped: Vec<String> = report.skipped.iter().map(|(k, n)| format!("{n} {k}")).collect();
    text.push_str(&format!(
        "{} sessions from {}: {} added, {} updated, {} unchanged{}; {events} events in {} ms ({} KB read)\n",
        report.sessions.len(),
        report.dir,
        count(ImportOutcome::Added),
        count(ImportOutcome::Updated),
        count(ImportOutcome::Unchanged),
        match count(ImportOutcome::Failed) {
            0 => String::new(),
            n => format!(", {n} failed"),
        },
        report.elapsed_ms,
        report.bytes / 1024
    ));
    if !skipped.is_empty() {
        text.push_str(&format!("not kept (Claude Code's own bookkeeping): {}\n", skipped.join(", ")));
    }
    out(&text)?;
    Ok(if count(ImportOutcome::Failed) > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
