//! `arbor run`: one prompt to the main agent through the one API, its events
//! printed live, approvals answered from the terminal, and an exit code that
//! says how it ended. The process exits only once every event is stored.

use crate::approvals::{Answerer, Target};
use crate::args::{ApproveMode, Common, RunArgs, SandboxArg, SandboxArgs};
use crate::printer::Printer;
use crate::setup::{self, warn};
use anyhow::Result;
use arbor_app::{ApprovalMode, Environment, Host, LaunchSpec, Launched, SessionEvents, SessionInfo, Start, Tuning};
use arbor_core::Limits;
use arbor_protocol::{
    AgentFinished, AgentStatus, Command, CommandSandbox, EventKind, SandboxMode, SandboxRequest, Usage,
};
use std::process::ExitCode;
use std::time::Duration;

/// Ctrl-C: the shell's convention for a run ended by SIGINT.
pub const INTERRUPTED: u8 = 130;

/// The session runs in another Arbor process: try again once it has stopped (sysexits' EX_TEMPFAIL).
pub const OWNED_ELSEWHERE: u8 = 75;

/// How long the process waits for the last events to be stored before it exits.
const SETTLE: Duration = Duration::from_secs(10);

pub async fn run(args: RunArgs, env: Environment) -> Result<ExitCode> {
    let host = setup::host(args.common.data_dir.as_deref(), env)?;
    let workspace = setup::workspace(args.common.workspace.as_deref())?;
    let spec = LaunchSpec {
        workspace: Some(workspace),
        start: Start::New { prompt: args.prompt.join(" ") },
        provider: args.provider.map(Into::into),
        model: args.model.clone(),
        tuning: tuning(&args.common),
    };
    execute(&host, &args.common, spec, None).await
}

/// What the common flags change about a session.
pub fn tuning(common: &Common) -> Tuning {
    Tuning {
        approval: common.approve.map(|a| match a {
            ApproveMode::Ask => ApprovalMode::Ask,
            ApproveMode::All => ApprovalMode::All,
            ApproveMode::ReadOnly => ApprovalMode::ReadOnly,
            ApproveMode::Deny => ApprovalMode::Deny,
        }),
        main_type: common.agent.clone(),
        max_turns: common.max_turns,
        limits: Some(Limits {
            max_parallel: common.max_parallel as usize,
            max_depth: common.max_depth,
            max_subagents: common.max_subagents,
            ..Limits::default()
        }),
        mcp_files: common.mcp.files.clone(),
        trust_mcp: common.mcp.trust_mcp,
        approve_spawn: common.approve_spawn,
        idle_timeout: common.idle_timeout.map(Duration::from_secs),
        retry_budget: common.retry_budget.map(Duration::from_secs),
        sandbox: sandbox_request(&common.sandbox),
        run_sandboxed: common.sandbox.sandboxed_without_asking.then_some(true),
        budget: arbor_protocol::Budget {
            max_tokens: common.budget.max_tokens,
            max_cost_usd: common.budget.max_budget_usd,
            max_duration_seconds: common.budget.max_duration,
            max_subagents: None,
        },
        max_spawns_per_minute: common.budget.max_spawns_per_minute,
        context_window: common.context_window,
        compact_at_percent: common.compact_at,
        summary_model: common.summary_model.clone(),
        session_id: None,
        client_mcp: None,
        driven_by: None,
    }
}

/// What the sandbox flags ask, over the settings; flags not given change nothing.
fn sandbox_request(args: &SandboxArgs) -> SandboxRequest {
    SandboxRequest {
        mode: args.mode.map(|m| match m {
            SandboxArg::Off => SandboxMode::Off,
            SandboxArg::Workspace => SandboxMode::Workspace,
            SandboxArg::Strict => SandboxMode::Strict,
        }),
        network: args.allow_network.then_some(true),
        write: (!args.write.is_empty()).then(|| args.write.iter().map(|p| p.display().to_string()).collect()),
    }
}

