/** A line diff of two texts (an Edit's old→new string, a Write's content). */
import { diffLines } from "diff";
import { memo, useMemo, useState } from "react";

export interface DiffLine {
  kind: "add" | "del" | "same";
  text: string;
}

const withNewline = (s: string) => (s === "" || s.endsWith("\n") ? s : `${s}\n`);

export function lineDiff(before: string, after: string): DiffLine[] {
  const out: DiffLine[] = [];
  // Compare whole lines: a last line without "\n" is the same line as one with it.
  for (const part of diffLines(withNewline(before), withNewline(after))) {
    const kind = part.added ? "add" : part.removed ? "del" : "same";
    const lines = part.value.endsWith("\n") ? part.value.slice(0, -1).split("\n") : part.value.split("\n");
    for (const text of lines) out.push({ kind, text });
  }
  return out;
}

const LIMIT = 400;

export const DiffView = memo(function DiffView({ before, after }: { before: string; after: string }) {
  const lines = useMemo(() => lineDiff(before, after), [before, after]);
  const [all, setAll] = useState(false);
  const shown = all ? lines : lines.slice(0, LIMIT);
  return (
    <div className="diff" role="table" aria-label="Changes">
      {shown.map((l, i) => (
        <div key={i} className={`diff-line ${l.kind}`} role="row">
          <span className="sign">{l.kind === "add" ? "+" : l.kind === "del" ? "−" : " "}</span>
          <span>{l.text || " "}</span>
        </div>
      ))}
      {lines.length > shown.length ? (
        <div className="diff-more">
          <button type="button" className="btn small" onClick={() => setAll(true)}>
            Show {lines.length - shown.length} more lines
          </button>
        </div>
      ) : null}
    </div>
  );
});
