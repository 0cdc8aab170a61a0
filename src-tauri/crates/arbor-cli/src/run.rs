//! `arbor run`: one prompt to the main agent, its events printed live, approvals
//! answered from the terminal, and an exit code that says how it ended.

use crate::approvals::Answerer;
use crate::args::{ApproveMode, Common, RunArgs};
use crate::printer::Printer;
use crate::providers::{self, Chosen};
use crate::setup;
use anyhow::{Context, Result};
use arbor_core::tools::{ToolClass, ToolRegistry};
use arbor_core::{ApprovalPolicy, EventStream, Limits, Session, SessionConfig};
use arbor_protocol::{AgentStatus, Command, EventKind};
use std::path::PathBuf;
use std::process::ExitCode;

pub async fn run(args: RunArgs) -> Result<ExitCode> {
    setup::init(args.common.data_dir.as_deref())?;
    let workspace = setup::workspace(args.common.workspace.as_deref())?;
    let chosen = providers::from_env(args.provider, args.model.clone())?;
    let prompt = args.prompt.join(" ");
    execute(&args.common, workspace, chosen, &prompt, None).await
}

/// Builds the session from the common flags and drives it until the main agent ends.
pub async fn execute(
    common: &Common,
    workspace: PathBuf,
    chosen: Chosen,
    prompt: &str,
    banner: Option<&str>,
) -> Result<ExitCode> {
    let mut config = SessionConfig::new(&workspace, chosen.name, chosen.provider, &chosen.model);
    config.approval = match common.approve {
        ApproveMode::Ask => ApprovalPolicy::default(),
        ApproveMode::All => ApprovalPolicy::allow_all(),
        ApproveMode::ReadOnly | ApproveMode::Deny => ApprovalPolicy::deny_mutating(),
    };
    if common.approve == ApproveMode::ReadOnly {
        config.main_agent.tools.deny = ToolRegistry::builtins()
            .iter()
            .filter(|t| t.class() == ToolClass::Mutating)
            .map(|t| t.name().to_string())
            .collect();
    }
    if let Some(n) = common.max_turns {
        config.main_agent.max_turns = n;
    }
    config.limits = Limits {
        max_parallel: common.max_parallel as usize,
        max_depth: common.max_depth,
        max_subagents: common.max_subagents,
        ..Limits::default()
    };
    let catalog = arbor_app::catalog::load(&workspace);
    config.agent_types = catalog.definitions;
    let (session, events) = Session::start(config).context("cannot start the session")?;
    let mut printer = Printer::new(common.json);
    if let Some(b) = banner {
        printer.note(b);
    }
    for p in &catalog.problems {
        // A bad agent file must not go unnoticed, nor stop the run.
        warn(&format!("agent file: {p}"));
    }
    printer.note(&format!(
        "session {} · {} · {} · workspace {}",
        session.id(),
        chosen.name,
        chosen.model,
        session.workspace().root().display()
    ));
    session.submit(Command::SendMessage { agent_id: None, text: prompt.to_string() })?;
    let answerer = Answerer::new(common.json);
    Ok(drive(&session, events, &mut printer, answerer).await)
}

/// Prints events until the main agent has finished and no agent is left
/// running; answers approvals; Ctrl-C stops the agents (a second Ctrl-C exits at once).
async fn drive(session: &Session, mut events: EventStream, printer: &mut Printer, mut answerer: Answerer) -> ExitCode {
    let main = session.main_agent_id().clone();
    let mut interrupted = false;
    let mut main_end = None;
    let outcome = loop {
        tokio::select! {
            ev = events.recv() => {
                let Some(ev) = ev else { break None };
                printer.print(&ev);
                match &ev.kind {
                    EventKind::ApprovalRequest(r) => answerer.on_request(r, &ev.agent_id, session, printer),
                    EventKind::AgentFinished(f) if ev.agent_id == main => main_end = Some(f.clone()),
                    _ => {}
                }
                // The main agent may be woken again (a delegated subagent's result): wait until all is quiet.
                if main_end.is_some() && session.is_idle() {
                    break main_end;
                }
            }
            line = answerer.next_line() => answerer.on_line(line, session, printer),
            _ = tokio::signal::ctrl_c() => {
                if interrupted {
                    printer.finish();
                    return ExitCode::from(130);
                }
                interrupted = true;
                printer.note("stopping… (Ctrl-C again to quit at once)");
                let _ = session.submit(Command::Cancel { agent_id: main.clone() });
            }
        }
    };
    session.shutdown();
    printer.finish();
    let Some(finished) = outcome else {
        return report("the session ended before the main agent finished");
    };
    let u = printer.usage();
    if u.total_tokens() > 0 {
        let cost = u.cost_usd.map(|c| format!(" · ${c:.4}")).unwrap_or_default();
        printer.note(&format!(
            "tokens: {} in · {} out · {} cache read · {} cache write{cost}",
            u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens
        ));
    }
    match finished.status {
        AgentStatus::Completed => ExitCode::SUCCESS,
        AgentStatus::Cancelled if interrupted => ExitCode::from(130),
        AgentStatus::MaxTurns => report(&format!("{main} stopped at the turn limit ({} turns)", finished.turns)),
        status => {
            report(&format!("{main} {}: {}", status.as_str(), finished.error.as_deref().unwrap_or("no further detail")))
        }
    }
}

#[allow(clippy::print_stderr)]
fn report(msg: &str) -> ExitCode {
    eprintln!("arbor: {msg}");
    ExitCode::FAILURE
}

#[allow(clippy::print_stderr)]
fn warn(msg: &str) {
    eprintln!("arbor: {msg}");
}
