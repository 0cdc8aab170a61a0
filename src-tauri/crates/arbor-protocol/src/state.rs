//! "An agent as its events left it", derived in exactly one place: the store
//! keeps its agents rows with [`AgentStates::apply`], the CLI knows when a run is
//! over from it, and the UI's reducer is checked against the same fixture
//! (`tests/fixtures/agent_states`), so no two parts can disagree unseen.

use crate::BudgetUse;
use crate::{AgentEvent, AgentId, AgentStarted, AgentStatus, EventKind, StoredAgent, Usage};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Usage as a person reads it: the figures, and the tokens of all four kinds summed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct UsageFigures {
    pub usage: Usage,
    pub tokens: u64,
}

impl UsageFigures {
    pub fn of(usage: Usage) -> Self {
        Self { tokens: usage.total_tokens(), usage }
    }
}

/// One agent's usage: its own model responses, and its whole subtree's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct AgentUsage {
    pub agent_id: AgentId,
    pub own: UsageFigures,
    pub subtree: UsageFigures,
    /// How its subtree stands against its budget, if it has one.
    pub budget: Option<crate::BudgetStanding>,
}

/// Usage figures that changed, computed by [`AgentStates::usage_update`]: a
/// front end shows these as they are and never sums usage itself.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct UsageUpdate {
    pub agents: Vec<AgentUsage>,
    /// Every agent of the session.
    pub session: UsageFigures,
}

impl EventKind {
    /// Whether [`StoredAgent::apply`] reads this event: the agent's derived state
    /// (status, runs and wall time, turns, result, budget) changes only with these.
    /// A front end is sent the agents these touched (`EventFrame.agents`).
    pub fn shapes_agent(&self) -> bool {
        match self {
            Self::AgentStarted(_)
            | Self::AgentStatus(_)
            | Self::BudgetSet(_)
            | Self::Usage(_)
            | Self::ContextWindow(_)
            | Self::ContextCompacted(_)
            | Self::AgentFinished(_) => true,
            Self::BudgetWarning(w) => w.standing.exhausted.is_some(),
            _ => false,
        }
    }
}

impl StoredAgent {
    /// The agent as its `agent_started` announces it: queued, nothing used yet.
    pub fn new(id: AgentId, started: &AgentStarted, ts: i64) -> Self {
        Self {
            id,
            parent_id: started.parent_id.clone(),
            parent_call_id: started.parent_call_id.clone(),
            depth: started.depth,
            description: started.description.clone(),
            subagent_type: started.subagent_type.clone(),
            model: started.model.clone(),
            provider: started.provider.clone(),
            background: started.background,
            fork: started.fork,
            external: started.external.clone(),
            status: AgentStatus::Queued,
            started_at: ts,
            ended_at: None,
            turns: 0,
            duration_ms: None,
            usage: Usage::default(),
            files_modified: Vec::new(),
            result: None,
            error: None,
            budget: None,
            elapsed_ms: 0,
            run_started_at: None,
            budget_exhausted: None,
            context_used: 0,
            context_window: None,
        }
    }

    /// Its current run, if any, ended at `ts`: its wall time adds to the total.
    fn end_run(&mut self, ts: i64) {
        if let Some(start) = self.run_started_at.take() {
            self.elapsed_ms += u64::try_from(ts - start).unwrap_or(0);
        }
    }

    /// Wall time of all its runs, the current one's up to `now`.
    pub fn elapsed_at(&self, now: i64) -> u64 {
        let current = self.run_started_at.map_or(0, |s| u64::try_from(now - s).unwrap_or(0));
        self.elapsed_ms + current
    }

    /// The agent as a resumed session takes it back: one that was still active
    /// when its process died is interrupted.
    pub fn resumed(mut self) -> Self {
        if !self.status.is_terminal() {
            self.status = AgentStatus::Interrupted;
        }
        self.run_started_at = None;
        self
    }