/// Launches `spec` through the API, prints its events until the main agent has
/// ended and nothing runs, stops it and waits until its last event is stored.
pub async fn execute(host: &Host, common: &Common, spec: LaunchSpec, banner: Option<&str>) -> Result<ExitCode> {
    let Launched { info, mut events } = match host.launch(spec).await {
        Ok(l) => l,
        Err(e) if e.kind == arbor_app::AppErrorKind::Owned => {
            warn(&e.message);
            return Ok(ExitCode::from(OWNED_ELSEWHERE));
        }
        Err(e) => return Err(e.into()),
    };
    let mut printer = Printer::new(common.json);
    if let Some(b) = banner {
        printer.note(b);
    }
    let untrusted = info.untrusted_mcp.as_ref().map(arbor_app::trust::untrusted_warning);
    for w in &info.warnings {
        // A bad agent file or MCP config must not go unnoticed, nor stop the run.
        if untrusted.as_ref() == Some(w) {
            warn(&format!(
                "{w}; see what it would run with `arbor mcp`, trust it with `arbor mcp trust {}`, or pass --trust-mcp for this run",
                info.workspace
            ));
        } else {
            warn(w);
        }
    }
    let as_type = info.main_type.as_deref().map(|t| format!(" · main agent: {t}")).unwrap_or_default();
    printer.note(&format!(
        "session {} · {} · {}{as_type} · workspace {}",
        info.session_id, info.provider, info.model, info.workspace
    ));
    if !info.settings_rules.is_empty() {
        let count = |d: arbor_protocol::ApprovalChoice| info.settings_rules.iter().filter(|r| r.decision == d).count();
        let mut files: Vec<&str> = info.settings_rules.iter().map(|r| r.source.as_str()).collect();
        files.dedup();
        printer.note(&format!(
            "permission rules from settings: {} allow, {} ask, {} deny ({})",
            count(arbor_protocol::ApprovalChoice::Allow),
            count(arbor_protocol::ApprovalChoice::Ask),
            count(arbor_protocol::ApprovalChoice::Deny),
            files.join(", ")
        ));
    }
    // Never silent about protection the machine does not give.
    match &info.sandbox {
        CommandSandbox::Sandboxed { .. } => printer.note(&format!("commands: {}", info.sandbox.summary())),
        unsandboxed => warn(&format!("commands: {}", unsandboxed.summary())),
    }
    let answerer = Answerer::new(common.json);
    let ended = drive(host, &info, &mut events, &mut printer, answerer).await;
    host.end_hooks(&info.session_id, "other").await;
    host.close_session(&info.session_id);
    if !events.settle(SETTLE).await {
        warn("the session's last events may not all be stored");
    }
    if let Some(p) = host.state().transcripts.problem {
        warn(&p);
    }
    Ok(report(&info, &mut printer, ended, &events.states().total_usage()))
}

/// How the main agent's run ended, as the terminal sees it.
enum Ended {
    Finished(AgentFinished),
    /// Ctrl-C stopped it (`Some`: the main agent's end, when it came).
    Interrupted,
    /// SIGTERM or SIGHUP closed the session: its agents are interrupted, to be resumed.
    Closed(Signal),
    /// The events ended first: the session was torn down.
    Gone,
    /// A UserPromptSubmit hook blocked the prompt: the model never saw it (the reason).
    PromptBlocked(String),
}

/// Prints events until the main agent has finished and no agent is left
/// running (as the events say: no side door to the registry); answers
/// approvals; Ctrl-C stops the agents, a second Ctrl-C stops waiting for them.
async fn drive(
    host: &Host,
    info: &SessionInfo,
    events: &mut SessionEvents,
    printer: &mut Printer,
    mut answerer: Answerer,
) -> Ended {
    let target = Target { host, session: info.session_id.clone(), main: info.main_agent_id.clone() };
    let main = &info.main_agent_id;
    let mut interrupted = false;
    let mut main_end = None;
    let mut closing = Closing::listen();
    loop {
        tokio::select! {
            ev = events.recv() => {
                let Some(ev) = ev else { return Ended::Gone };
                printer.print(&ev);
                match &ev.kind {
                    EventKind::ApprovalRequest(r) => answerer.on_request(r, &ev.agent_id, &target, printer),
                    EventKind::ApprovalResolved(r) => answerer.on_resolved(&r.request_id, printer),
                    EventKind::AgentFinished(f) if ev.agent_id == *main => main_end = Some(f.clone()),
                    EventKind::HookRan(h)
                        if h.hook_event == arbor_protocol::HookEvent::UserPromptSubmit
                            && matches!(h.decision, arbor_protocol::HookDecision::Block | arbor_protocol::HookDecision::Stop) =>
                    {
                        return Ended::PromptBlocked(h.message.clone().unwrap_or_default());
                    }
                    _ => {}
                }
                // The main agent may be woken again (a delegated subagent's result): wait until all is quiet.
                if let Some(end) = main_end.take_if(|_| events.states().is_idle()) {
                    return if interrupted { Ended::Interrupted } else { Ended::Finished(end) };
                }
            }
            line = answerer.next_line() => answerer.on_line(line, &target, printer),
            signal = closing.next() => {
                // Closed, not stopped: nobody stopped these agents, and a call waiting for an
                // answer is asked again when the session is resumed.
                printer.note(&format!("{} received: closing the session", signal.name()));
                host.close_session(&info.session_id);
                return Ended::Closed(signal);
            }
            _ = tokio::signal::ctrl_c() => {
                if interrupted {
                    return Ended::Interrupted;
                }
                interrupted = true;
                printer.note("stopping… (Ctrl-C again to quit at once)");
                let _ = host.send(&info.session_id, Command::Cancel { agent_id: main.clone() });
            }
        }
    }
}

