/**
 * File changes and worktrees as a person reads them, pure and tested without
 * React: the change and worktree shapes taken from their events, the session's
 * changes merged, grouped by agent and summed, what a diff can show of each
 * side, the words for a revert's outcome, a worktree's state and files, and
 * the Delegate… form's isolation choice. Which agent made a change, whether it
 * is ambiguous, and what a revert or a merge did are Rust's word: nothing here
 * decides them, it only says them.
 */
import { isOneOf } from "./choice";
import {
  OPEN_WORKTREE_STATES,
  type AgentChange,
  type AgentEvent,
  type AgentId,
  type FileChanged,
  type Isolation,
  type Kept,
  type RevertOutcome,
  type WorktreeFile,
  type WorktreeState,
  type WorktreeUpdate,
} from "../bindings";

type FileChangedEvent = Extract<AgentEvent, { type: "file_changed" }>;
type WorktreeEvent = Extract<AgentEvent, { type: "worktree" }>;

/** The change an event carries, its optional lists filled (absent: none). */
export function fileChangedOf(ev: FileChangedEvent): FileChanged {
  return {
    change_id: ev.change_id,
    call_id: ev.call_id,
    root: ev.root,
    path: ev.path,
    kind: ev.kind,
    before_hash: ev.before_hash,
    after_hash: ev.after_hash,
    lines_added: ev.lines_added,
    lines_removed: ev.lines_removed,
    before: ev.before,
    after: ev.after,
    ambiguous_with: ev.ambiguous_with ?? [],
    revert_of: ev.revert_of ?? [],
  };
}

/** The worktree update an event carries, its optional lists filled (absent: none). */
export function worktreeUpdateOf(ev: WorktreeEvent): WorktreeUpdate {
  return {
    state: ev.state,
    branch: ev.branch,
    path: ev.path,
    parent_root: ev.parent_root,
    base: ev.base,
    files: ev.files ?? [],
    conflicts: ev.conflicts ?? [],
  };
}

/** `a` and `b` merged by seq, one change per seq (the one in `a` wins); `a` itself when `b` adds nothing. */
export function mergeChanges(a: AgentChange[], b: readonly AgentChange[]): AgentChange[] {
  const seen = new Set(a.map((c) => c.seq));
  const extra = b.filter((c) => !seen.has(c.seq));
  if (extra.length === 0) return a;
  const out = [...a];
  const added = new Set<number>();
  for (const c of extra) {
    if (added.has(c.seq)) continue;
    added.add(c.seq);
    out.push(c);
  }
  return out.sort((x, y) => x.seq - y.seq);
}

/** Each agent's changes, in the order given. */
export function groupByAgent(changes: readonly AgentChange[]): Record<AgentId, AgentChange[]> {
  const out: Record<AgentId, AgentChange[]> = {};
  for (const c of changes) (out[c.agent_id] ??= []).push(c);
  return out;
}

/** The changes of the given agents, in the order given. */
export function ofAgents(changes: readonly AgentChange[], ids: ReadonlySet<AgentId>): AgentChange[] {
  return changes.filter((c) => ids.has(c.agent_id));
}

/** `id` and every agent under it (through `children`), cycles ignored. */
export function subtreeIds(agents: Readonly<Record<AgentId, { children: readonly AgentId[] }>>, id: AgentId): Set<AgentId> {
  const out = new Set<AgentId>();
  const stack = [id];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === undefined || out.has(next)) continue;
    out.add(next);
    for (const child of agents[next]?.children ?? []) stack.push(child);
  }
  return out;
}

/**
 * How many different files the changes touched: a file by its path in its tree,
 * so one made in a worktree and merged into its parent's tree (the same path in
 * two trees) counts once, and a person's revert of it adds none.
 */
export function filesChanged(changes: readonly AgentChange[]): number {
  return new Set(changes.filter((c) => !isRevert(c.change)).map((c) => c.change.path)).size;
}

/** The number of different files each agent changed. */
export function fileCounts(changes: readonly AgentChange[]): Record<AgentId, number> {
  const out: Record<AgentId, number> = {};
  for (const [id, list] of Object.entries(groupByAgent(changes))) out[id] = filesChanged(list);
  return out;
}

/** Lines added and removed over the changes. */
export function lineTotals(changes: readonly AgentChange[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const c of changes) {
    added += c.change.lines_added;
    removed += c.change.lines_removed;
  }
  return { added, removed };
}

/** A person's revert of earlier changes (Rust marks it with what it undid). */
export function isRevert(change: FileChanged): boolean {
  return (change.revert_of ?? []).length > 0;
}

/** Other agents that ran commands in the same tree at the same time: the change may be theirs. */
export function ambiguousWith(change: FileChanged): AgentId[] {
  return change.ambiguous_with ?? [];
}

/** The ids of the changes a later revert undid. */
export function revertedIds(changes: readonly AgentChange[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const c of changes) for (const id of c.change.revert_of ?? []) out.add(id);
  return out;
}

/** "+3 −1". */
export function countsText(added: number, removed: number): string {
  return `+${added} −${removed}`;
}

/** "modified src/a.rs +3 −1": the inline line of a change (after its ✎). */
export function changeLine(change: FileChanged): string {
  return `${change.kind} ${change.path} ${countsText(change.lines_added, change.lines_removed)}`;
}

