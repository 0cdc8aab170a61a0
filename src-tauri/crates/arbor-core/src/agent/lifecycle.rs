//! An agent's runs: starting one (a new agent, the next prompt, a resume, a
//! child's result waking an idle parent), and ending one, unless messages or
//! children's results are still due. Each decision is taken under the
//! session's one lock, so two texts cannot start two runs and no result slips
//! between the check and the end.

use super::{append_user, take_inbox};
use crate::error::SessionError;
use crate::registry::{Inbound, RunStart};
use crate::results;
use crate::shared::Shared;
use arbor_protocol::{
    AgentFinished, AgentId, AgentStatus, EventKind, Message, MessageFrom, StatusChanged, TaskNotification, UserBlock,
    UserMessage,
};
use std::sync::Arc;
use tokio::sync::{mpsc, watch};

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
    // An external agent's own subagent: refused before anything of its record changes.
    if r.spec.hosted {
        return Err(SessionError::Hosted(id.clone()));
    }
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
    (shared.ctx.door)(shared, RunStart { id: id.clone(), spec, history, inbox, cancel });
    Ok(())
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
            let text = results::notification_text(
                id,
                &r.state.description,
                &finished,
                shared.ctx.limits.result_chars,
                r.note.as_deref(),
            );
            (parent, results::summary(&r.state.description, &finished), text)
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