    /// Applies one of this agent's own events.
    ///
    /// - `agent_status`: the status; a status that is not terminal starts a new run, so `ended_at` clears
    ///   and, from its first running (or waiting) status, its wall time counts, until a terminal one.
    /// - `usage`: one model response: its tokens and cost add up, and it counts as a turn
    ///   (turns count every run's responses; `agent_finished.turns` counts its own run's).
    /// - `agent_finished`: status, result, error, duration, the files it changed in all its runs, `ended_at`;
    ///   the run's wall time adds to `elapsed_ms`.
    /// - `budget_set`: its budget (and no limit of it has run out); a `budget_warning` whose
    ///   standing is exhausted: the limit that ran out.
    pub fn apply(&mut self, event: &AgentEvent) {
        match &event.kind {
            // Announced again (a store merging logs): where it sits and what it runs on.
            EventKind::AgentStarted(started) => {
                self.parent_id = started.parent_id.clone();
                self.parent_call_id = started.parent_call_id.clone();
                self.depth = started.depth;
                self.description = started.description.clone();
                self.subagent_type = started.subagent_type.clone();
                self.model = started.model.clone();
                self.provider = started.provider.clone();
                self.background = started.background;
                self.fork = started.fork;
                self.external = started.external.clone();
            }
            EventKind::AgentStatus(change) => {
                self.status = change.status;
                if !change.status.is_terminal() {
                    self.ended_at = None;
                }
                // Time spent queued for a slot is not the agent's.
                if matches!(change.status, AgentStatus::Running | AgentStatus::WaitingApproval) {
                    self.run_started_at.get_or_insert(event.ts);
                }
                if change.status.is_terminal() {
                    self.end_run(event.ts);
                }
            }
            EventKind::BudgetSet(set) => {
                self.budget = Some(set.budget.clone());
                self.budget_exhausted = None;
            }
            EventKind::BudgetWarning(w) if w.standing.exhausted.is_some() => {
                self.budget_exhausted = w.standing.exhausted;
            }
            EventKind::Usage(u) => {
                self.usage.add(u);
                self.turns += 1;
                self.context_used = u.context_tokens();
            }
            EventKind::ContextWindow(w) => self.context_window = Some(*w),
            EventKind::ContextCompacted(c) => {
                self.context_used = c.after_tokens;
                // Its summary's `usage` came just before, counted as a turn: a summary is not one
                // of the agent's turns (nor counted against its turn limit).
                if c.usage.is_some() {
                    self.turns = self.turns.saturating_sub(1);
                }
                // A refusal that named the window is the provider's word for it.
                if let (crate::CompactTrigger::Overflow, Some(tokens)) = (c.trigger, c.window_tokens) {
                    self.context_window = Some(crate::ContextWindow { tokens, source: crate::WindowSource::Provider });
                }
            }
            EventKind::AgentFinished(f) => {
                self.status = f.status;
                self.result = Some(f.result.clone());
                self.error = f.error.clone();
                self.duration_ms = Some(f.duration_ms);
                self.files_modified = f.files_modified.clone();
                self.ended_at = Some(event.ts);
                self.end_run(event.ts);
            }
            _ => {}
        }
    }
}

/// Every agent of a session as the events so far left them, in the order they started.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentStates {
    agents: Vec<StoredAgent>,
    index: HashMap<AgentId, usize>,
    /// The latest event's time: "now" for a running agent's wall time.
    now: i64,
}

impl AgentStates {
    /// Starts from agents as stored (a resumed session's).
    pub fn from_agents(agents: impl IntoIterator<Item = StoredAgent>) -> Self {
        let mut out = Self::default();
        for a in agents {
            out.now = out.now.max(a.ended_at.unwrap_or(a.started_at));
            out.insert(a);
        }
        out
    }

    fn insert(&mut self, agent: StoredAgent) {
        match self.index.get(&agent.id) {
            Some(&i) => self.agents[i] = agent,
            None => {
                self.index.insert(agent.id.clone(), self.agents.len());
                self.agents.push(agent);
            }
        }
    }

