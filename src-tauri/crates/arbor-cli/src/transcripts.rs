//! The stored-session commands: `arbor sessions`, `arbor show`, `arbor search`
//! and `arbor resume`, through the same API the app uses (which checks who runs
//! a session in one place); only `resume` runs agents again.

use crate::args::{ResumeArgs, SearchArgs, SessionsArgs, ShowArgs, ShowFormat, StoreArgs};
use crate::run::{execute, tuning};
use crate::setup;
use anyhow::{Context, Result};
use arbor_app::transcripts::{ExportFormat, HistoryQuery};
use arbor_app::{Environment, Host, LaunchSpec, Start};
use arbor_protocol::{AgentId, SessionSummary};
use std::io::Write;
use std::process::ExitCode;

fn open(args: &StoreArgs, env: Environment) -> Result<Host> {
    setup::host(args.data_dir.as_deref(), env)
}

/// Writes to stdout; a closed pipe (`| head`) ends the command quietly.
pub(crate) fn out(text: &str) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}

pub async fn sessions(args: SessionsArgs, env: Environment) -> Result<ExitCode> {
    let host = open(&args.store, env)?;
    let q = HistoryQuery { text: args.filter.clone(), status: None, offset: 0, limit: Some(args.limit) };
    let list = host.sessions(q).await?;
    let mut text = String::new();
    if args.json {
        for s in &list {
            text.push_str(&serde_json::to_string(s)?);
            text.push('\n');
        }
    } else if list.is_empty() {
        text.push_str("no stored sessions yet: `arbor run` or `arbor demo` records one\n");
    } else {
        let width = list.iter().map(|s| s.id.0.len()).max().unwrap_or(0).max("SESSION".len());
        text.push_str(&format!(
            "{:<width$}  {:<16}  {:<11}  {:>6}  {:>8}  {:>8}  {}\n",
            "SESSION", "STARTED (UTC)", "STATUS", "AGENTS", "TOKENS", "COST", "PROMPT · WORKSPACE"
        ));
        for s in &list {
            text.push_str(&row(s, width));
        }
    }
    out(&text)?;
    Ok(ExitCode::SUCCESS)
}

fn row(s: &SessionSummary, width: usize) -> String {
    let prompt: String = s.first_prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    let prompt = if prompt.chars().count() > 60 {
        format!("{}…", prompt.chars().take(59).collect::<String>())
    } else {
        prompt
    };
    format!(
        "{:<width$}  {:<16}  {:<11}  {:>6}  {:>8}  {:>8}  {} · {}\n",
        s.id.0,
        utc_minute(s.started_at),
        s.status.as_str(),
        s.agent_count,
        s.usage.tokens,
        s.usage.usage.cost_usd.map(|c| format!("${c:.4}")).unwrap_or_else(|| "-".into()),
        prompt,
        s.workspace
    )
}

/// `YYYY-MM-DD HH:MM` in UTC, from milliseconds since the epoch.
fn utc_minute(ms: i64) -> String {
    arbor_protocol::time::minute(ms)
}

pub async fn show(args: ShowArgs, env: Environment) -> Result<ExitCode> {
    let host = open(&args.store, env)?;
    let id = host.resolve_session(args.session.clone()).await?;
    let agent = args.agent.map(AgentId);
    match args.format {
        ShowFormat::Markdown => out(&host.export_text(id, agent, ExportFormat::Markdown).await?)?,
        ShowFormat::Json => {
            let export = host.export_session(id, agent).await?;
            // The first line describes the session; every other line is one event, exactly
            // as `arbor run --json` printed it, so the two compare line for line.
            let mut text = serde_json::to_string(&serde_json::json!({
                "session": export.session,
                "agents": export.agents,
                "figures": export.figures,
            }))?;
            text.push('\n');
            for e in &export.events {
                text.push_str(&serde_json::to_string(e)?);
                text.push('\n');
            }
            out(&text)?;
        }
        ShowFormat::Timeline => {
            let detail = host.session_detail(id.clone()).await?;
            let timeline = host.timeline(id).await?;
            let width = args.width.map(usize::from).unwrap_or_else(crate::timeline::terminal_width);
            out(&crate::timeline::render(&detail, &timeline, width))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn search(args: SearchArgs, env: Environment) -> Result<ExitCode> {
    let host = open(&args.store, env)?;
    let hits = host.search_with(args.text.join(" "), args.limit).await?;
    let mut lines = String::new();
    for h in &hits {
        if args.json {
            lines.push_str(&serde_json::to_string(h)?);
        } else {
            let marked = arbor_protocol::SnippetPart::marked(&h.snippet, "[", "]");
            let snippet: String = marked.split_whitespace().collect::<Vec<_>>().join(" ");
            lines.push_str(&format!(
                "{}  {}  {}  {} › {}\n    {}",
                h.session_id.0,
                utc_minute(h.ts),
                h.event_type,
                h.agent_path.join(" › "),
                h.agent_id.0,
                snippet
            ));
        }
        lines.push('\n');
    }
    out(&lines)?;
    Ok(if hits.is_empty() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

pub async fn resume(args: ResumeArgs, env: Environment) -> Result<ExitCode> {
    let host = setup::host(args.common.data_dir.as_deref(), env)?;
    let id = host.resolve_session(args.session.clone()).await?;
    let detail = host.session_detail(id.clone()).await?;
    let workspace = match &args.common.workspace {
        Some(w) => Some(setup::workspace(Some(w))?),
        None => Some(setup::workspace(Some(std::path::Path::new(&detail.session.workspace))).with_context(|| {
            format!("the session's workspace {} is gone (pass --workspace)", detail.session.workspace)
        })?),
    };
    let prompt = Some(args.prompt.join(" ")).filter(|p| !p.trim().is_empty());
    let banner = format!("resuming {} ({} agents)", id.0, detail.agents.len());
    let spec = LaunchSpec {
        workspace,
        start: Start::Resume { session: id, prompt },
        tuning: tuning(&args.common),
        ..LaunchSpec::default()
    };
    execute(&host, &args.common, spec, Some(&banner)).await
}
