/**
 * Approvals as the window shows them. The inbox's own state (each card's
 * chosen scope, its reason being written, a spawn being edited, the card to
 * bring into view, rules being revoked), and the derived data the cards and
 * marks read from a session state: each agent's pending requests, the names
 * a request or a rule is read with, and what decided a tool call. Selectors
 * return the same object for unchanged input, so components can read them
 * through useSyncExternalStore.
 */
import { APPROVAL_SCOPES, type AgentId, type ApprovalRule, type ApprovalScope, type SpawnPlan } from "../bindings";
import {
  hookMark,
  personMark,
  policyMark,
  ruleLabel,
  ruleMark,
  settingMark,
  type DecisionMark,
  type RuleNames,
} from "../lib/approvals";
import { oneLine } from "../lib/history";
import { toolDisplayName } from "../lib/mcp";
import { spawnDraft, type SpawnDraft } from "../lib/spawnEdit";
import { approvalAgentLabel, approvalMcp, mainAgent, pendingApprovals } from "./selectors";
import type { AgentNode, Approval, SessionState, ToolItem } from "./session/types";
import { createStore } from "./store";

// ---- The inbox's own state ----

export interface ApprovalDraft {
  /** The scope option chosen (the narrowest until the person picks another). */
  scope: ApprovalScope;
  /** The "deny with a reason" field is open. */
  reasonOpen: boolean;
  reason: string;
  /** A spawn's form, once the person touched it; null: as planned. */
  spawn: SpawnDraft | null;
}

export interface ApprovalsUi {
  drafts: Record<string, ApprovalDraft>;
  /** A card to scroll into view and focus (a notification was clicked, "Show in inbox"). */
  reveal: string | null;
  /** Rules whose revocation was sent and not yet confirmed by a frame without them. */
  revoking: Record<string, boolean>;
}

export function initialApprovalsUi(): ApprovalsUi {
  return { drafts: {}, reveal: null, revoking: {} };
}

export const approvalsStore = createStore<ApprovalsUi>(initialApprovalsUi());

const NO_DRAFT: ApprovalDraft = { scope: APPROVAL_SCOPES[0], reasonOpen: false, reason: "", spawn: null };

export function draftOf(ui: ApprovalsUi, requestId: string): ApprovalDraft {
  return ui.drafts[requestId] ?? NO_DRAFT;
}

export function patchDraft(requestId: string, patch: Partial<ApprovalDraft>): void {
  approvalsStore.set((s) => ({ ...s, drafts: { ...s.drafts, [requestId]: { ...draftOf(s, requestId), ...patch } } }));
}

const planForms = new WeakMap<SpawnPlan, SpawnDraft>();

/** The spawn form of a request: as the person left it, or as planned (the same object each time). */
export function spawnFormOf(ui: ApprovalsUi, requestId: string, plan: SpawnPlan): SpawnDraft {
  const edited = draftOf(ui, requestId).spawn;
  if (edited) return edited;
  let form = planForms.get(plan);
  if (!form) {
    form = spawnDraft(plan);
    planForms.set(plan, form);
  }
  return form;
}

/** Drops the drafts of answered requests. */
export function forgetDrafts(requestIds: readonly string[]): void {
  approvalsStore.set((s) => {
    if (!requestIds.some((id) => id in s.drafts)) return s;
    const drafts = { ...s.drafts };
    for (const id of requestIds) delete drafts[id];
    return { ...s, drafts };
  });
}

export function requestReveal(requestId: string | null): void {
  approvalsStore.set((s) => (s.reveal === requestId ? s : { ...s, reveal: requestId }));
}

export function setRevoking(ruleId: string, on: boolean): void {
  approvalsStore.set((s) => {
    if (!!s.revoking[ruleId] === on) return s;
    const revoking = { ...s.revoking };
    if (on) revoking[ruleId] = true;
    else delete revoking[ruleId];
    return { ...s, revoking };
  });
}

// ---- Derived from a session state ----

const byAgentMemo = new WeakMap<Approval[], Record<AgentId, Approval[]>>();

/** Each agent's pending requests, oldest first. */
export function pendingByAgent(state: SessionState): Record<AgentId, Approval[]> {
  const list = pendingApprovals(state);
  let out = byAgentMemo.get(list);
  if (!out) {
    out = {};
    for (const a of list) (out[a.agentId] ??= []).push(a);
    byAgentMemo.set(list, out);
  }
  return out;
}