    /// Applies one event; returns its agent, or None for an agent never announced
    /// (its events are kept by whoever stores them, but there is no agent to change).
    pub fn apply(&mut self, event: &AgentEvent) -> Option<&StoredAgent> {
        self.now = self.now.max(event.ts);
        let i = match (self.index.get(&event.agent_id), &event.kind) {
            (Some(&i), _) => i,
            (None, EventKind::AgentStarted(started)) => {
                self.insert(StoredAgent::new(event.agent_id.clone(), started, event.ts));
                return self.agents.last();
            }
            (None, _) => return None,
        };
        let agent = &mut self.agents[i];
        agent.apply(event);
        Some(agent)
    }

    pub fn get(&self, id: &AgentId) -> Option<&StoredAgent> {
        self.index.get(id).map(|&i| &self.agents[i])
    }

    /// Every agent, in the order they started.
    pub fn agents(&self) -> &[StoredAgent] {
        &self.agents
    }

    /// Whether no agent is queued, running or waiting for a person.
    pub fn is_idle(&self) -> bool {
        self.agents.iter().all(|a| a.status.is_terminal())
    }

    /// The tokens and cost of `id` and every agent below it.
    pub fn subtree_usage(&self, id: &AgentId) -> Usage {
        let mut total = Usage::default();
        for a in &self.agents {
            if self.ancestry(&a.id).any(|i| self.agents[i].id == *id) {
                total.add(&a.usage);
            }
        }
        total
    }

    /// The tokens and cost of every agent.
    pub fn total_usage(&self) -> Usage {
        let mut total = Usage::default();
        for a in &self.agents {
            total.add(&a.usage);
        }
        total
    }

    /// The figures of `touched` and of every agent above them (whose subtrees
    /// they are in), with the session's total: what a front end shows after
    /// those agents' usage changed. One pass over the agents, however many are touched.
    pub fn usage_update<'a>(&self, touched: impl IntoIterator<Item = &'a AgentId>) -> UsageUpdate {
        let mut subtree: Vec<Usage> = self.agents.iter().map(|a| a.usage.clone()).collect();
        let mut descendants = vec![0u32; self.agents.len()];
        let mut wanted = vec![false; self.agents.len()];
        for id in touched {
            for i in self.ancestry(id) {
                wanted[i] = true;
            }
        }
        for a in &self.agents {
            for above in self.ancestry(&a.id).skip(1) {
                subtree[above].add(&a.usage);
                descendants[above] += 1;
            }
        }
        let agents = self
            .agents
            .iter()
            .zip(subtree)
            .zip(descendants)
            .zip(wanted)
            .filter(|(_, wanted)| *wanted)
            .map(|(((a, subtree), descendants), _)| {
                let budget = a.budget.as_ref().map(|b| {
                    let mut used = BudgetUse::default();
                    used.add_usage(&subtree);
                    used.elapsed_ms = a.elapsed_at(self.now);
                    used.subagents = descendants;
                    let mut standing = b.standing(used, 0);
                    // It ran out before a request that would have passed it: the use alone may not say so.
                    standing.exhausted = standing.exhausted.or(a.budget_exhausted);
                    standing
                });
                AgentUsage {
                    agent_id: a.id.clone(),
                    own: UsageFigures::of(a.usage.clone()),
                    subtree: UsageFigures::of(subtree),
                    budget,
                }
            })
            .collect();
        UsageUpdate { agents, session: UsageFigures::of(self.total_usage()) }
    }

    /// The indexes of `id` and the agents above it, nearest first; bounded by
    /// the number of agents, so a malformed log with a cycle cannot hang.
    fn ancestry<'s>(&'s self, id: &AgentId) -> impl Iterator<Item = usize> + 's {
        let mut cur = self.index.get(id).copied();
        let mut left = self.agents.len();
        std::iter::from_fn(move || {
            let i = cur.take_if(|_| left > 0)?;
            left -= 1;
            cur = self.agents[i].parent_id.as_ref().and_then(|p| self.index.get(p).copied());
            Some(i)
        })
    }
}
