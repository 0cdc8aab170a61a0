//! `arbor run`: one prompt to the main agent, its events printed live, approvals
//! answered from the terminal, and an exit code that says how it ended.

use crate::approvals::Answerer;
use crate::args::{ApproveMode, Common, RunArgs};
use crate::printer::Printer;
use crate::providers::{self, Chosen};
use crate::setup;
use anyhow::{Context, Result};
use arbor_app::record::{Problem, Recorder};
use arbor_core::tools::{ToolClass, ToolRegistry};
use arbor_core::{ApprovalPolicy, Clock, EventStream, Limits, ResumeState, Session, SessionConfig, SystemClock};
use arbor_protocol::{AgentStatus, Command, EventKind};
use arbor_store::{NewSession, Store};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

pub async fn run(args: RunArgs) -> Result<ExitCode> {
    let data_dir = setup::init(args.common.data_dir.as_deref())?;
    let store = setup::store(&data_dir)?;
    let workspace = setup::workspace(args.common.workspace.as_deref())?;
    let chosen = providers::from_env(args.provider, args.model.clone())?;
    let prompt = args.prompt.join(" ");
    execute(&args.common, workspace, chosen, Start::New(&prompt), store, None).await
}

/// What the session starts from.
pub enum Start<'a> {
    /// A new session whose main agent gets this prompt.
    New(&'a str),
    /// A stored session; its main agent gets the prompt, or carries on without one.
    Resume(ResumeState, Option<&'a str>),
}

/// Builds the session from the common flags, records it in the store (each
/// event is stored before it is printed) and drives it until the main agent ends.
pub async fn execute(
    common: &Common,
    workspace: PathBuf,
    chosen: Chosen,
    start: Start<'_>,
    store: Arc<Store>,
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
    let (mcp, mcp_problems) = crate::mcp::sources(&workspace, &common.mcp, &catalog.definitions).build();
    config.mcp = Arc::new(mcp);
    config.agent_types = catalog.definitions;
    let recorder = Recorder::new();
    config.journal = Some(recorder.journal());
    let (session, events, prompt) = match start {
        Start::New(prompt) => {
            let (s, e) = Session::start(config).context("cannot start the session")?;
            (s, e, Some(prompt))
        }
        Start::Resume(state, prompt) => {
            let (s, e) = Session::resume(config, state).context("cannot resume the session")?;
            (s, e, prompt)
        }
    };
    let new = NewSession {
        id: session.id().clone(),
        workspace: session.workspace().root().display().to_string(),
        first_prompt: prompt.unwrap_or_default().to_string(),
        provider: chosen.name.to_string(),
        model: chosen.model.clone(),
        started_at: SystemClock.now_ms(),
    };
    let problem = Problem::default();
    let events = match recorder.record(store, new, events, problem.clone()) {
        Ok((events, _writing)) => events,
        Err(e) => {
            session.shutdown();
            return Err(e).context("cannot record the session");
        }
    };
    let mut printer = Printer::new(common.json);
    if let Some(b) = banner {
        printer.note(b);
    }
    for p in &catalog.problems {
        // A bad agent file must not go unnoticed, nor stop the run.
        warn(&format!("agent file: {p}"));
    }
    for p in &mcp_problems {
        warn(&format!("mcp config: {p}"));
    }
    printer.note(&format!(
        "session {} · {} · {} · workspace {}",
        session.id(),
        chosen.name,
        chosen.model,
        session.workspace().root().display()
    ));
    match prompt {
        Some(p) => session.submit(Command::SendMessage { agent_id: None, text: p.to_string() })?,
        None => session.submit(Command::Resume { agent_id: session.main_agent_id().clone(), text: None })?,
    }
    let answerer = Answerer::new(common.json);
    let code = drive(&session, events, &mut printer, answerer).await;
    if let Some(p) = problem.get() {
        warn(&p);
    }
    Ok(code)
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
