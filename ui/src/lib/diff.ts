/**
 * Line diffs as a person reads them: the lines of two texts marked added,
 * removed or context (the `diff` package compares them), and a long diff
 * folded to its hunks, each with a few lines of context, the unchanged
 * stretches between them counted. Pure; tested without React.
 */
import { diffLines } from "diff";

export type DiffKind = "add" | "del" | "ctx";

export interface DiffLine {
  kind: DiffKind;
  text: string;
}

const withNewline = (s: string) => (s === "" || s.endsWith("\n") ? s : `${s}\n`);

/** `before` → `after`, line by line. An empty `before` (a new file) makes every line added. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  // Compare whole lines: a last line without "\n" is the same line as one with it.
  for (const part of diffLines(withNewline(before), withNewline(after))) {
    const kind: DiffKind = part.added ? "add" : part.removed ? "del" : "ctx";
    if (part.value === "") continue;
    const lines = part.value.endsWith("\n") ? part.value.slice(0, -1).split("\n") : part.value.split("\n");
    for (const text of lines) out.push({ kind, text });
  }
  return out;
}

/** A row of a folded diff: a line (with its index in the whole diff), or a stretch of unchanged lines left out. */
export type DiffRow = { kind: "line"; index: number; line: DiffLine } | { kind: "fold"; index: number; count: number };

/** Lines of context kept around each change. */
export const DIFF_CONTEXT = 3;
/** Diffs longer than this fold to their hunks until the person asks for all. */
export const FOLD_OVER = 40;

/**
 * The diff's rows with unchanged stretches longer than twice the context (or
 * than the context, at either end) folded; every line when nothing is foldable.
 */
export function foldDiff(lines: readonly DiffLine[], context = DIFF_CONTEXT): DiffRow[] {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.kind === "ctx") return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = true;
  });
  // Nothing changed: nothing to fold to.
  if (!keep.includes(true)) return lines.map((line, index) => ({ kind: "line", index, line }));
  const rows: DiffRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line === undefined) break;
    if (keep[i]) {
      rows.push({ kind: "line", index: i, line });
      i += 1;
      continue;
    }
    const start = i;
    while (i < lines.length && !keep[i]) i += 1;
    rows.push({ kind: "fold", index: start, count: i - start });
  }
  return rows;
}

/** How many lines were added and removed. */
export function diffCounts(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === "add") added += 1;
    else if (l.kind === "del") removed += 1;
  }
  return { added, removed };
}
