//! Asking a person: a call the policy sends to a person waits for its own
//! answer (or a standing rule answers at once), suspending only its agent.

use crate::shared::{Locked, Shared};
use arbor_protocol::{
    AgentId, AgentStatus, ApprovalOutcome, ApprovalRequest, ApprovalResolved, ApprovalScope, EventKind,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Asks the person and waits for the answer (or a standing grant). None when
/// the agent was stopped while waiting.
///
/// The asking agent itself announces how its request ended, once: the person's
/// answer, or `withdrawn` when it stopped waiting. So for every call the events
/// read `tool_call` < `approval_request` < `approval_resolved` < `tool_output`,
/// whichever thread the answer came in on.
pub(crate) async fn ask_approval(
    shared: &Shared,
    agent_id: &AgentId,
    call_id: &str,
    tool_name: &str,
    tool_args: &Value,
    cancel: &CancellationToken,
) -> Option<bool> {
    let (request_id, mut answer) = {
        let mut st = shared.lock();
        let ancestors = st.registry.ancestors(agent_id);
        if let Some(standing) = st.approvals.granted(agent_id, &ancestors, tool_name) {
            return Some(standing);
        }
        let request_id = format!("approval-{}", arbor_protocol::ids::uuid_v7(shared.now_ms(), st.random_bytes()));
        let agent_path = st.registry.path(agent_id);
        let answer = st.approvals.open(&request_id, agent_id);
        st.emit(
            agent_id,
            EventKind::ApprovalRequest(ApprovalRequest {
                request_id: request_id.clone(),
                call_id: call_id.to_string(),
                tool_name: tool_name.to_string(),
                tool_args: tool_args.clone(),
                agent_path,
            }),
        );
        approval_wait(&mut st, agent_id, 1);
        (request_id, answer)
    };
    let got = tokio::select! {
        biased;
        a = &mut answer => a.ok(),
        _ = cancel.cancelled() => None,
    };
    let mut st = shared.lock();
    // Stopped while waiting: withdrawn, unless an answer slipped in at that moment.
    let got = match got {
        Some(a) => Some(a),
        None if st.approvals.withdraw(&request_id) => None,
        None => answer.try_recv().ok(),
    };
    let (outcome, scope) = match &got {
        Some(a) => (ApprovalOutcome::of(a.approved), a.scope),
        None => (ApprovalOutcome::Withdrawn, ApprovalScope::Once),
    };
    // The rule a scoped answer leaves takes effect with its announcement, in one step.
    if let Some(a) = &got {
        st.approvals.grant(agent_id, tool_name, a.scope, a.approved);
    }
    st.emit(agent_id, EventKind::ApprovalResolved(ApprovalResolved { request_id, outcome, scope }));
    approval_wait(&mut st, agent_id, -1);
    got.map(|a| a.approved)
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
