//! Starting a run of Arbor's own agent loop, and ending an agent whose task
//! panicked: whoever waits for it (a Task call, a parent, the CLI) must not wait forever.

use super::AgentRun;
use super::lifecycle::end_run;
use crate::registry::RunStart;
use crate::shared::Shared;
use crate::tools::ToolRegistry;
use arbor_protocol::{AgentFinished, AgentId, AgentStatus};
use std::sync::Arc;
use tokio::sync::mpsc;
use tracing::{Instrument, info_span};

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p.downcast_ref::<&str>().map_or_else(|| "no message".to_string(), |s| s.to_string()),
    }
}

/// Starts a run of Arbor's own loop for an agent whose record is in the registry,
/// with `tools`, on the session's runtime (whichever thread asks). Runs start
/// through the door ([`crate::children::run`]), which chose this kind of child.
pub(crate) fn launch(shared: &Arc<Shared>, run: RunStart, tools: ToolRegistry) {
    let RunStart { id, spec, history, inbox, cancel } = run;
    shared.save_history(&id, &history);
    let unanswered = shared.registry().get_mut(&id).map(|r| std::mem::take(&mut r.unanswered)).unwrap_or_default();
    let id_for_panic = id.clone();
    let run = AgentRun {
        tools,
        depth_limited: spec.depth >= shared.ctx.limits.max_depth && spec.fork.is_none(),
        slots: spec.scheduled.then(|| shared.ctx.slots.clone()),
        slot: None,
        id,
        spec,
        history,
        inbox,
        cancel: cancel.clone(),
        mcp_failed: Vec::new(),
        last_cost: None,
        unanswered,
    };
    let span = info_span!("session", session_id = %shared.ctx.id);
    let runtime = &shared.ctx.runtime;
    let handle = runtime.spawn(run.run(shared.clone()).instrument(span));
    // Stops with the run however it ends (a completed run's token is never cancelled).
    let watch = cancel.child_token();
    if let Some(r) = shared.registry().get_mut(&id_for_panic) {
        r.run_watch = watch.clone();
    }
    crate::budget::watch_deadline(shared, id_for_panic.clone(), watch);
    // A bug that panics an agent's task must still end the agent, or whoever waits
    // for it (a Task call, a parent, the CLI) would wait forever.
    let shared = shared.clone();
    runtime.spawn(async move {
        if let Err(e) = handle.await
            && e.is_panic()
        {
            fail_after_panic(&shared, &id_for_panic, panic_message(e.into_panic()));
        }
    });
}

/// Ends an agent whose task panicked: failed, with what the panic said.
fn fail_after_panic(shared: &Arc<Shared>, id: &AgentId, message: String) {
    tracing::error!(agent_id = %id, panic = %message, "an agent's task panicked");
    let running = shared.registry().get(id).is_some_and(|r| r.outcome.borrow().is_none());
    if !running {
        return;
    }
    let finished = AgentFinished {
        status: AgentStatus::Failed,
        result: String::new(),
        error: Some(format!("internal error: the agent's task panicked: {message}")),
        turns: 0,
        duration_ms: 0,
        files_modified: Vec::new(),
        stopped_by: None,
    };
    let (_tx, mut inbox) = mpsc::unbounded_channel();
    // Its history went down with its task: what the record and the journal hold stays.
    end_run(shared, id, finished, &mut inbox, None);
}
