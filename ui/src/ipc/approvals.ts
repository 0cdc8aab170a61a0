/**
 * Answering approvals and managing rules through the backend: one answer
 * (its scope, a denial's reason, a spawn's edit), "approve all" from one
 * agent, revoking a rule; bringing a card into view (a notification clicked,
 * "Show in inbox") and going to a request's agent. Requests belong to any
 * live session of the window, wherever the window is (another session, a past
 * session under review, settings, history): each answer goes to its own.
 */
import type { AgentId, ApprovalScope, CommandReply } from "../bindings";
import { approvalCommand, revokeRuleCommand, type AnswerExtras } from "../lib/commands";
import { spawnEditOf } from "../lib/spawnEdit";
import { approvalsStore, draftOf, forgetDrafts, pendingOfAgent, requestReveal, setRevoking, spawnFormOf } from "../store/approvals";
import { findRequest, inboxEntries } from "../store/inbox";
import { bookStore } from "../store/review";
import { liveViews, onEventsApplied, slotStateOf, type SlotKey } from "../store/sessionStore";
import { patchUi, select, uiStore } from "../store/ui";
import { run, sendToSession } from "./actions";
import { closeReview } from "./history";
import { takeNotified } from "./notify";
import { switchSession } from "./sessions";

function setSending(requestId: string, on: boolean): void {
  uiStore.set((s) => {
    if (!!s.sending[requestId] === on) return s;
    const sending = { ...s.sending };
    if (on) sending[requestId] = true;
    else delete sending[requestId];
    return { ...s, sending };
  });
}

/**
 * The edit a spawn request's answer carries (only what the person changed);
 * `problem` when the form cannot be sent as it is (an empty prompt, no model).
 */
export function spawnEditFor(requestId: string): { edit: AnswerExtras["edit"]; problem: string | null } {
  const preview = findRequest(requestId)?.approval.preview;
  if (preview?.kind !== "spawn") return { edit: null, problem: null };
  const r = spawnEditOf(preview, spawnFormOf(approvalsStore.get(), requestId, preview));
  return r.ok ? { edit: r.edit, problem: null } : { edit: null, problem: r.problem };
}

async function send(requestId: string, approved: boolean, scope: ApprovalScope, extras: AnswerExtras): Promise<boolean> {
  const session = findRequest(requestId)?.sessionId ?? null;
  setSending(requestId, true);
  const reply: CommandReply | null = await run(() => sendToSession(session, approvalCommand(requestId, approved, scope, extras)));
  // Sent: the card stays, marked, until its approval_resolved arrives.
  if (reply === null) setSending(requestId, false);
  return reply !== null;
}

/**
 * Answers one pending request of a live session. The scope is the card's
 * chosen one unless given; a denial carries the card's reason (when written),
 * an approval a spawn's edit. False when nothing was sent.
 */
export async function answer(requestId: string, approved: boolean, scope?: ApprovalScope): Promise<boolean> {
  const request = findRequest(requestId)?.approval;
  if (request?.state !== "pending" || uiStore.get().sending[requestId]) return false;
  const draft = draftOf(approvalsStore.get(), requestId);
  if (approved) {
    const { edit, problem } = spawnEditFor(requestId);
    if (problem !== null) return false;
    return send(requestId, true, scope ?? draft.scope, { edit });
  }
  return send(requestId, false, scope ?? draft.scope, { reason: draft.reasonOpen ? draft.reason : null });
}

/** Denies with the reason written in the card's field (the agent receives it in the tool result). */
export async function denyWithReason(requestId: string): Promise<boolean> {
  const draft = draftOf(approvalsStore.get(), requestId);
  const request = findRequest(requestId)?.approval;
  if (request?.state !== "pending" || uiStore.get().sending[requestId]) return false;
  return send(requestId, false, draft.scope, { reason: draft.reason });
}

/**
 * "Approve all from this agent": one answer (scope once) per pending request
 * of the agent, each with its spawn edit; a spawn whose form cannot be sent is
 * left waiting. The number of answers sent.
 */
export async function approveAllFrom(key: SlotKey, agentId: AgentId): Promise<number> {
  const pending = pendingOfAgent(slotStateOf(key), agentId);
  const sent = await Promise.all(pending.map((a) => answer(a.requestId, true, "once")));
  return sent.filter(Boolean).length;
}

/** Withdraws a rule of live session `key`; it stays listed, marked, until a frame lists the rules without it. */
export async function revokeRule(key: SlotKey, ruleId: string): Promise<boolean> {
  if (approvalsStore.get().revoking[ruleId]) return false;
  const session = slotStateOf(key).sessionId;
  setRevoking(ruleId, true);
  const reply = await run(() => sendToSession(session, revokeRuleCommand(ruleId)));
  if (reply === null) setRevoking(ruleId, false);
  return reply !== null;
}

/**
 * Brings a live request's card into view and gives it keyboard focus (the
 * inbox is shown in every view, so none is switched). Only for a request
 * still waiting.
 */
export function revealApproval(requestId: string): boolean {
  if (findRequest(requestId)?.approval.state !== "pending") return false;
  requestReveal(requestId);
  return true;
}

/** Shows a request's agent: in its live session (leaving another, a review, settings or history). */
export function showAgent(key: SlotKey, agentId: AgentId): void {
  if (bookStore.get().review !== null) closeReview();
  switchSession(key);
  if (uiStore.get().view !== "session") patchUi({ view: "session" });
  select(agentId);
}

/**
 * Side effects: forget the drafts of answered requests and the "revoking"
 * marks of rules gone from the list, and, when the window gets the focus back
 * after a notification (a click on it raises the window), bring that card into view.
 */
export function installApprovalEffects(): () => void {
  const offEvents = onEventsApplied((events) => {
    const answered: string[] = [];
    for (const e of events) if (e.type === "approval_resolved") answered.push(e.request_id);
    if (answered.length > 0) forgetDrafts(answered);
    const { revoking } = approvalsStore.get();
    const views = liveViews.get();
    for (const id of Object.keys(revoking)) {
      if (!views.some((v) => v.state.rules.some((r) => r.rule_id === id))) setRevoking(id, false);
    }
  });
  const onFocus = () => {
    const target = takeNotified();
    if (target === null || revealApproval(target)) return;
    // Answered meanwhile (a rule, another card): the oldest still waiting instead.
    const first = inboxEntries(liveViews.get())[0]?.approval.requestId;
    if (first !== undefined) revealApproval(first);
  };
  window.addEventListener("focus", onFocus);
  return () => {
    offEvents();
    window.removeEventListener("focus", onFocus);
  };
}
