//! A person's prompt to the main agent through its hooks: SessionStart before
//! the session's first prompt, UserPromptSubmit before each (either may add
//! context; UserPromptSubmit may block the prompt); SessionEnd as it closes.

use super::Session;
use crate::agent::hooked::{self, Firing};
use crate::agent::lifecycle::{self, Announce, Delivery};
use arbor_protocol::{HookDecision, HookEvent, MessageFrom};
use std::sync::atomic::Ordering;

impl Session {
    /// Whether a prompt to the main agent goes through hooks before it is delivered.
    pub(super) fn prompt_is_hooked(&self) -> bool {
        let spec = &self.main.spec;
        // Once prompts queue, every later one queues behind them, whatever the hooks.
        self.main.prompts.get().is_some()
            || hooked::wanted(spec, HookEvent::UserPromptSubmit)
            || (hooked::wanted(spec, HookEvent::SessionStart) && !self.main.session_started.load(Ordering::SeqCst))
    }

    /// Runs the prompt's hooks, then delivers it (unless one blocked it: its
    /// `hook_ran` event says why, and the model never sees the prompt). Prompts go
    /// through one queue per session, so they reach the agent in the order sent.
    pub(super) fn prompt_through_hooks(&self, text: String) {
        let queue = self.main.prompts.get_or_init(|| {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
            // The main agent (which holds the sender) only weakly: the worker ends when the
            // session's last handle is dropped, rather than keeping it alive.
            let (shared, main) = (self.shared.clone(), std::sync::Arc::downgrade(&self.main));
            self.shared.ctx.runtime.spawn(async move {
                while let Some(text) = rx.recv().await {
                    let Some(main) = main.upgrade() else { break };
                    Session { shared: shared.clone(), main }.run_prompt_hooks(text).await;
                }
            });
            tx
        });
        if queue.send(text).is_err() {
            tracing::warn!("the session's prompt queue is gone; the prompt was not delivered");
        }
    }

    async fn run_prompt_hooks(&self, text: String) {
        self.new_prompt();
        let (shared, id, spec) = (&self.shared, &self.main.id, &self.main.spec);
        let cancel = shared.ctx.root_cancel.child_token();
        let mut contexts = Vec::new();
        if !self.main.session_started.swap(true, Ordering::SeqCst) && hooked::wanted(spec, HookEvent::SessionStart) {
            let source = if self.main.resumed { "resume" } else { "startup" };
            let firing = Firing::new(HookEvent::SessionStart, Some(source)).field("source", source);
            contexts.extend(hooked::fire(shared, id, spec, &cancel, firing).await.context());
        }
        if hooked::wanted(spec, HookEvent::UserPromptSubmit) {
            let history = shared.registry().get(id).map(|r| r.history.clone()).unwrap_or_default();
            hooked::write_transcript(shared, id, &history);
            let firing = Firing::new(HookEvent::UserPromptSubmit, None).field("prompt", text.clone());
            let c = hooked::fire(shared, id, spec, &cancel, firing).await;
            if c.is(HookDecision::Block) || c.is(HookDecision::Stop) {
                tracing::info!("a UserPromptSubmit hook blocked the prompt");
                self.never_started(&c.reason());
                return;
            }
            contexts.extend(c.context());
        }
        let context = (!contexts.is_empty()).then(|| format!("[Context from hooks]\n{}", contexts.join("\n\n")));
        let from = Announce::From(MessageFrom::Person);
        if let Err(e) = lifecycle::deliver_with(shared, id, text, context, Delivery::StartIfIdle, from) {
            tracing::warn!(error = %e, "the prompt could not be delivered after its hooks");
        }
    }

    /// A main agent whose first prompt a hook blocked never runs: it ends, stopped by the
    /// hook, rather than waiting queued for a run that will not come.
    fn never_started(&self, why: &str) {
        let mut st = self.shared.lock();
        let Some(r) = st.registry.get(&self.main.id) else { return };
        if r.inbox.is_some() || r.state.status != arbor_protocol::AgentStatus::Queued {
            return;
        }
        let finished = arbor_protocol::AgentFinished {
            status: arbor_protocol::AgentStatus::Cancelled,
            result: String::new(),
            error: Some(format!("a UserPromptSubmit hook blocked the prompt: {why}")),
            turns: 0,
            duration_ms: 0,
            files_modified: Vec::new(),
            stopped_by: Some(arbor_protocol::StoppedBy::Hook),
        };
        if let Some(r) = st.registry.get_mut(&self.main.id) {
            r.outcome.send_replace(Some(finished.clone()));
        }
        st.emit(&self.main.id, arbor_protocol::EventKind::AgentFinished(finished));
    }

    /// Runs the SessionEnd hooks (`reason`: Claude Code's, as `clear`, `logout`,
    /// `prompt_input_exit`, `other`), each within its timeout. A front end calls it
    /// before [`Session::shutdown`].
    pub async fn end_hooks(&self, reason: &str) {
        let (shared, id, spec) = (&self.shared, &self.main.id, &self.main.spec);
        if !hooked::wanted(spec, HookEvent::SessionEnd) {
            return;
        }
        let history = shared.registry().get(id).map(|r| r.history.clone()).unwrap_or_default();
        hooked::write_transcript(shared, id, &history);
        let firing = Firing::new(HookEvent::SessionEnd, Some(reason)).field("reason", reason.to_string());
        hooked::fire(shared, id, spec, &tokio_util::sync::CancellationToken::new(), firing).await;
    }
}
