//! Budget enforcement (design.md §3.4b): before each model request and each
//! spawn, every budget above the agent (its own included) is checked against
//! what that budget's whole subtree has used. Use is kept per record as events
//! are emitted ([`Registry::account`]), so a check walks only the agent's
//! ancestry, never the tree. A run out budget stops its subtree as
//! `budget_exhausted`; at 80% its agents are told to wrap up.

use crate::error::SpawnError;
use crate::registry::Registry;
use crate::shared::{Locked, Shared};
use arbor_protocol::{
    AgentEvent, AgentId, AgentStatus, Budget, BudgetKind, BudgetOrigin, BudgetSet, BudgetStanding, BudgetUse,
    BudgetWarning, EventKind, Message, UserBlock,
};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The window of the spawn-rate guard.
const RATE_WINDOW_MS: i64 = 60_000;

impl Registry {
    /// Keeps each record's subtree use current as an event is applied: a
    /// response's usage counts for its agent and every agent above it, a new
    /// agent as a descendant of each of its ancestors.
    pub(crate) fn account(&mut self, event: &AgentEvent) {
        match &event.kind {
            EventKind::Usage(u) => {
                let mut chain = self.ancestors(&event.agent_id);
                chain.push(event.agent_id.clone());
                for a in chain {
                    if let Some(r) = self.get_mut(&a) {
                        r.subtree_use.add_usage(u);
                    }
                }
            }
            EventKind::AgentStarted(s) if s.parent_id.is_some() => {
                for a in self.ancestors(&event.agent_id) {
                    if let Some(r) = self.get_mut(&a) {
                        r.subtree_use.subagents += 1;
                    }
                }
            }
            _ => {}
        }
    }

    /// Subtree use from the agents' stored totals (a resumed session's).
    pub(crate) fn recount(&mut self) {
        let totals: Vec<(AgentId, arbor_protocol::Usage, Vec<AgentId>)> =
            self.iter().map(|r| (r.id().clone(), r.state.usage.clone(), self.ancestors(r.id()))).collect();
        for (id, usage, above) in totals {
            if let Some(r) = self.get_mut(&id) {
                r.subtree_use.add_usage(&usage);
            }
            for a in above {
                if let Some(r) = self.get_mut(&a) {
                    r.subtree_use.add_usage(&usage);
                    r.subtree_use.subagents += 1;
                }
            }
        }
    }

    /// How `owner`'s subtree stands against its budget at `now`, if it has one.
    pub(crate) fn standing(&self, owner: &AgentId, now: i64, next_tokens: u64) -> Option<BudgetStanding> {
        let r = self.get(owner)?;
        let budget = r.state.budget.as_ref()?;
        let used = BudgetUse { elapsed_ms: r.state.elapsed_at(now), ..r.subtree_use.clone() };
        Some(budget.standing(used, next_tokens))
    }

    /// `id` and the agents above it that have a budget, nearest first.
    fn budgeted_chain(&self, id: &AgentId) -> Vec<AgentId> {
        std::iter::once(id.clone())
            .chain(self.ancestors(id))
            .filter(|a| self.get(a).is_some_and(|r| r.state.budget.is_some()))
            .collect()
    }
}

/// Before a model request of `id` expected to cost `next_tokens`: Err with why
/// when a budget above it ran out (its subtree is then stopped); otherwise the
/// wrap-up notice its model should read first, if one is due.
pub(crate) fn before_request(shared: &Shared, id: &AgentId, next_tokens: u64) -> Result<Option<String>, String> {
    let now = shared.now_ms();
    let mut st = shared.lock();
    for owner in st.registry.budgeted_chain(id) {
        let Some(standing) = st.registry.standing(&owner, now, next_tokens) else { continue };
        if let Some(why) = standing.exhausted_reason(&owner) {
            exhaust(&mut st, &owner, standing, &why);
            return Err(why);
        }
        warn_if_near(&mut st, &owner, standing);
    }
    Ok(st.registry.get_mut(id).and_then(|r| r.budget_notice.take()))
}

