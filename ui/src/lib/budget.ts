/**
 * Budgets in words: the limits of a Budget, how a subtree stands against them
 * (the figures Rust computed and sent in a BudgetStanding, never re-derived
 * here), a meter's fill, tone and label, a budget warning's line, and where a
 * budget came from. Pure; tested without Tauri. The kinds, the field holding
 * each one's limit, origins and the warning share are Rust's (BUDGET_KINDS,
 * BUDGET_LIMIT_FIELDS, BUDGET_ORIGINS, BUDGET_WARNING_FRACTION).
 */
import {
  BUDGET_KINDS,
  BUDGET_LIMIT_FIELDS,
  BUDGET_WARNING_FRACTION,
  type Budget,
  type BudgetKind,
  type BudgetOrigin,
  type BudgetStanding,
} from "../bindings";

/** The Budget field that holds each kind's limit (Rust's BUDGET_LIMIT_FIELDS, in the order of BUDGET_KINDS). */
const LIMIT_FIELDS: readonly (keyof Budget)[] = BUDGET_LIMIT_FIELDS;
export const BUDGET_LIMIT_KEYS = Object.fromEntries(BUDGET_KINDS.map((k, i) => [k, LIMIT_FIELDS[i]])) as Readonly<
  Record<BudgetKind, keyof Budget>
>;

/** Each kind as a sentence names it ("82% of wall time used"). */
export const BUDGET_KIND_WORDS: Readonly<Record<BudgetKind, string>> = {
  tokens: "tokens",
  cost: "cost",
  duration: "wall time",
  subagents: "subagents",
};

/** The limit a budget sets for `kind`; null when it sets none. */
export function limitOf(budget: Budget | null | undefined, kind: BudgetKind): number | null {
  return budget?.[BUDGET_LIMIT_KEYS[kind]] ?? null;
}

/** The kinds a budget limits, in Rust's order. */
export function limitedKinds(budget: Budget | null | undefined): BudgetKind[] {
  return BUDGET_KINDS.filter((k) => limitOf(budget, k) !== null);
}

