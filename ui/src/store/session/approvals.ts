/**
 * The reducer's part for approvals: a request (with its preview), the notice
 * that its previewed file changed on disk, how it ended (outcome, scope, who
 * decided, the reason, the rule it set, a spawn's edit) and a revoked rule.
 * Each function changes the batch's draft only (see draft.ts).
 */
import type { Draft } from "./draft";
import { setToolApproval } from "./items";
import type { AgentNode, EventOf } from "./types";

export function addRequest(d: Draft, node: AgentNode, ev: EventOf<"approval_request">): void {
  if (d.state.approvals[ev.request_id]) return;
  d.approvals()[ev.request_id] = {
    requestId: ev.request_id,
    agentId: ev.agent_id,
    callId: ev.call_id,
    toolName: ev.tool_name,
    toolArgs: ev.tool_args,
    agentPath: ev.agent_path,
    ts: ev.ts,
    state: "pending",
    scope: null,
    // Absent from requests stored before previews: the card falls back to the arguments.
    preview: ev.preview ?? null,
    options: ev.options ?? [],
    stale: null,
    decidedBy: null,
    reason: null,
    rule: null,
    edit: null,
    resolvedAt: null,
  };
  d.pending().push(ev.request_id);
  node.pendingApprovals += 1;
  setToolApproval(d, node, ev.call_id, { requestId: ev.request_id, state: "pending", scope: null });
}

/** The previewed file changed while the request waited; an answered request keeps how it ended. */
export function markStale(d: Draft, ev: EventOf<"approval_stale">): void {
  const existing = d.state.approvals[ev.request_id];
  if (!existing || existing.state !== "pending") return;
  d.approvals()[ev.request_id] = { ...existing, stale: ev.message };
}

export function resolveRequest(d: Draft, ev: EventOf<"approval_resolved">): void {
  const existing = d.state.approvals[ev.request_id];
  if (!existing || existing.state !== "pending") return;
  // Optional on the wire (absent from transcripts stored before they existed).
  const decidedBy = ev.decided_by ?? null;
  d.approvals()[ev.request_id] = {
    ...existing,
    state: ev.outcome,
    scope: ev.scope,
    decidedBy,
    reason: ev.reason ?? null,
    rule: ev.rule ?? null,
    edit: ev.edit ?? null,
    resolvedAt: ev.ts,
  };
  const pending = d.pending();
  const at = pending.indexOf(ev.request_id);
  if (at >= 0) pending.splice(at, 1);
  const node = d.agent(existing.agentId, ev.ts);
  node.pendingApprovals = Math.max(0, node.pendingApprovals - 1);
  setToolApproval(d, node, existing.callId, { requestId: ev.request_id, state: ev.outcome, scope: ev.scope }, decidedBy);
}

/**
 * A person withdrew a rule: it is no longer in force (the next frame lists the
 * rules without it too), and when that happened is kept for the calls it decided.
 */
export function revokeRule(d: Draft, ev: EventOf<"rule_revoked">): void {
  const s = d.state;
  if (s.rules.some((r) => r.rule_id === ev.rule_id)) s.rules = s.rules.filter((r) => r.rule_id !== ev.rule_id);
  s.revokedRules = { ...s.revokedRules, [ev.rule_id]: ev.ts };
}