/// Emits a `budget_warning` the first time a limit passes 80%, and queues a
/// wrap-up notice for every agent of the subtree that is still at work.
fn warn_if_near(st: &mut Locked<'_>, owner: &AgentId, standing: BudgetStanding) {
    let passed: Vec<(BudgetKind, f64)> = BudgetKind::ALL
        .into_iter()
        .filter_map(|k| standing.share(k).map(|f| (k, f)))
        .filter(|(_, f)| *f >= arbor_protocol::budget::BUDGET_WARNING_FRACTION)
        .collect();
    for (kind, share) in passed {
        let Some(r) = st.registry.get_mut(owner) else { return };
        if r.budget_warned.contains(&kind) {
            continue;
        }
        r.budget_warned.push(kind);
        // Nearly all the subagents it may start are started: that asks for no wrap-up, only no more of them.
        let what = if kind == BudgetKind::Subagents {
            "Start no new subagents: do what is left yourself."
        } else {
            "Wrap up now: finish the most important part, start no new subagents, and give your answer."
        };
        let notice = format!(
            "[Budget notice from Arbor: the work of {owner} and its subagents has used {:.0}% of its {} budget ({}). {what}]",
            share * 100.0,
            kind.as_str(),
            standing.figures(kind),
        );
        for a in st.registry.subtree(owner) {
            if let Some(r) = st.registry.get_mut(&a)
                && !r.state.status.is_terminal()
            {
                r.budget_notice = Some(notice.clone());
            }
        }
        st.emit(owner, EventKind::BudgetWarning(BudgetWarning { kind, standing: standing.clone() }));
    }
}

/// Announces that `owner`'s budget ran out (a `budget_warning` whose standing is
/// exhausted) and stops its subtree.
fn exhaust(st: &mut Locked<'_>, owner: &AgentId, standing: BudgetStanding, why: &str) {
    // Once per run out (until the budget changes): other agents of the subtree, or ones a
    // person starts under it later, may check before anyone changed it.
    let announced = st.registry.get(owner).is_none_or(|r| r.state.budget_exhausted.is_some());
    if let Some(kind) = standing.exhausted.filter(|_| !announced) {
        st.emit(owner, EventKind::BudgetWarning(BudgetWarning { kind, standing }));
    }
    stop_subtree(st, owner, why);
}

/// Stops `owner` and everything below it that still runs, each to end as
/// `budget_exhausted` with `why`.
fn stop_subtree(st: &mut Locked<'_>, owner: &AgentId, why: &str) {
    for a in st.registry.subtree(owner) {
        if let Some(r) = st.registry.get_mut(&a)
            && !r.state.status.is_terminal()
        {
            r.budget_stop = Some(why.to_string());
            r.cancel.cancel();
        }
    }
}

/// A run that ended cancelled because a budget stopped its subtree ends as `budget_exhausted`, saying why.
pub(crate) fn explain(
    shared: &Shared,
    id: &AgentId,
    status: AgentStatus,
    error: Option<String>,
) -> (AgentStatus, Option<String>) {
    if status != AgentStatus::Cancelled {
        return (status, error);
    }
    match shared.registry().get(id).and_then(|r| r.budget_stop.clone()) {
        Some(why) => (AgentStatus::BudgetExhausted, Some(why)),
        None => (status, error),
    }
}