/** 12400 → "12,400". */
export function thousands(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

/** Dollars with cents: "$0.41". */
export function dollars(usd: number): string {
  return `$${usd.toFixed(2)}`;
}

/** A span as Rust's messages say it: "850 ms", "42 s", "3 min 05 s", "1 h 02 min". */
export function durationWords(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s === 0) return `${Math.round(ms)} ms`;
  if (s < 10) return `${(ms / 1000).toFixed(1)} s`;
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/** One limit in words: "10,000 tokens", "$2.00", "10 min 00 s", "5 subagents". */
export function limitWords(kind: BudgetKind, limit: number): string {
  switch (kind) {
    case "tokens":
      return `${thousands(limit)} tokens`;
    case "cost":
      return dollars(limit);
    case "duration":
      return durationWords(limit * 1000);
    case "subagents":
      return `${limit} subagent${limit === 1 ? "" : "s"}`;
  }
}

/** A budget's limits: "10,000 tokens · $2.00 · 10 min 00 s · 5 subagents", or "no limits". */
export function describeBudget(budget: Budget | null | undefined): string {
  const parts = limitedKinds(budget).map((k) => limitWords(k, limitOf(budget, k) ?? 0));
  return parts.length === 0 ? "no limits" : parts.join(" · ");
}

/** The share of its nearest limit a standing shows (Rust's `fraction`; nothing sent reads as nothing used). */
export function standingFraction(standing: BudgetStanding): number {
  const f = standing.fraction ?? 0;
  return Number.isFinite(f) ? Math.max(0, f) : 0;
}

/** The share as a whole percent: 0.823 → 82. */
export function percent(fraction: number): number {
  return Math.round(fraction * 100);
}

/** How much of a meter is filled: the share, at most all of it. */
export function meterFill(standing: BudgetStanding): number {
  return Math.min(standingFraction(standing), 1);
}

/** How a meter looks: a limit ran out, past the share at which agents are told to wrap up, or neither. */
export type MeterTone = "ok" | "warn" | "exhausted";

export function meterTone(standing: BudgetStanding): MeterTone {
  if (standing.exhausted !== null) return "exhausted";
  return standingFraction(standing) >= BUDGET_WARNING_FRACTION ? "warn" : "ok";
}

/** "Budget: 82% of tokens used", and which limit ran out when one did. */
export function meterLabel(standing: BudgetStanding): string {
  if (standing.nearest === null) return "Budget: no limits";
  const used = `Budget: ${percent(standingFraction(standing))}% of ${BUDGET_KIND_WORDS[standing.nearest]} used`;
  return standing.exhausted === null ? used : `${used}; ${BUDGET_KIND_WORDS[standing.exhausted]} ran out`;
}

/** What a subtree used of one limit, and the limit, in words (cache reads beside the tokens). */
function figuresOf(standing: BudgetStanding, kind: BudgetKind): { used: string; limit: string; extra: string } {
  const { used } = standing;
  const limit = limitOf(standing.budget, kind) ?? 0;
  switch (kind) {
    case "tokens": {
      const extra = used.cache_read_tokens > 0 ? ` (and ${thousands(used.cache_read_tokens)} cache reads)` : "";
      return { used: thousands(used.tokens), limit: thousands(limit), extra };
    }
    case "cost":
      return { used: dollars(used.cost_usd ?? 0), limit: dollars(limit), extra: "" };
    case "duration":
      return { used: durationWords(used.elapsed_ms), limit: durationWords(limit * 1000), extra: "" };
    case "subagents":
      return { used: String(used.subagents), limit: String(limit), extra: "" };
  }
}

/** The unit a kind's figures are followed by in a sentence ("8,000 of 10,000 tokens"). */
const UNITS: Readonly<Record<BudgetKind, string>> = {
  tokens: " tokens",
  cost: "",
  duration: " wall time",
  subagents: " subagents",
};

/** The figures of one limit as Rust's messages give them: "8,200 of 10,000 tokens (and 1,200 cache reads)". */
export function limitFigures(standing: BudgetStanding, kind: BudgetKind): string {
  const f = figuresOf(standing, kind);
  return `${f.used} of ${f.limit}${UNITS[kind]}${f.extra}`;
}

/** Whether the cost figure leaves out responses of models whose price is unknown. */
export function costIncomplete(standing: BudgetStanding): boolean {
  return standing.used.cost_incomplete && limitOf(standing.budget, "cost") !== null;
}

/** Each kind as a meter's tooltip heads its line. */
const LINE_LABELS: Readonly<Record<BudgetKind, string>> = {
  tokens: "Tokens",
  cost: "Cost",
  duration: "Wall time",
  subagents: "Subagents",
};

/**
 * Every limit with its figures, one per line, for a meter's tooltip:
 * "Tokens 8,200 of 10,000 (and 1,200 cache reads)", "Cost $0.41 of $2.00", …
 */
export function standingLines(standing: BudgetStanding): string[] {
  const kinds = limitedKinds(standing.budget);
  if (kinds.length === 0) return ["No limits"];
  const lines = kinds.map((k) => {
    const f = figuresOf(standing, k);
    return `${LINE_LABELS[k]} ${f.used} of ${f.limit}${f.extra}${k === standing.exhausted ? " (ran out)" : ""}`;
  });
  if (costIncomplete(standing)) lines.push("Cost: some models' prices are unknown");
  return lines;
}

/** "4,200 / 10,000 tokens": the nearest limit's figures, short; null without limits. */
export function nearestShort(standing: BudgetStanding): string | null {
  const kind = standing.nearest;
  if (kind === null) return null;
  const f = figuresOf(standing, kind);
  return `${f.used} / ${f.limit}${kind === "duration" ? "" : UNITS[kind]}`;
}

/** "Budget 42% · 4,200 / 10,000 tokens", or "Budget: no limits". */
export function standingShort(standing: BudgetStanding): string {
  const nearest = nearestShort(standing);
  if (nearest === null) return "Budget: no limits";
  return `Budget ${percent(standingFraction(standing))}% · ${nearest}`;
}

/** A budget_warning as the output's line says it: passed 80%, or (standing exhausted) ran out. */
export function warningText(kind: BudgetKind, standing: BudgetStanding): string {
  if (standing.exhausted) {
    return `Budget ran out: ${limitFigures(standing, kind)} — its subtree was stopped`;
  }
  return `Budget ${percent(standingFraction(standing))}% used: ${limitFigures(standing, kind)} — its agents were told to wrap up`;
}

/** Who gave an agent its budget (Rust's list), in words. */
export const BUDGET_ORIGIN_WORDS: Readonly<Record<BudgetOrigin, string>> = {
  session: "the session's budget (Settings)",
  subagent_default: "every subagent's budget (Settings)",
  agent_type: "its agent type's file",
  task_call: "the Task call that started it",
  delegation: "you, when you delegated it",
  person: "you, while it ran",
};

/** "From the Task call that started it; tokens cut to what was left above it." */
export function budgetSource(origin: BudgetOrigin, carved: readonly BudgetKind[]): string {
  const from = `From ${BUDGET_ORIGIN_WORDS[origin]}`;
  if (carved.length === 0) return `${from}.`;
  const kinds = carved.map((k) => BUDGET_KIND_WORDS[k]).join(", ");
  return `${from}; ${kinds} cut to what the budgets above it had left.`;
}