/** "2 files changed · +5 −1" over some changes. */
export function changesSummary(changes: readonly AgentChange[]): string {
  const files = filesChanged(changes);
  const { added, removed } = lineTotals(changes);
  return `${files} file${files === 1 ? "" : "s"} changed · ${countsText(added, removed)}`;
}

/** How an ambiguous change is attributed: to its agent and, as much, to the others named. */
export function ambiguousText(others: readonly string[]): string {
  const who = others.length <= 1 ? (others[0] ?? "") : `${others.slice(0, -1).join(", ")} and ${others.at(-1) ?? ""}`;
  const verb = others.length === 1 ? "was" : "were";
  return `Ambiguous: ${who} ${verb} running commands in the same tree at the same time and may have made this change (it may be theirs, not only this agent's)`;
}

/** "12 B", "3.4 KB", "1.2 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** The size of the bytes a base64 text holds. */
export function base64Bytes(b64: string): number {
  const clean = b64.replace(/\s/g, "");
  const pad = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

/** One side of a change as the diff can show it: its text (none when absent), or a note why not. */
export type SideView = { kind: "text"; text: string } | { kind: "note"; note: string };

export function sideView(kept: Kept): SideView {
  switch (kept.kind) {
    case "absent":
      return { kind: "text", text: "" };
    case "text":
      return { kind: "text", text: kept.text };
    case "binary":
      return { kind: "note", note: `binary file (${formatBytes(base64Bytes(kept.base64))}), no text to compare` };
    case "not_kept":
      return { kind: "note", note: `not kept (${formatBytes(kept.bytes)}): ${kept.reason}` };
  }
}

/** What a change's diff shows: both sides' texts, or notes for the sides that are not text. */
export type ChangeDiff = { kind: "diff"; before: string; after: string } | { kind: "notes"; notes: string[] };

export function changeDiff(change: FileChanged): ChangeDiff {
  const before = sideView(change.before);
  const after = sideView(change.after);
  if (before.kind === "text" && after.kind === "text") return { kind: "diff", before: before.text, after: after.text };
  const notes: string[] = [];
  if (before.kind === "note") notes.push(`Before: ${before.note}.`);
  if (after.kind === "note") notes.push(`After: ${after.note}.`);
  return { kind: "notes", notes };
}

const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;

/** A revert's answer in words: every file reverted, or (any conflict) none. */
export function revertSummary(outcome: RevertOutcome): { ok: boolean; text: string } {
  if (outcome.conflicts.length > 0) {
    return {
      ok: false,
      text: `Nothing was reverted: ${files(outcome.conflicts.length)} cannot be reverted as they are now.`,
    };
  }
  if (outcome.reverted.length === 0) return { ok: true, text: "Nothing to revert." };
  return { ok: true, text: `Reverted ${files(outcome.reverted.length)}.` };
}

// ---- Worktrees ----

/** Each worktree state (Rust's list), in words for the tree's badge. */
export const WORKTREE_STATE_LABELS: Readonly<Record<WorktreeState, string>> = {
  created: "in worktree",
  ready: "ready to merge",
  removed: "no changes",
  merged: "merged",
  conflicted: "merge conflicts",
  kept: "branch kept",
  discarded: "discarded",
};

/** A worktree a person may still act on (merge, keep, discard): Rust's list. */
export function isOpenWorktree(state: WorktreeState): boolean {
  return isOneOf(OPEN_WORKTREE_STATES, state);
}

/**
 * Whether a person may act on an agent's worktree now: a finished one waiting
 * for a decision, or one whose agent ended without finishing it (its process
 * died, or it was stopped): its work may still be there, uncommitted.
 */
export function worktreeActionable(state: WorktreeState, agentEnded: boolean): boolean {
  return isOpenWorktree(state) || (state === "created" && agentEnded);
}

/** "3 files, +12 −4". */
export function worktreeFilesSummary(list: readonly WorktreeFile[]): string {
  let added = 0;
  let removed = 0;
  for (const f of list) {
    added += f.lines_added;
    removed += f.lines_removed;
  }
  return `${files(list.length)}, ${countsText(added, removed)}`;
}

// ---- Isolation (the Delegate… form) ----

/** Each isolation a delegation may ask for (Rust's list), in words. */
export const ISOLATION_LABELS: Readonly<Record<Isolation, string>> = {
  shared: "Shared tree",
  worktree: "Own git worktree (changes come back on a branch to merge)",
};

/** What the delegation sends: null for the shared tree (the default), else the choice. */
export function isolationRequest(isolation: Isolation): Isolation | null {
  return isolation === "shared" ? null : isolation;
}

/**
 * Where a change of an agent with a worktree was made: in its worktree, or in
 * its parent's tree by merging its branch; null for an agent without one.
 */
/**
 * Whether a change can still be put back: not a revert itself, and not one made
 * in a worktree that is gone (merged, kept as a branch or discarded: its tree is
 * no longer there to write to; a merged change is reverted where it was merged).
 */
export function revertable(change: FileChanged, worktree: WorktreeUpdate | null): boolean {
  if (isRevert(change)) return false;
  return !(changePlace(change, worktree) === "worktree" && worktree !== null && !worktreeActionable(worktree.state, true));
}

export function changePlace(change: FileChanged, worktree: WorktreeUpdate | null): "worktree" | "merged" | null {
  if (worktree === null) return null;
  if (change.root === worktree.path || change.root.startsWith(`${worktree.path}/`)) return "worktree";
  if (change.root === worktree.parent_root && change.call_id === null && !isRevert(change)) return "merged";
  return null;
}
