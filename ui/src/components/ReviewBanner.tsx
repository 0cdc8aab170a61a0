/**
 * The bar over a past session under review: "Past session · <date> · read-only"
 * (an imported one badged with where it came from: "Claude Code"), its prompt
 * and workspace, and the ways out (back to the live session, the history
 * list, or closing the review).
 */
import { closeReview } from "../ipc/history";
import { formatDateTime, oneLine, shortWorkspace, sourceBadge } from "../lib/history";
import { bookStore } from "../store/review";
import { useStore } from "../store/store";
import { patchUi, uiStore } from "../store/ui";
import { IconArrowLeft, IconHistory, IconX } from "./icons";
import { StatusIcon } from "./StatusIcon";

export function ReviewBanner() {
  const summary = useStore(bookStore, (b) => b.review?.detail.session ?? null);
  const live = useStore(uiStore, (s) => s.session !== null);
  if (!summary) return null;
  const source = sourceBadge(summary);
  return (
    <div className="review-banner" data-testid="review-banner" role="status">
      <IconHistory size={15} />
      {source ? (
        <span className="badge source" data-testid="review-source" title={`Imported from ${source}: read-only`}>
          {source}
        </span>
      ) : null}
      <span className="label">
        <strong>{source ? "Imported session" : "Past session"}</strong> · {formatDateTime(summary.started_at)} · read-only
      </span>
      <StatusIcon status={summary.status} />
      <span className="first-prompt" title={summary.first_prompt}>
        {oneLine(summary.first_prompt, 200) || "(no prompt)"}
      </span>
      <span className="where mono" title={summary.workspace}>
        {shortWorkspace(summary.workspace)} · {summary.model}
      </span>
      <span className="spacer" />
      <button type="button" className="btn small" data-testid="review-history" onClick={() => patchUi({ view: "history" })}>
        <IconHistory size={12} /> History
      </button>
      {live ? (
        <button type="button" className="btn small primary" data-testid="back-to-live" onClick={closeReview}>
          <IconArrowLeft size={12} /> Back to live session
        </button>
      ) : (
        <button type="button" className="btn small" data-testid="close-review" title="Close this review" onClick={closeReview}>
          <IconX size={12} /> Close
        </button>
      )}
    </div>
  );
}
