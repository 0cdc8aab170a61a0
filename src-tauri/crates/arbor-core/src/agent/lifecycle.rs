//! An agent's runs: starting one (a new agent, the next prompt, a resume, a
//! child's result waking an idle parent), and ending one, unless messages or
//! children's results are still due. Each decision is taken under the
//! session's one lock, so two texts cannot start two runs and no result slips
//! between the check and the end.

use super::{AgentRun, append_user, take_inbox};
use crate::error::SessionError;
use crate::registry::{AgentSpec, Inbound};
use crate::shared::Shared;
use crate::subagents;
use arbor_protocol::{
    AgentFinished, AgentId, AgentStatus, EventKind, Message, MessageFrom, StatusChanged, TaskNotification, UserBlock,
    UserMessage,
};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, info_span};

/// How long a parent that ends waits for the children it stops to wind down.
const CHILDREN_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether text for an agent that is not running starts a new run of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    StartIfIdle,
    OnlyWhileRunning,
}

/// Whether delivered text shows as a `user_message` (written by a person, a parent
/// or Arbor) or not (a child's result, shown already as its `task_notification`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Announce {
    From(MessageFrom),
    Silently,
}

impl Announce {
    fn from(self) -> Option<MessageFrom> {
        match self {
            Self::From(from) => Some(from),
            Self::Silently => None,
        }
    }
}

/// What an agent does when its model has stopped calling tools.
pub(crate) enum EndStep {
    /// Messages arrived meanwhile: answer them with another turn.
    Continue(Vec<UserBlock>),
    /// Children it started still run; their results are due as notifications.
    Wait,
    Finished,
}

fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(s) => *s,
        Err(p) => p.downcast_ref::<&str>().map_or_else(|| "no message".to_string(), |s| s.to_string()),
    }
}

/// Text for an agent: steering while it runs; otherwise, as `start` says,
/// a new run that continues its history with the text (the main agent's next
/// prompt, or a notification to an agent that had finished). Written text is
/// announced as a `user_message` when the agent takes it (at once for a new run,
/// at its next turn while it runs); a child's result already was, as its
/// `task_notification`.
pub(crate) fn deliver(
    shared: &Arc<Shared>,
    id: &AgentId,
    text: String,
    start: Delivery,
    announce: Announce,
) -> Result<(), SessionError> {
    deliver_with(shared, id, text, None, start, announce)
}

/// [`deliver`], with `context` (what hooks added) after the text, for the model only.
pub(crate) fn deliver_with(
    shared: &Arc<Shared>,
    id: &AgentId,
    text: String,
    context: Option<String>,
    start: Delivery,
    announce: Announce,
) -> Result<(), SessionError> {
    if shared.ctx.root_cancel.is_cancelled() {
        return Err(SessionError::Closed);
    }
    let mut st = shared.lock();
    let r = st.registry.get(id).ok_or_else(|| SessionError::UnknownAgent(id.clone()))?;
    let text = match &r.inbox {
        Some(inbox) => match inbox.send(Inbound { text, announce: announce.from(), context: context.clone() }) {
            Ok(()) => return Ok(()),
            Err(e) => e.0.text,
        },
        None => text,
    };
    if start == Delivery::OnlyWhileRunning {
        return Err(SessionError::AgentNotRunning(id.clone()));
    }
    let parent_cancel = match r.state.parent_id.as_ref().and_then(|p| st.registry.get(p)) {
        Some(p) => p.cancel_for_child(&shared.ctx.root_cancel),
        None => shared.ctx.root_cancel.clone(),
    };
    // Under the lock, so the message comes before anything of the run it starts.
    if let Some(from) = announce.from() {
        st.emit(id, EventKind::UserMessage(UserMessage::new(text.clone(), from)));
    }
    // A new run: queued until it starts (for a subagent, until it has a slot), not still finished.
    if st.registry.get(id).is_some_and(|r| r.state.status != AgentStatus::Queued) {
        st.emit(id, EventKind::AgentStatus(StatusChanged { status: AgentStatus::Queued }));
    }
    let Some(r) = st.registry.get_mut(id) else { return Err(SessionError::UnknownAgent(id.clone())) };
    let (inbox_tx, inbox) = mpsc::unbounded_channel();
    let cancel = parent_cancel.child_token();
    r.inbox = Some(inbox_tx);
    r.cancel = cancel.clone();
    r.budget_stop = None;
    r.stopped_by = None;
    r.outcome.send_replace(None);
    // A subagent's later runs answer no Task call: their results go to the parent as notifications.
    if r.state.parent_id.is_some() {
        r.notifies_parent = true;
        r.collected = false;
    }
    let mut history = std::mem::take(&mut r.history);
    let spec = r.spec.clone();
    drop(st);
    let mut blocks = vec![UserBlock::Text { text }];
    blocks.extend(context.map(|text| UserBlock::Text { text }));
    append_user(&mut history, blocks);
    launch(shared, id.clone(), spec, history, inbox, cancel);
    Ok(())
}