const NONE: Approval[] = [];

export function pendingOfAgent(state: SessionState, agentId: AgentId): Approval[] {
  return pendingByAgent(state)[agentId] ?? NONE;
}

/** How a person names an agent: its description, else the last step of a request's path, else its id. */
export function agentName(node: AgentNode | undefined, fallback: string): string {
  return node?.known ? node.description || fallback : fallback;
}

/** The tool and agent a request is read with ("Write", "Update changelog"). */
export function requestNames(state: SessionState, approval: Approval): RuleNames {
  return {
    tool: toolDisplayName(approval.toolName, approvalMcp(state, approval)),
    agent: approvalAgentLabel(state.agents[approval.agentId], approval).description,
  };
}

/** The names a rule is read with, from the request whose answer set it. */
export function ruleNames(state: SessionState, rule: ApprovalRule): RuleNames {
  const request = state.approvals[rule.request_id];
  if (request) return requestNames(state, request);
  return { tool: rule.tool, agent: agentName(state.agents[rule.agent_id], rule.agent_id) };
}

/** A live session as a card, a notification or the sessions list names it: its first prompt. */
export function sessionName(state: SessionState): string {
  const prompt = mainAgent(state)?.prompt;
  return prompt ? `“${oneLine(prompt, 60)}”` : "a new session";
}

// Marks are rebuilt when anything they read changes; the same words keep the same object.
const markMemo = new WeakMap<object, DecisionMark | null>();

function stable(key: object, mark: DecisionMark | null): DecisionMark | null {
  const prev = markMemo.get(key);
  if (
    prev !== undefined &&
    (prev === mark ||
      (prev !== null &&
        mark !== null &&
        prev.kind === mark.kind &&
        prev.approved === mark.approved &&
        prev.text === mark.text &&
        prev.detail === mark.detail))
  ) {
    return prev;
  }
  markMemo.set(key, mark);
  return mark;
}

/** What let a tool call run or refused it: a person's answer, a rule, the policy; null while nothing has. */
export function decisionOf(state: SessionState, item: ToolItem): DecisionMark | null {
  const approval = item.approval ? state.approvals[item.approval.requestId] : undefined;
  const by = item.decidedBy ?? approval?.decidedBy ?? null;
  let mark: DecisionMark | null = null;
  if (by?.kind === "person") {
    const approved = approval?.state === "approved" ? true : approval?.state === "denied" ? false : null;
    const rule = approval?.rule ?? null;
    mark = personMark(approved, approval?.reason ?? null, rule ? ruleLabel(rule, ruleNames(state, rule)) : null);
  } else if (by?.kind === "rule") {
    mark = ruleMark({ rule: by.rule, names: ruleNames(state, by.rule), revokedAt: state.revokedRules[by.rule.rule_id] ?? null });
  } else if (by?.kind === "policy") {
    mark = policyMark();
  } else if (by?.kind === "hook") {
    mark = hookMark(by.hook_event, by.source, !item.isError);
  } else if (by?.kind === "setting") {
    mark = settingMark(by.rule, by.source, !item.isError);
  }
  return stable(item, mark);
}

/** The mark of an agent's latest tool call, for its line in the tree. */
export function lastToolDecision(state: SessionState, agentId: AgentId): DecisionMark | null {
  const node = state.agents[agentId];
  const index = node?.lastToolCall ? node.callIndex[node.lastToolCall] : undefined;
  const item = index === undefined ? undefined : node?.items[index];
  return item?.kind === "tool" ? decisionOf(state, item) : null;
}

/** A rule in force as the list shows it. */
export interface RuleRow {
  rule: ApprovalRule;
  names: RuleNames;
}

const rowsMemo = new WeakMap<ApprovalRule[], { approvals: Record<string, Approval>; rows: RuleRow[] }>();

/** The rules in force with the names they are read with. */
export function ruleRows(state: SessionState): RuleRow[] {
  const hit = rowsMemo.get(state.rules);
  if (hit && hit.approvals === state.approvals) return hit.rows;
  const rows = state.rules.map((rule) => ({ rule, names: ruleNames(state, rule) }));
  rowsMemo.set(state.rules, { approvals: state.approvals, rows });
  return rows;
}
