//! The narrow handle an agent manages its children through: plan and spawn one,
//! find one it may reach, wait for its end, stop its subtree, list the session's
//! agents. The subagent tools (a model's Task, TaskOutput, TaskStop, ListAgents)
//! and a person's Delegate… (`Session::delegate`) hold only this: behind it, Arbor's
//! own loop and an external ACP agent are two kinds of child (`super::run`), and
//! only this reads the registry for them.

use super::{Plan, SpawnRequest, Spawned};
use crate::error::SpawnError;
use crate::shared::Shared;
use arbor_protocol::{AgentFinished, AgentId, SpawnEdit, SpawnPlan, StoppedBy};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// An agent's children, as that agent (the parent) reaches them.
#[derive(Clone)]
pub(crate) struct Children {
    shared: Arc<Shared>,
    parent: AgentId,
}

/// One of the parent's descendants, found by its id.
pub(crate) struct Child {
    pub id: AgentId,
    pub description: String,
    outcome: watch::Receiver<Option<AgentFinished>>,
}

/// How a wait for a child ended.
pub(crate) enum Waited {
    Finished(AgentFinished),
    /// Still at work (its status); its end will come as a task notification.
    Running(&'static str),
    /// The waiting agent was stopped meanwhile.
    Cancelled,
    /// Its record went away (its session closed).
    Gone,
}

/// What stopping a child did.
pub(crate) enum Stopped {
    /// It had ended already (its status): nothing was stopped.
    AlreadyEnded(&'static str),
    /// It was stopped, with this many agents it had started.
    Stopped { others: usize },
}

/// One agent of the session, as ListAgents shows it.
pub(crate) struct Listed {
    pub id: AgentId,
    pub you: bool,
    pub status: &'static str,
    pub subagent_type: Option<String>,
    pub description: String,
    pub parent: Option<AgentId>,
    pub depth: u32,
    pub turns: u32,
    pub background: bool,
}

/// TaskStop waits this long for the stopped agent to wind down before it answers.
const STOP_WAIT: Duration = Duration::from_secs(5);

impl Children {
    pub(crate) fn of(shared: &Arc<Shared>, parent: &AgentId) -> Self {
        Self { shared: shared.clone(), parent: parent.clone() }
    }

    pub(crate) fn parent(&self) -> &AgentId {
        &self.parent
    }

    /// The child `req` asks for: its type, spec, budget and place, or why it cannot start.
    pub(crate) fn plan(&self, req: &SpawnRequest) -> Result<Plan, SpawnError> {
        super::plan(&self.shared, req)
    }

    /// What a spawn card shows of a planned child.
    pub(crate) fn summary(&self, plan: &Plan, req: &SpawnRequest) -> SpawnPlan {
        plan.summary(&self.shared, req)
    }

    /// A person's edit of a planned child (its prompt, type, tools, budget).
    pub(crate) fn edit(&self, plan: &mut Plan, req: &mut SpawnRequest, edit: &SpawnEdit) {
        plan.apply(&self.shared, req, edit);
    }

    /// Registers, announces and starts the planned child under this parent.
    pub(crate) fn spawn(&self, mut req: SpawnRequest, plan: Plan) -> Result<Spawned, SpawnError> {
        req.parent = self.parent.clone();
        super::start(&self.shared, req, plan)
    }

    /// The parent's descendant `raw_id`, or what the model is told. Only descendants:
    /// waiting on an ancestor would wait on itself, and stopping one is not its to do.
    pub(crate) fn child(&self, raw_id: &str) -> Result<Child, String> {
        let id = AgentId(raw_id.trim().to_string());
        if id == self.parent {
            return Err(format!("{id} is you; give the id of a subagent (see ListAgents)."));
        }
        let reg = self.shared.registry();
        let Some(r) = reg.get(&id) else {
            return Err(format!("No agent {id} in this session. ListAgents lists the session's agents and their ids."));
        };
        if !reg.ancestors(&id).contains(&self.parent) {
            return Err(format!(
                "{id} is not one of your subagents; you can only reach agents you started, and theirs."
            ));
        }
        let description = r.state.description.clone();
        let outcome = r.outcome.subscribe();
        drop(reg);
        Ok(Child { id, description, outcome })
    }

