/**
 * The approval inbox's pane, beside every view: every live session's requests
 * (whichever session is displayed) under a header with their count. While
 * nothing waits it folds to a narrow strip with the count (a click opens
 * it); a new request opens it again, and so does a card to bring into view.
 */
import { useEffect } from "react";
import { inboxFolded } from "../../lib/layout";
import { approvalsStore } from "../../store/approvals";
import { pendingIds, ruleGroups } from "../../store/inbox";
import { liveViews } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { setInboxOpen, uiStore } from "../../store/ui";
import { ApprovalInbox } from "../ApprovalInbox";
import { IconChevron, IconInbox } from "../icons";

export const INBOX_PANE_ID = "approvals-pane";

/** Whether the inbox is folded to its strip now (lib/layout.ts says when); for the one layout that shows it. */
export function useInboxFolded(): boolean {
  const pending = useStore(liveViews, pendingIds);
  const choice = useStore(uiStore, (s) => s.inboxChoice);
  const revealing = useStore(approvalsStore, (s) => s.reveal !== null);
  const rules = useStore(liveViews, (v) => ruleGroups(v).length);
  // The card brought into view clears the reveal at once: the inbox it opened stays open, as if clicked.
  useEffect(() => {
    if (revealing) setInboxOpen(true, pendingIds(liveViews.get()));
  }, [revealing]);
  return inboxFolded(choice, pending, revealing, rules);
}

export function InboxPanel({ folded }: { folded: boolean }) {
  const pending = useStore(liveViews, pendingIds);
  const n = pending.length;
  const waiting = n === 0 ? "nothing waits for you" : `${n} request${n === 1 ? "" : "s"} waiting`;
  if (folded) {
    return (
      <aside
        className="panel inbox-panel folded"
        id={INBOX_PANE_ID}
        aria-label="Approvals"
        data-testid="inbox-panel"
        data-folded="true"
      >
        <button
          type="button"
          className="inbox-strip"
          data-testid="inbox-expand"
          aria-expanded={false}
          aria-label={`Show the approvals: ${waiting}`}
          title={`Approvals: ${waiting}. Click to show them and the rules in force.`}
          onClick={() => setInboxOpen(true, pending)}
        >
          <IconInbox size={14} />
          <span className={`count${n > 0 ? " hot" : ""}`}>{n}</span>
          <span className="strip-label">Approvals</span>
        </button>
      </aside>
    );
  }
  return (
    <aside className="panel inbox-panel" id={INBOX_PANE_ID} aria-label="Approvals" data-testid="inbox-panel">
      <div className="panel-header">
        Approvals <span className={`count${n > 0 ? " hot" : ""}`}>{n}</span>
        <span className="spacer" />
        <button
          type="button"
          className="btn small ghost icon-btn fold"
          data-testid="inbox-collapse"
          aria-expanded={true}
          aria-label="Fold the approvals"
          title={n === 0 ? "Fold the approvals to a strip" : "Fold the approvals to a strip (a new request opens them again)"}
          onClick={() => setInboxOpen(false, pending)}
        >
          <IconChevron size={12} />
        </button>
      </div>
      <div className="panel-body">
        <ApprovalInbox />
      </div>
    </aside>
  );
}