/// Starts a run of an agent whose record is in the registry, on the session's
/// runtime (whichever thread asks).
pub(crate) fn launch(
    shared: &Arc<Shared>,
    id: AgentId,
    spec: Arc<AgentSpec>,
    history: Vec<Message>,
    inbox: mpsc::UnboundedReceiver<Inbound>,
    cancel: CancellationToken,
) {
    // The one door for every run: an external ACP agent is a second kind of child behind it.
    if let Some(command) = spec.external.clone() {
        crate::external::launch(shared, id, spec, command, history, inbox, cancel);
        return;
    }
    shared.save_history(&id, &history);
    let unanswered = shared.registry().get_mut(&id).map(|r| std::mem::take(&mut r.unanswered)).unwrap_or_default();
    let id_for_panic = id.clone();
    let run = AgentRun {
        tools: shared.tools_for(&id, &spec),
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

/// Stops the agent's children that still run and waits (briefly) until they
/// have ended, so a stopped or failed parent is the last of its subtree to finish.
pub(crate) async fn stop_children(shared: &Shared, id: &AgentId) {
    let running: Vec<(AgentId, watch::Receiver<Option<AgentFinished>>)> = shared
        .registry()
        .children(id)
        .filter(|r| !r.state.status.is_terminal())
        .map(|r| (r.state.id.clone(), r.outcome.subscribe()))
        .collect();
    if running.is_empty() {
        return;
    }
    for (child, _) in &running {
        shared.cancel_subtree(child, arbor_protocol::StoppedBy::ParentEnded);
    }
    let ends = running.into_iter().map(|(_, mut rx)| async move {
        let _ = rx.wait_for(Option::is_some).await;
    });
    let _ = tokio::time::timeout(CHILDREN_GRACE, futures::future::join_all(ends)).await;
}

/// Ends a run, unless there is more to do: messages that arrived while the
/// model answered, or children whose results are still due. Decided under the
/// lock a finishing child delivers its result under, so nothing slips between.
pub(crate) fn end_run(
    shared: &Arc<Shared>,
    id: &AgentId,
    mut finished: AgentFinished,
    inbox: &mut mpsc::UnboundedReceiver<Inbound>,
    history: Option<&mut Vec<Message>>,
) -> EndStep {
    let mut abandon = Vec::new();
    let mut wake = None;
    let status = finished.status;
    {
        let mut st = shared.lock();
        if status == AgentStatus::Completed {
            let late = take_inbox(inbox, |m| {
                st.emit(id, EventKind::UserMessage(m));
            });
            if !late.is_empty() {
                return EndStep::Continue(late);
            }
            if !st.registry.outstanding(id).is_empty() {
                return EndStep::Wait;
            }
        } else {
            // Nobody will read their results now; stop them rather than let them run on unseen.
            abandon = st.registry.outstanding(id);
        }
        // Read into its history (and announced) before the inbox closes: nothing sent is lost.
        let late = match history {
            Some(_) => take_inbox(inbox, |m| {
                st.emit(id, EventKind::UserMessage(m));
            }),
            None => Vec::new(),
        };
        let Some(r) = st.registry.get_mut(id) else { return EndStep::Finished };
        r.inbox = None;
        r.run_watch.cancel();
        if let Some(history) = history {
            if !late.is_empty() {
                append_user(history, late);
            }
            if let Some(journal) = &shared.ctx.journal {
                let start = r.journal_from(history.len());
                journal.history(&shared.ctx.id, id, start, &history[start..]);
            }
            r.history = std::mem::take(history);
        }
        finished.files_modified = r.files.clone();
        r.outcome.send_replace(Some(finished.clone()));
        let status_changed = r.state.status != status;
        // An interrupted child reports when the session is continued and it ends there.
        let notifies = r.notifies_parent && !r.collected && status != AgentStatus::Interrupted;
        let notice = notifies.then(|| r.state.parent_id.clone()).flatten().map(|parent| {
            let text = subagents::notification_text(
                id,
                &r.state.description,
                &finished,
                shared.ctx.limits.result_chars,
                r.note.as_deref(),
            );
            (parent, subagents::summary(&r.state.description, &finished), text)
        });
        if status_changed {
            st.emit(id, EventKind::AgentStatus(StatusChanged { status }));
        }
        st.emit(id, EventKind::AgentFinished(finished));
        if let Some((parent, summary, text)) = notice {
            st.emit(&parent, EventKind::TaskNotification(TaskNotification { task_id: id.clone(), status, summary }));
            // Into the parent's inbox now, under the lock, if it is running; else it wakes
            // to read it, unless the child was stopped (by the person, or because the parent ended).
            let pending = match st.registry.get(&parent).and_then(|p| p.inbox.as_ref()) {
                Some(inbox) => inbox.send(Inbound { text, announce: None, context: None }).err().map(|e| e.0.text),
                None => Some(text),
            };
            // A child that was stopped (by the person, its parent's end, or a budget) wakes nobody.
            if !matches!(status, AgentStatus::Cancelled | AgentStatus::BudgetExhausted) {
                wake = pending.map(|text| (parent, text));
            }
        }
    }
    if let Some((parent, text)) = wake {
        let _ = deliver(shared, &parent, text, Delivery::StartIfIdle, Announce::Silently);
    }
    for child in abandon {
        shared.cancel_subtree(&child, arbor_protocol::StoppedBy::ParentEnded);
    }
    EndStep::Finished
}