    /// The child's end, if it has ended; taking it means its notification is not sent.
    pub(crate) fn collect(&self, child: &Child) -> Option<AgentFinished> {
        let done = child.outcome.borrow().clone();
        if done.is_some() {
            self.set_collected(&child.id, true);
        }
        done
    }

    /// The child's status now (`gone` once its record is).
    pub(crate) fn status(&self, id: &AgentId) -> &'static str {
        self.shared.registry().get(id).map_or("gone", |r| r.state.status.as_str())
    }

    /// Waits for the spawned child's end (a foreground Task's wait).
    pub(crate) async fn finished(&self, spawned: &mut Spawned) -> Option<AgentFinished> {
        spawned.outcome.wait_for(Option::is_some).await.ok().and_then(|f| f.clone())
    }

    /// Waits up to `wait` for the child's end, or until `cancel`. Meanwhile its end does not
    /// also come as a notification; when the wait ends without it, the notification will.
    pub(crate) async fn wait(&self, child: &mut Child, wait: Duration, cancel: &CancellationToken) -> Waited {
        self.set_collected(&child.id, true);
        tokio::select! {
            f = child.outcome.wait_for(Option::is_some) => if let Ok(f) = f && let Some(f) = f.clone() {
                return Waited::Finished(f);
            },
            _ = tokio::time::sleep(wait) => {}
            _ = cancel.cancelled() => {}
        }
        // Decided under the lock a finishing agent takes: either it ended just now
        // (answer with it) or its notification will follow.
        let mut reg = self.shared.registry();
        let Some(r) = reg.get_mut(&child.id) else { return Waited::Gone };
        if let Some(f) = r.outcome.borrow().clone() {
            return Waited::Finished(f);
        }
        r.collected = false;
        if cancel.is_cancelled() { Waited::Cancelled } else { Waited::Running(r.state.status.as_str()) }
    }

    /// Stops the child and everything it started, and waits a little for it to wind down.
    pub(crate) async fn stop(&self, child: &mut Child) -> Result<Stopped, String> {
        let subtree = {
            let mut reg = self.shared.registry();
            let Some(r) = reg.get_mut(&child.id) else { return Err(format!("No agent {} in this session.", child.id)) };
            if r.state.status.is_terminal() {
                return Ok(Stopped::AlreadyEnded(r.state.status.as_str()));
            }
            // The caller knows it stopped; a notification saying so would be noise.
            r.collected = true;
            reg.subtree(&child.id).len()
        };
        self.shared.cancel_subtree(&child.id, StoppedBy::Parent);
        let _ = tokio::time::timeout(STOP_WAIT, child.outcome.wait_for(Option::is_some)).await;
        Ok(Stopped::Stopped { others: subtree.saturating_sub(1) })
    }

    /// Every agent of the session, in the registry's order.
    pub(crate) fn list(&self) -> Vec<Listed> {
        let reg = self.shared.registry();
        reg.all()
            .into_iter()
            .map(|r| {
                let s = &r.state;
                Listed {
                    id: s.id.clone(),
                    you: s.id == self.parent,
                    status: s.status.as_str(),
                    subagent_type: s.subagent_type.clone(),
                    description: s.description.clone(),
                    parent: s.parent_id.clone(),
                    depth: s.depth,
                    turns: s.turns,
                    background: s.background,
                }
            })
            .collect()
    }

    /// What the runtime noted of a child's end for its parent (a worktree left to merge, say).
    pub(crate) fn note(&self, id: &AgentId) -> Option<String> {
        self.shared.registry().get(id).and_then(|r| r.note.clone())
    }

    /// The Task tool's description: the types this session's children may be.
    pub(crate) fn task_description(&self) -> &str {
        &self.shared.ctx.task_description
    }

    /// The longest result text a parent's model is given.
    pub(crate) fn result_chars(&self) -> usize {
        self.shared.ctx.limits.result_chars
    }

    fn set_collected(&self, id: &AgentId, collected: bool) {
        if let Some(r) = self.shared.registry().get_mut(id) {
            r.collected = collected;
        }
    }
}
