/**
 * The mark on a tool call (in its output card and on its agent's line in the
 * tree) of what let it run or refused it: "approved by you", "denied by you:
 * <reason>", "allowed by rule: Write for “main” and all its subagents · set
 * 14:02 by your answer to “main”'s Write", "by policy".
 */
import type { DecisionMark as Mark } from "../../lib/approvals";
import { IconCheck, IconHand, IconSlash } from "../icons";

/** `compact`: on one line, cut to the width (the tree); the whole mark is in its title. */
export function DecisionMark({ mark, compact = false }: { mark: Mark; compact?: boolean }) {
  const tone = mark.approved === null ? "neutral" : mark.approved ? "allowed" : "refused";
  const title = mark.detail ? `${mark.text}\n${mark.detail}` : mark.text;
  return (
    <span
      className={`decided ${mark.kind} ${tone}${compact ? " compact" : ""}`}
      data-testid="decided-by"
      data-kind={mark.kind}
      title={title}
    >
      {mark.kind === "policy" ? <IconHand size={11} /> : mark.approved === false ? <IconSlash size={11} /> : <IconCheck size={11} />}
      <span className="decided-text">{mark.text}</span>
      {mark.detail ? <span className="decided-detail">{compact ? `· ${mark.detail}` : mark.detail}</span> : null}
    </span>
  );
}