/// The closing lines and the exit code: 0 completed, 1 any other end, 130 Ctrl-C.
fn report(info: &SessionInfo, printer: &mut Printer, ended: Ended, u: &Usage) -> ExitCode {
    printer.finish();
    if u.total_tokens() > 0 {
        let cost = u.cost_usd.map(|c| format!(" · ${c:.4}")).unwrap_or_default();
        printer.note(&format!(
            "tokens: {} in · {} out · {} cache read · {} cache write{cost}",
            u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens
        ));
    }
    let main = &info.main_agent_id;
    let finished = match ended {
        Ended::Finished(f) => f,
        Ended::Interrupted => {
            warn(&format!("stopped by Ctrl-C; session {} is stored and can be resumed", info.session_id));
            return ExitCode::from(INTERRUPTED);
        }
        Ended::Closed(signal) => {
            warn(&format!(
                "{}: the session's agents are interrupted; `arbor resume {}` continues them (a call waiting for \
                 an answer is asked again)",
                signal.name(),
                info.session_id
            ));
            return ExitCode::from(128 + signal.number());
        }
        Ended::Gone => return failure("the session ended before the main agent finished"),
        Ended::PromptBlocked(why) => {
            return failure(&format!("a UserPromptSubmit hook blocked the prompt; the model never saw it: {why}"));
        }
    };
    match finished.status {
        AgentStatus::Completed => ExitCode::SUCCESS,
        AgentStatus::MaxTurns => failure(&format!("{main} stopped at the turn limit ({} turns)", finished.turns)),
        status => failure(&format!(
            "{main} {}: {}",
            status.as_str(),
            finished.error.as_deref().unwrap_or("no further detail")
        )),
    }
}

fn failure(msg: &str) -> ExitCode {
    warn(msg);
    ExitCode::FAILURE
}

/// A signal that closes the session rather than stopping its agents.
#[derive(Debug, Clone, Copy)]
enum Signal {
    Term,
    Hup,
}

impl Signal {
    fn name(self) -> &'static str {
        match self {
            Self::Term => "SIGTERM",
            Self::Hup => "SIGHUP",
        }
    }

    fn number(self) -> u8 {
        match self {
            Self::Term => 15,
            Self::Hup => 1,
        }
    }
}

/// SIGTERM and SIGHUP, once listened for (elsewhere than Unix, or when a
/// listener cannot be set up, never: the default action stays, and the next
/// start recovers the session as a crash).
struct Closing {
    #[cfg(unix)]
    listeners: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Closing {
    fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let listeners = match (signal(SignalKind::terminate()), signal(SignalKind::hangup())) {
                (Ok(t), Ok(h)) => Some((t, h)),
                (Err(e), _) | (_, Err(e)) => {
                    tracing::warn!(error = %e, "cannot listen for SIGTERM and SIGHUP");
                    None
                }
            };
            Self { listeners }
        }
        #[cfg(not(unix))]
        Self {}
    }

    async fn next(&mut self) -> Signal {
        #[cfg(unix)]
        if let Some((term, hup)) = &mut self.listeners {
            return tokio::select! {
                _ = term.recv() => Signal::Term,
                _ = hup.recv() => Signal::Hup,
            };
        }
        std::future::pending().await
    }
}
