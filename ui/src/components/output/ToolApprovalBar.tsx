/**
 * The answer bar of a tool call waiting for approval, in the agent's output:
 * Approve and Deny for just this call, and a way to the inbox card (its
 * scopes, a reason, a preview). In a past session under review the request
 * can no longer be answered, and the bar says so.
 */
import { answer, revealApproval } from "../../ipc/approvals";
import { useStore } from "../../store/store";
import { uiStore } from "../../store/ui";
import { IconCheck, IconInbox, IconX } from "../icons";

export function ToolApprovalBar({ requestId, readOnly }: { requestId: string; readOnly: boolean }) {
  const sending = useStore(uiStore, (s) => !!s.sending[requestId]);
  if (readOnly) {
    return (
      <div className="tool-approval faint" data-testid="approval-unanswered">
        Never answered: this past session is read-only.
      </div>
    );
  }
  return (
    <div className="tool-approval" data-testid="tool-approval">
      <span className="waiting-text">Waiting for your answer</span>
      <span className="spacer" />
      <button
        type="button"
        className="btn small ghost"
        data-testid="tool-reveal"
        title="Show its card in the approval inbox: scopes, a reason, the preview"
        onClick={() => revealApproval(requestId)}
      >
        <IconInbox size={12} /> In inbox
      </button>
      <button
        type="button"
        className="btn small danger"
        data-testid="tool-deny"
        title="Deny just this call"
        disabled={sending}
        onClick={() => void answer(requestId, false, "once")}
      >
        <IconX size={11} /> Deny
      </button>
      <button
        type="button"
        className="btn small approve"
        data-testid="tool-approve"
        title="Approve just this call"
        disabled={sending}
        onClick={() => void answer(requestId, true, "once")}
      >
        <IconCheck size={11} /> {sending ? "Sending…" : "Approve"}
      </button>
    </div>
  );
}
