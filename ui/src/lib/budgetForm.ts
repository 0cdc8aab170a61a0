/**
 * The budget fields of a form (Settings, Delegate…, Budget…) as typed: from a
 * Budget to the text shown (wall time in minutes), and back, with what is
 * wrong with a field. An empty field is no limit. The form only checks that a
 * number is one and above zero; Rust validates what it is sent and its error
 * is shown as it says it. Pure; tested without Tauri.
 */
import type { Budget, BudgetKind } from "../bindings";
import { BUDGET_LIMIT_KEYS, limitOf } from "./budget";

/** What each field holds, as typed, by kind. */
export type BudgetFields = Record<BudgetKind, string>;

/** Each field's label and what it may hold. */
export const BUDGET_FIELD_LABELS: Readonly<Record<BudgetKind, { label: string; unit: string; whole: boolean }>> = {
  tokens: { label: "Tokens", unit: "tokens", whole: true },
  cost: { label: "Dollars", unit: "$", whole: false },
  duration: { label: "Wall time", unit: "min", whole: false },
  subagents: { label: "Subagents", unit: "subagents", whole: true },
};

/** Minutes as typed: whole ones plainly, others to two places (90 s → "1.5"). */
function minutesText(seconds: number): string {
  return String(Math.round((seconds / 60) * 100) / 100);
}

/** The fields showing a budget's limits; a limit it does not set shows empty. */
export function budgetFields(budget: Budget | null | undefined): BudgetFields {
  const text = (kind: BudgetKind): string => {
    const v = limitOf(budget, kind);
    if (v === null) return "";
    return kind === "duration" ? minutesText(v) : String(v);
  };
  return { tokens: text("tokens"), cost: text("cost"), duration: text("duration"), subagents: text("subagents") };
}

/** What one field means: no limit, a limit in Budget's units (seconds for wall time), or why it is not one. */
export type FieldValue = { ok: true; limit: number | null } | { ok: false; problem: string };

/** One field's text as its limit; separators people type ("10,000", "$2", "1_000") are allowed. */
export function parseField(kind: BudgetKind, text: string): FieldValue {
  const t = text.trim().replace(/[,_\s]/g, "").replace(/^\$/, "");
  if (t === "") return { ok: true, limit: null };
  const { label, whole } = BUDGET_FIELD_LABELS[kind];
  const n = /^\d*\.?\d+$|^\d+\.$/.test(t) ? Number(t) : Number.NaN;
  if (!Number.isFinite(n) || n <= 0) {
    return { ok: false, problem: `${label}: ${whole ? "a whole number" : "a number"} above 0, or empty` };
  }
  if (whole && !Number.isInteger(n)) return { ok: false, problem: `${label}: a whole number above 0, or empty` };
  if (kind === "duration") {
    const seconds = Math.round(n * 60);
    if (seconds < 1) return { ok: false, problem: `${label}: at least a second (0.02 min), or empty` };
    return { ok: true, limit: seconds };
  }
  return { ok: true, limit: n };
}

/** A form's budget, or what is wrong with its fields (by kind). */
export type ParsedBudget = { ok: true; budget: Budget } | { ok: false; problems: Partial<Record<BudgetKind, string>> };

/**
 * The Budget the fields of `kinds` say; the kinds the form does not show keep
 * `base`'s limits (Settings' subagent defaults show no subagents field, and
 * keep whatever the file says).
 */
export function parseBudget(fields: BudgetFields, kinds: readonly BudgetKind[], base: Budget | null = null): ParsedBudget {
  const budget: Budget = {
    max_tokens: limitOf(base, "tokens"),
    max_cost_usd: limitOf(base, "cost"),
    max_duration_seconds: limitOf(base, "duration"),
    max_subagents: limitOf(base, "subagents"),
  };
  const problems: Partial<Record<BudgetKind, string>> = {};
  for (const kind of kinds) {
    const v = parseField(kind, fields[kind]);
    if (v.ok) budget[BUDGET_LIMIT_KEYS[kind]] = v.limit;
    else problems[kind] = v.problem;
  }
  return Object.keys(problems).length > 0 ? { ok: false, problems } : { ok: true, budget };
}

/** The first problem of a parse, for a form's one error line. */
export function firstProblem(parsed: ParsedBudget): string | null {
  return parsed.ok ? null : (Object.values(parsed.problems)[0] ?? null);
}

/** Whether a budget sets no limit at all. */
export function isUnlimited(budget: Budget): boolean {
  return Object.values(budget).every((v) => v === null || v === undefined);
}

/** What a delegation sends: the budget, or null when the person set no limit (its type's, as Rust decides). */
export function budgetOrNull(budget: Budget): Budget | null {
  return isUnlimited(budget) ? null : budget;
}

/** "New subagents per minute" as typed: a whole number, 0 for no guard; empty keeps Rust's default. */
export function parseSpawnRate(text: string): { ok: true; rate: number | null } | { ok: false; problem: string } {
  const t = text.trim();
  if (t === "") return { ok: true, rate: null };
  if (!/^\d+$/.test(t)) return { ok: false, problem: "New subagents per minute: a whole number (0: no limit)" };
  return { ok: true, rate: Number(t) };
}
