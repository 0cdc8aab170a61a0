/**
 * Pending approvals, oldest first, each naming its agent (description, id and
 * path in the tree). Answering one sends only that answer; the card stays,
 * marked "sending…", until the backend confirms it with approval_resolved.
 * Under a past session's review the requests it left open are shown without
 * any way to answer them.
 */
import { memo, useState } from "react";
import { APPROVAL_SCOPES, type ApprovalScope } from "../bindings";
import { answerApproval } from "../ipc/actions";
import { approvalAgentLabel, approvalMcp, pendingApprovals } from "../store/selectors";
import type { Approval } from "../store/session/types";
import { bookStore } from "../store/review";
import { sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { select, uiStore } from "../store/ui";
import { IconCheck, IconInbox, IconTool, IconX } from "./icons";
import { ToolArgs } from "./ToolArgs";
import { ToolName } from "./ToolName";

// Wording only: which scopes exist, and their order, are Rust's (APPROVAL_SCOPES).
const SCOPE_LABELS: Record<ApprovalScope, string> = {
  once: "Just this call",
  agent: "This agent",
  subtree: "This subtree",
  session: "This session",
};

export function ApprovalInbox() {
  const pending = useStore(sessionStore, pendingApprovals);
  if (pending.length === 0) {
    return (
      <div className="empty">
        <IconInbox size={26} />
        <div className="title">Nothing to approve</div>
        <div>When an agent wants to change files or run a command, it waits here for you.</div>
      </div>
    );
  }
  return (
    <div className="approvals" role="list" aria-label="Pending approvals">
      {pending.map((a) => (
        <ApprovalCard key={a.requestId} approval={a} />
      ))}
    </div>
  );
}

const ApprovalCard = memo(function ApprovalCard({ approval }: { approval: Approval }) {
  const node = useStore(sessionStore, (s) => s.agents[approval.agentId]);
  const mcp = useStore(sessionStore, (s) => approvalMcp(s, approval));
  const sending = useStore(uiStore, (s) => !!s.sending[approval.requestId]);
  const readOnly = useStore(bookStore, (b) => b.review !== null);
  // The narrowest scope (Rust lists them narrowest first) unless the person widens it.
  const [scope, setScope] = useState<ApprovalScope>(APPROVAL_SCOPES[0]);
  const { description, id, path } = approvalAgentLabel(node, approval);
  return (
    <div
      className={`approval${sending ? " sending" : ""}`}
      role="listitem"
      data-testid="approval"
      data-request-id={approval.requestId}
      data-agent-id={approval.agentId}
      aria-busy={sending}
    >
      <div className="approval-head">
        <button
          type="button"
          className="approval-agent"
          data-testid="approval-agent"
          title="Show this agent"
          onClick={() => select(approval.agentId)}
        >
          <span className="desc">{description}</span>
          <span className="id">{id}</span>
          <span className="path">{path}</span>
        </button>
      </div>
      <div className="approval-body">
        <div className="approval-tool">
          <IconTool size={12} />
          <strong>
            <ToolName name={approval.toolName} mcp={mcp} />
          </strong>
          <span className="faint">wants to run</span>
        </div>
        <ToolArgs toolName={approval.toolName} args={approval.toolArgs} />
      </div>
      {readOnly ? (
        <div className="approval-actions faint" data-testid="approval-unanswered">
          Never answered: this past session is read-only.
        </div>
      ) : (
      <div className="approval-actions">
        <select
          className="select"
          data-testid="approval-scope"
          aria-label="Scope of the answer"
          value={scope}
          disabled={sending}
          onChange={(e) => setScope(e.target.value as ApprovalScope)}
        >
          {APPROVAL_SCOPES.map((s) => (
            <option key={s} value={s}>
              {SCOPE_LABELS[s]}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn danger"
          data-testid="deny"
          disabled={sending}
          onClick={() => void answerApproval(approval.requestId, false, scope)}
        >
          <IconX size={12} /> Deny
        </button>
        <button
          type="button"
          className="btn approve"
          data-testid="approve"
          disabled={sending}
          onClick={() => void answerApproval(approval.requestId, true, scope)}
        >
          <IconCheck size={12} /> {sending ? "Sending…" : "Approve"}
        </button>
      </div>
      )}
    </div>
  );
});
