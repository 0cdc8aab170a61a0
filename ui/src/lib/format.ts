/** Number, duration, cost and status formatting for compact labels. */
import type { AgentStatus, SessionStatus } from "../bindings";

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 2 : 1)}M`;
}

export function formatCost(usd: number | null): string | null {
  if (usd === null) return null;
  if (usd === 0) return "$0";
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/** "1 turn", "3 turns". */
export function formatTurns(n: number): string {
  return `${n} turn${n === 1 ? "" : "s"}`;
}

/** A result's figures: the run's own, and the agent's over every run so far. */
export interface ResultFigures {
  /** Which run it ended (1-based), of how many so far. */
  run: number;
  runs: number;
  /** It ended the agent's latest run, and no other has begun. */
  latest: boolean;
  /** The run's own turns and duration (its agent_finished's). */
  turns: number;
  durationMs: number;
  /** The agent's turns and wall time over every run. */
  allTurns: number;
  allMs: number;
}

/**
 * A result's line: the agent's totals on its latest result ("3 turns · 42s",
 * with "run 2 of 2 · … in all runs" after a resume), an earlier run's own
 * figures on its result ("run 1 of 2 · 1 turn · 5s this run").
 */
export function resultMeta(f: ResultFigures): string {
  if (f.runs <= 1) return `${formatTurns(f.allTurns)} · ${formatDuration(f.allMs)}`;
  const run = `run ${f.run} of ${f.runs}`;
  if (f.latest) return `${run} · ${formatTurns(f.allTurns)} · ${formatDuration(f.allMs)} in all runs`;
  return `${run} · ${formatTurns(f.turns)} · ${formatDuration(f.durationMs)} this run`;
}

/** "a", "a or b", "a, b or c". */
export function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} or ${items.at(-1) ?? ""}`;
}

// Every status Rust has must have words here: a new one fails the typecheck until it does.
const STATUS_LABELS: Record<AgentStatus, string> = {
  queued: "queued",
  running: "running",
  waiting_approval: "waiting for approval",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  max_turns: "turn limit reached",
  truncated: "cut off",
  interrupted: "interrupted",
  budget_exhausted: "budget exhausted",
};

/** A session status is one of the agent statuses (the main agent's). */
export function statusLabel(status: AgentStatus | SessionStatus): string {
  return STATUS_LABELS[status];
}

/**
 * How a finished run reads at a glance: done, failed, stopped at a limit
 * (turns, output tokens; it can carry on), stopped by its budget or an
 * ancestor's (raising it carries on), or stopped otherwise.
 */
export type EndTone = "done" | "failed" | "limit" | "budget" | "stopped";

const END_TONES: Record<AgentStatus, EndTone> = {
  completed: "done",
  failed: "failed",
  max_turns: "limit",
  truncated: "limit",
  cancelled: "stopped",
  interrupted: "stopped",
  budget_exhausted: "budget",
  // Not an end; listed so that every status has a tone.
  queued: "stopped",
  running: "stopped",
  waiting_approval: "stopped",
};

export function endTone(status: AgentStatus): EndTone {
  return END_TONES[status];
}

/** Characters of a tool's output shown before "Show all": long outputs would make every render lay out megabytes. */
export const OUTPUT_PREVIEW = 4000;

/**
 * The part of a tool's output to show: all of it when short or asked for;
 * otherwise its start once the call is done, or its latest end while it streams.
 */
export function clipOutput(text: string, live: boolean, full: boolean): { text: string; hidden: number } {
  if (full || text.length <= OUTPUT_PREVIEW) return { text, hidden: 0 };
  const hidden = text.length - OUTPUT_PREVIEW;
  return { text: live ? `…${text.slice(hidden)}` : `${text.slice(0, OUTPUT_PREVIEW)}…`, hidden };
}
