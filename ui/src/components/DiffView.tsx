/**
 * A line diff of two texts (an Edit's old→new string, a Write's content, an
 * approval's file before→after). Long lines scroll sideways rather than wrap
 * mid-word; a long diff shows its hunks with context, the unchanged stretches
 * folded, until "Show all N lines"; a very long one is cut at LIMIT rows.
 */
import { memo, useMemo, useState } from "react";
import { FOLD_OVER, foldDiff, lineDiff, type DiffRow } from "../lib/diff";

/** Rows drawn before "Show all": a huge diff would lay out megabytes. */
const LIMIT = 400;

const SIGN = { add: "+", del: "−", ctx: " " } as const;

/**
 * How a diff is laid out: in the output, a long diff folds and long lines scroll
 * sideways; in an approval card, only the hunks show, whatever the length, and
 * lines wrap to the card (it must be read whole before an answer).
 */
export type DiffLayout = "output" | "card";

export const DiffView = memo(function DiffView({
  before,
  after,
  testId,
  layout = "output",
}: {
  before: string;
  after: string;
  /** The container's data-testid (an approval's diff is `approval-diff`). */
  testId?: string;
  layout?: DiffLayout;
}) {
  const lines = useMemo(() => lineDiff(before, after), [before, after]);
  const foldOver = layout === "card" ? 0 : FOLD_OVER;
  const folded = useMemo(
    (): DiffRow[] =>
      lines.length > foldOver ? foldDiff(lines) : lines.map((line, index) => ({ kind: "line", index, line })),
    [lines, foldOver],
  );
  const [all, setAll] = useState(false);
  const rows = all ? lines.map((line, index): DiffRow => ({ kind: "line", index, line })) : folded;
  const shown = all ? rows : rows.slice(0, LIMIT);
  const partial = !all && (shown.length < rows.length || rows.some((r) => r.kind === "fold"));
  return (
    <div className={`diff-wrap${layout === "card" ? " wrap-lines" : ""}`} data-testid={testId}>
      <div className="diff" role="table" aria-label="Changes">
        <div className="diff-body">
          {lines.length === 0 ? <div className="diff-fold">No changes</div> : null}
          {shown.map((r) =>
            r.kind === "fold" ? (
              <div key={`f${r.index}`} className="diff-fold" role="row" data-testid="diff-fold">
                ⋯ {r.count} unchanged line{r.count === 1 ? "" : "s"}
              </div>
            ) : (
              <div key={r.index} className={`diff-line ${r.line.kind}`} role="row" data-testid="diff-line" data-kind={r.line.kind}>
                <span className="sign">{SIGN[r.line.kind]}</span>
                <span className="text">{r.line.text || " "}</span>
              </div>
            ),
          )}
        </div>
      </div>
      {partial || all ? (
        <div className="diff-more">
          <button type="button" className="btn small ghost" data-testid="diff-toggle" onClick={() => setAll(!all)}>
            {all ? (folded.length < lines.length ? "Show only the changes" : "Show fewer lines") : `Show all ${lines.length} lines`}
          </button>
        </div>
      ) : null}
    </div>
  );
});
