/**
 * An import of Claude Code's transcripts, in words: its sessions counted by
 * outcome ("2 added, 5 unchanged"), what it read, each problem as
 * "file:line: message", and the bookkeeping rows it did not keep, in one
 * line. Pure; tested without Tauri.
 */
import type { ImportOutcome, ImportProblem, ImportReport, ImportedSession } from "../bindings";

export type OutcomeCounts = Record<ImportOutcome, number>;

// Every outcome Rust has must have words here: a new one fails the typecheck until it does.
const OUTCOME_LABELS: Record<ImportOutcome, string> = {
  added: "added",
  updated: "updated",
  unchanged: "unchanged",
  failed: "not stored",
};

export function outcomeLabel(outcome: ImportOutcome): string {
  return OUTCOME_LABELS[outcome];
}

/** How many sessions had each outcome. */
export function outcomeCounts(sessions: readonly ImportedSession[]): OutcomeCounts {
  // Every outcome Rust has is counted: a new one fails the typecheck here until it is.
  const counts: OutcomeCounts = { added: 0, updated: 0, unchanged: 0, failed: 0 };
  for (const s of sessions) counts[s.outcome] += 1;
  return counts;
}

/**
 * "2 added, 5 unchanged": added and unchanged always (an import again says
 * "0 added, N unchanged"), updated and failed when there are any.
 */
export function importSummary(report: Pick<ImportReport, "sessions">): string {
  const c = outcomeCounts(report.sessions);
  const parts = [`${c.added} added`];
  if (c.updated > 0) parts.push(`${c.updated} updated`);
  parts.push(`${c.unchanged} unchanged`);
  if (c.failed > 0) parts.push(`${c.failed} failed`);
  return parts.join(", ");
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/** "1,234 events stored · 3 subagents · 2.1 MB read in 340 ms". */
export function importFigures(report: ImportReport): string {
  const events = report.sessions.reduce((n, s) => n + s.events, 0);
  const subagents = report.sessions.reduce((n, s) => n + s.subagents, 0);
  const parts = [`${plural(events, "event")} stored`];
  if (subagents > 0) parts.push(plural(subagents, "subagent"));
  parts.push(`${formatBytes(report.bytes)} read in ${formatMs(report.elapsed_ms)}`);
  return parts.join(" · ");
}

/** "12 B", "3.4 KB", "2.1 MB", "1.05 GB" (powers of 1024). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i] ?? "TB"}`;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "projects/-home-me-pond/abc.jsonl:12: not JSON"; a problem with the whole file has no line. */
export function problemLine(p: ImportProblem): string {
  return `${p.file}${p.line === null ? "" : `:${p.line}`}: ${p.message}`;
}

/**
 * The rows of Claude Code's own bookkeeping that were not kept, most first
 * ("12 queue-operation, 3 summary"); null when there were none.
 */
export function skippedLine(skipped: Readonly<Record<string, number>>): string | null {
  const rows = Object.entries(skipped).filter(([, n]) => n > 0);
  if (rows.length === 0) return null;
  rows.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return rows.map(([kind, n]) => `${n.toLocaleString("en-US")} ${kind}`).join(", ");
}

/** An imported session's line in the report: its subagents and the events stored. */
export function importedSessionMeta(s: ImportedSession): string {
  const parts: string[] = [];
  if (s.subagents > 0) parts.push(`+${plural(s.subagents, "subagent")}`);
  if (s.outcome !== "unchanged" && s.outcome !== "failed") parts.push(plural(s.events, "event"));
  return parts.join(" · ");
}
