//! Asking a person: a call the policy sends to a person waits for its own
//! answer (or a standing rule answers at once), suspending only its agent.
//! While it waits, the file its preview shows is watched, and the card is
//! told if it changes.

use crate::approval::Verdict;
use crate::shared::{Locked, Shared};
use crate::tools::{Fingerprint, Preview};
use arbor_protocol::{
    AgentId, AgentStatus, ApprovalOutcome, ApprovalRequest, ApprovalResolved, ApprovalRule, ApprovalScope,
    ApprovalStale, DecidedBy, EventKind,
};
use serde_json::Value;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How often a waiting request looks at the file its preview shows.
const WATCH_EVERY: Duration = Duration::from_millis(750);

/// One call a person is asked about.
pub(crate) struct Question<'a> {
    pub call_id: &'a str,
    pub tool_name: &'a str,
    pub tool_args: &'a Value,
    pub preview: Option<Preview>,
    /// An external agent's own answers (empty: Arbor's scopes).
    pub options: Vec<arbor_protocol::AgentOption>,
}

/// Asks the person and waits for the answer (or a standing rule's). None when
/// the agent was stopped while waiting.
///
/// The asking agent itself announces how its request ended, once: the person's
/// answer, a rule's, or `withdrawn` when it stopped waiting. So for every call
/// the events read `tool_call` < `approval_request` < `approval_resolved` <
/// `tool_output`, whichever thread the answer came in on. A rule a scoped
/// answer sets is announced with that answer and in force from then on, in the
/// same step; it answers the pending requests it covers at once.
pub(crate) async fn ask_approval(
    shared: &Shared,
    agent_id: &AgentId,
    q: Question<'_>,
    cancel: &CancellationToken,
) -> Option<Verdict> {
    // The file as the preview read it (its fingerprint taken first, so a change while it was read shows too).
    let (preview, watch) = match q.preview {
        Some(p) => (Some(p.shown), p.watch),
        None => (None, None),
    };
    let (request_id, mut answer) = {
        let mut st = shared.lock();
        let ancestors = st.registry.ancestors(agent_id);
        if let Some(rule) = st.approvals.rule_for(agent_id, &ancestors, q.tool_name) {
            return Some(Verdict {
                approved: rule.approved,
                scope: ApprovalScope::Once,
                by: DecidedBy::Rule { rule: rule.clone() },
                reason: None,
                edit: None,
                unseen_change: None,
            });
        }
        let request_id = format!("approval-{}", arbor_protocol::ids::uuid_v7(shared.now_ms(), st.random_bytes()));
        let agent_path = st.registry.path(agent_id);
        let answer = st.approvals.open(&request_id, agent_id, ancestors, q.tool_name);
        st.emit(
            agent_id,
            EventKind::ApprovalRequest(ApprovalRequest {
                request_id: request_id.clone(),
                call_id: q.call_id.to_string(),
                tool_name: q.tool_name.to_string(),
                tool_args: q.tool_args.clone(),
                agent_path,
                preview,
                options: q.options,
            }),
        );
        approval_wait(&mut st, agent_id, 1);
        (request_id, answer)
    };
    let mut stale_told = false;
    let mut ticks = tokio::time::interval(WATCH_EVERY);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let got = loop {
        tokio::select! {
            biased;
            a = &mut answer => break a.ok(),
            _ = cancel.cancelled() => break None,
            _ = ticks.tick(), if !stale_told && watch.is_some() => {
                let Some((path, seen)) = &watch else { continue };
                let now = Fingerprint::of(path).await;
                if let Some(change) = seen.change(&now) {
                    stale_told = tell_stale(shared, agent_id, &request_id, change);
                }
            }
        }
    };
    // A change in the moment before the answer, that the card could not show yet.
    let got = match (got, &watch) {
        (Some(mut v), Some((path, seen))) if v.approved && !stale_told => {
            v.unseen_change = seen.change(&Fingerprint::of(path).await);
            Some(v)
        }
        (got, _) => got,
    };
    let mut st = shared.lock();
    // Stopped while waiting: withdrawn, unless an answer slipped in at that moment.
    let got = match got {
        Some(v) => Some(v),
        None if st.approvals.withdraw(&request_id) => None,
        None => answer.try_recv().ok(),
    };
    let resolved = match &got {
        None => ApprovalResolved::withdrawn(request_id),
        Some(v) => {
            let rule = (v.by == DecidedBy::Person && v.scope != ApprovalScope::Once).then(|| ApprovalRule {
                rule_id: format!("rule-{}", arbor_protocol::ids::uuid_v7(shared.now_ms(), st.random_bytes())),
                tool: q.tool_name.to_string(),
                scope: v.scope,
                agent_id: agent_id.clone(),
                approved: v.approved,
                request_id: request_id.clone(),
                created_at: shared.now_ms(),
            });
            if let Some(rule) = &rule {
                st.approvals.add_rule(rule.clone());
            }
            ApprovalResolved {
                request_id,
                outcome: ApprovalOutcome::of(v.approved),
                scope: v.scope,
                decided_by: Some(v.by.clone()),
                reason: v.reason.clone(),
                rule,
                edit: v.edit.clone(),
            }
        }
    };
    st.emit(agent_id, EventKind::ApprovalResolved(resolved));
    approval_wait(&mut st, agent_id, -1);
    got
}

/// Tells the card its preview is out of date, unless the request was answered
/// meanwhile (its agent announces that next). True when told.
fn tell_stale(shared: &Shared, agent_id: &AgentId, request_id: &str, change: &str) -> bool {
    let mut st = shared.lock();
    if !st.approvals.is_pending(request_id) {
        return false;
    }
    let message = format!("The file {change}.");
    st.emit(agent_id, EventKind::ApprovalStale(ApprovalStale { request_id: request_id.to_string(), message }));
    true
}

/// Counts the agent's open requests: waiting while any is open, running after
/// (in the same step as the request's event).
fn approval_wait(st: &mut Locked<'_>, id: &AgentId, delta: i32) {
    let Some(r) = st.registry.get_mut(id) else { return };
    r.pending_approvals = r.pending_approvals.saturating_add_signed(delta);
    let status = match (r.pending_approvals, r.state.status) {
        (0, AgentStatus::WaitingApproval) => AgentStatus::Running,
        (n, AgentStatus::Running) if n > 0 => AgentStatus::WaitingApproval,
        _ => return,
    };
    st.emit(id, EventKind::AgentStatus(arbor_protocol::StatusChanged { status }));
}