/// What a new child may use, and whether it may start: refused when a budget
/// above it ran out or has no room for another subagent, or (for a model's
/// spawn) when its subtree started too many in the last minute. Called under
/// the lock the child is registered under.
pub(crate) fn before_spawn(
    st: &mut Locked<'_>,
    parent: &AgentId,
    wanted: Budget,
    now: i64,
    rate_limit: Option<u32>,
) -> Result<(Budget, Vec<BudgetKind>), SpawnError> {
    let mut budget = wanted;
    let mut carved = Vec::new();
    for owner in st.registry.budgeted_chain(parent) {
        let Some(standing) = st.registry.standing(&owner, now, 0) else { continue };
        if let Some(why) = standing.exhausted_reason(&owner) {
            return Err(SpawnError::Budget(why));
        }
        // Stopped already (its next request would have passed it): no new child under it.
        if let Some(why) = st.registry.get(&owner).and_then(|r| r.budget_stop.clone()) {
            return Err(SpawnError::Budget(why));
        }
        if let Some(max) = standing.budget.max_subagents
            && standing.used.subagents >= max
        {
            return Err(SpawnError::Budget(format!(
                "the subagents budget of {owner} allows {max} subagents below it, and {} have been started",
                standing.used.subagents
            )));
        }
        let left = standing.budget.remainder(&standing.used);
        let tighter = budget.within(&left);
        for kind in BudgetKind::ALL {
            if tighter.limit(kind) != budget.limit(kind) && budget.limit(kind).is_some() {
                carved.push(kind);
            }
        }
        budget = Budget {
            // Only the limits the child was given are carved: the rest its ancestors' checks cover.
            max_tokens: budget.max_tokens.and(tighter.max_tokens),
            max_cost_usd: budget.max_cost_usd.and(tighter.max_cost_usd),
            max_duration_seconds: budget.max_duration_seconds.and(tighter.max_duration_seconds),
            max_subagents: budget.max_subagents.and(tighter.max_subagents),
        };
    }
    if let Some(max) = rate_limit {
        let window = &mut st.spawn_times;
        while window.front().is_some_and(|t| now - *t >= RATE_WINDOW_MS) {
            window.pop_front();
        }
        if window.len() >= max as usize {
            return Err(SpawnError::SpawnRate { max });
        }
        window.push_back(now);
    }
    carved.dedup();
    Ok((budget, carved))
}

/// Gives `id` a budget (announced as `budget_set`), under the lock it was registered under.
pub(crate) fn set(st: &mut Locked<'_>, id: &AgentId, budget: Budget, origin: BudgetOrigin, carved: Vec<BudgetKind>) {
    if budget.is_empty() && st.registry.get(id).is_none_or(|r| r.state.budget.is_none()) {
        return;
    }
    if let Some(r) = st.registry.get_mut(id) {
        // Limits that moved may warn again.
        r.budget_warned.clear();
    }
    st.emit(id, EventKind::BudgetSet(BudgetSet { budget, origin, carved }));
}

/// Whether a budget had stopped an agent when a person changed its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    No,
    /// Its run ended `budget_exhausted`.
    Ended,
    /// Its subtree was stopped and its run is still winding down.
    WindingDown,
}

/// A person changes `id`'s budget: the limits named replace the old ones.
pub(crate) fn change(shared: &Shared, id: &AgentId, change: &Budget) -> Option<Stopped> {
    let mut st = shared.lock();
    let r = st.registry.get(id)?;
    let now = r.state.budget.clone().unwrap_or_default().changed_by(change);
    let stopped = match (r.state.status, &r.budget_stop) {
        (AgentStatus::BudgetExhausted, _) => Stopped::Ended,
        (s, Some(_)) if !s.is_terminal() => Stopped::WindingDown,
        _ => Stopped::No,
    };
    set(&mut st, id, now, BudgetOrigin::Person, Vec::new());
    Some(stopped)
}

/// What an agent its budget stopped reads when a person gives it more.
pub(crate) const RAISED: &str =
    "Your budget was raised by the person running this session. Carry on from where you stopped.";

/// Whether every budget above `id` (its own included) has room for another request.
pub(crate) fn has_room(shared: &Shared, id: &AgentId) -> bool {
    let now = shared.now_ms();
    let reg = shared.registry();
    reg.budgeted_chain(id).iter().all(|owner| reg.standing(owner, now, 0).is_none_or(|s| s.exhausted.is_none()))
}

