/**
 * The words a person reads about approvals: what each scope option covers
 * (with the tool's and the agent's names, so no option's reach is a guess),
 * a rule, who decided a call (a person, a rule, the policy) and how a request
 * ended, the "approve all" button, and the window title. Pure: the names come
 * in resolved (store/approvals.ts looks them up); tested without React.
 */
import type { ApprovalRule, ApprovalScope, HookEvent } from "../bindings";
import { hookDecidedText } from "./hooks";

/** What an answer with `scope` covers: "Write for “Update changelog” and all its subagents". */
export function scopeLabel(scope: ApprovalScope, tool: string, agent: string): string {
  switch (scope) {
    case "once":
      return "Just this call";
    case "agent":
      return `${tool} for “${agent}”`;
    case "subtree":
      return `${tool} for “${agent}” and all its subagents`;
    case "session":
      return `${tool} anywhere in this session`;
  }
}

/** The names a rule is read with: its tool's, and those of the agent and request it came from. */
export interface RuleNames {
  /** The tool as a person reads it ("Write", "everything · echo"). */
  tool: string;
  /** The description of the agent whose request the answer was to. */
  agent: string;
}

/** What the rule covers, as its scope option said when it was chosen. */
export function ruleLabel(rule: ApprovalRule, names: RuleNames): string {
  return scopeLabel(rule.scope, names.tool, names.agent);
}

/** Where a rule came from: "your answer to “Update changelog”'s Write". */
export function ruleOrigin(names: RuleNames): string {
  return `your answer to “${names.agent}”'s ${names.tool}`;
}

/** "14:02": when a rule was set or revoked, in the person's clock. */
export function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

export type DecisionKind = "person" | "rule" | "policy" | "hook" | "setting";

/** A mark on a tool call: who let it run or refused it, in a person's words. */
export interface DecisionMark {
  kind: DecisionKind;
  /** Ran (true), refused (false), or not known from what decided it (the policy's word). */
  approved: boolean | null;
  /** One line: "approved by you", "denied by you: too risky", "allowed by rule: Write anywhere in this session". */
  text: string;
  /** For a rule: when it was set, by whose answer, and whether it was revoked since. */
  detail: string | null;
}

export interface RuleDecision {
  rule: ApprovalRule;
  names: RuleNames;
  /** When it was revoked, if it was. */
  revokedAt: number | null;
}

/**
 * A person's answer to the call's own request: its outcome and reason, and
 * the rule it set when it reached further than this call (that rule's label).
 */
export function personMark(approved: boolean | null, reason: string | null, setRule: string | null = null): DecisionMark {
  const text =
    approved === null ? "answered by you" : approved ? "approved by you" : reason ? `denied by you: ${reason}` : "denied by you";
  return { kind: "person", approved, text, detail: setRule === null ? null : `and set the rule: ${setRule}` };
}

/** A standing rule's answer: which rule, set when, by whose answer. */
export function ruleMark({ rule, names, revokedAt }: RuleDecision): DecisionMark {
  const verb = rule.approved ? "allowed" : "refused";
  const revoked = revokedAt === null ? "" : ` · revoked ${clockTime(revokedAt)}`;
  return {
    kind: "rule",
    approved: rule.approved,
    text: `${verb} by rule: ${ruleLabel(rule, names)}`,
    detail: `set ${clockTime(rule.created_at)} by ${ruleOrigin(names)}${revoked}`,
  };
}

/** Nobody was asked: the approval policy lets the tool run (or refuses it). */
/** A hook decided: "refused by a PreToolUse hook", its file in the detail. */
export function hookMark(event: HookEvent, source: string, ran: boolean): DecisionMark {
  return { kind: "hook", approved: ran, text: hookDecidedText(event, ran), detail: `defined in ${source}` };
}

/** A settings file's permission rule decided: "allowed by Bash(git diff:*)", its file in the detail. */
export function settingMark(rule: string, source: string, ran: boolean): DecisionMark {
  return { kind: "setting", approved: ran, text: `${ran ? "allowed" : "refused"} by ${rule}`, detail: `a rule of ${source}` };
}

export function policyMark(): DecisionMark {
  return { kind: "policy", approved: null, text: "by policy", detail: "Nobody was asked: the approval policy decided this call" };
}

/** "Approve all 3 from “Update changelog”". */
export function approveAllLabel(count: number, agent: string): string {
  return `Approve all ${count} from “${agent}”`;
}

/** The window title: the live session's pending approvals first, so they show in the task bar. */
export function windowTitle(pending: number): string {
  return pending > 0 ? `(${pending}) Arbor` : "Arbor";
}