/// Watches the wall-time limit of `id`'s own budget during one run: when it
/// passes, the subtree stops (even mid-command). Ends with the run.
pub(crate) fn watch_deadline(shared: &Arc<Shared>, id: AgentId, run: CancellationToken) {
    let has_limit = |s: &Shared| {
        s.registry().get(&id).and_then(|r| r.state.budget.as_ref()).is_some_and(|b| b.max_duration_seconds.is_some())
    };
    if !has_limit(shared) {
        return;
    }
    let weak: Weak<Shared> = Arc::downgrade(shared);
    shared.ctx.runtime.spawn(async move {
        loop {
            let wait = {
                let Some(shared) = weak.upgrade() else { return };
                let now = shared.now_ms();
                let mut st = shared.lock();
                let Some(standing) = st.registry.standing(&id, now, 0) else { return };
                let Some(max) = standing.budget.max_duration_seconds else { return };
                if st.registry.get(&id).is_none_or(|r| r.inbox.is_none()) {
                    return;
                }
                let left = max.saturating_mul(1000).saturating_sub(standing.used.elapsed_ms);
                if left == 0 {
                    if let Some(why) = standing.exhausted_reason(&id) {
                        exhaust(&mut st, &id, standing, &why);
                    }
                    return;
                }
                Duration::from_millis(left)
            };
            tokio::select! {
                _ = run.cancelled() => return,
                _ = tokio::time::sleep(wait) => {}
            }
        }
    });
}

/// What the next request of a run is expected to cost: as much as its last
/// response did (the context grows, or is read from cache), plus what was
/// added since, at about four characters a token. The first request counts
/// its whole prompt.
pub(crate) fn next_request_tokens(last_cost: Option<u64>, added: &[Message], fixed_chars: usize) -> u64 {
    let added_chars: usize = added.iter().map(chars_of).sum();
    let fixed = if last_cost.is_none() { fixed_chars } else { 0 };
    last_cost.unwrap_or(0) + arbor_protocol::estimated_tokens(added_chars + fixed)
}

fn chars_of(m: &Message) -> usize {
    match m {
        Message::User { content } => content
            .iter()
            .map(|b| match b {
                UserBlock::Text { text } => text.len(),
                UserBlock::ToolResult { content, .. } => content.len(),
            })
            .sum(),
        // The model's own response is in its last cost already.
        Message::Assistant { .. } => 0,
    }
}

/// The budget a child asks for: a model's Task call may only tighten what its
/// type and the session's default give; a person's delegation replaces them.
pub(crate) fn wanted(
    default: &Budget,
    of_type: Option<&Budget>,
    asked: Option<&Budget>,
    by_person: bool,
) -> (Budget, BudgetOrigin) {
    let of_type = of_type.filter(|b| !b.is_empty());
    let asked = asked.filter(|b| !b.is_empty());
    let base = match of_type {
        Some(t) if by_person => default.changed_by(t),
        Some(t) => default.within(t),
        None => default.clone(),
    };
    let budget = match asked {
        Some(a) if by_person => base.changed_by(a),
        Some(a) => base.within(a),
        None => base,
    };
    let origin = match (asked, of_type) {
        (Some(_), _) if by_person => BudgetOrigin::Delegation,
        (Some(_), _) => BudgetOrigin::TaskCall,
        (None, Some(_)) => BudgetOrigin::AgentType,
        (None, None) => BudgetOrigin::SubagentDefault,
    };
    (budget, origin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_call_tightens_and_a_person_replaces() {
        let default = Budget { max_duration_seconds: Some(600), ..Budget::default() };
        let of_type = Budget { max_tokens: Some(50_000), ..Budget::default() };
        let asked = Budget { max_tokens: Some(90_000), max_duration_seconds: Some(60), ..Budget::default() };
        let (b, origin) = wanted(&default, Some(&of_type), Some(&asked), false);
        assert_eq!((b.max_tokens, b.max_duration_seconds, origin), (Some(50_000), Some(60), BudgetOrigin::TaskCall));
        let (b, origin) = wanted(&default, Some(&of_type), Some(&asked), true);
        assert_eq!((b.max_tokens, origin), (Some(90_000), BudgetOrigin::Delegation));
        let (b, origin) = wanted(&default, None, None, false);
        assert_eq!((b, origin), (default.clone(), BudgetOrigin::SubagentDefault));
    }

    #[test]
    fn the_next_request_is_estimated_from_the_last_and_what_was_added() {
        let added = [Message::user_text("x".repeat(400))];
        assert_eq!(next_request_tokens(Some(1000), &added, 8000), 1100);
        assert_eq!(next_request_tokens(None, &added, 8000), 2100);
    }
}
