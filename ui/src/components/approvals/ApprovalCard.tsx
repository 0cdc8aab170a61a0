/**
 * One pending request of a live session: its agent (description, id, path;
 * and which session, when the window runs more than one or shows another), what the call would do
 * (ApprovalPreview, or a spawn's form), a warning when the previewed file
 * changed on disk, and the answers: the scope options, Approve, Deny, deny
 * with a reason (an external agent's own answers instead, AgentAnswers), and
 * "approve all" when the agent waits on more than one.
 * The card is focusable: the inbox's keys act on the focused one. Answering
 * sends only that answer; the card stays, marked "sending…", until
 * approval_resolved confirms it.
 */
import { memo, useEffect, useMemo, useRef } from "react";
import { approveAllFrom, answer, denyWithReason, showAgent, spawnEditFor } from "../../ipc/approvals";
import { approveAllLabel } from "../../lib/approvals";
import { isTextEntry } from "../../lib/approvalKeys";
import { approvalsStore, draftOf, patchDraft, pendingOfAgent, requestNames, requestReveal, sessionName as nameOf } from "../../store/approvals";
import { slotSession } from "../../store/inbox";
import { approvalAgentLabel, approvalMcp } from "../../store/selectors";
import type { Approval } from "../../store/session/types";
import type { SlotKey } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { uiStore } from "../../store/ui";
import { IconAlert, IconCheck, IconTool, IconX } from "../icons";
import { ToolName } from "../ToolName";
import { AgentAnswers } from "./AgentAnswers";
import { ApprovalPreview } from "./ApprovalPreview";
import { DenyReason } from "./DenyReason";
import { ScopeOptions } from "./ScopeOptions";
import { SpawnForm } from "./SpawnForm";

/** `named`: the card says which session it belongs to (several run, or another one is shown). */
export const ApprovalCard = memo(function ApprovalCard({
  approval,
  slot,
  named,
}: {
  approval: Approval;
  slot: SlotKey;
  named: boolean;
}) {
  const id = approval.requestId;
  const liveSession = slotSession(slot);
  const node = useStore(liveSession, (s) => s.agents[approval.agentId]);
  const mcp = useStore(liveSession, (s) => approvalMcp(s, approval));
  // Strings, not an object: a selector must return the same value for the same state.
  const tool = useStore(liveSession, (s) => requestNames(s, approval).tool);
  const agentName = useStore(liveSession, (s) => requestNames(s, approval).agent);
  const names = useMemo(() => ({ tool, agent: agentName }), [tool, agentName]);
  const waiting = useStore(liveSession, (s) => pendingOfAgent(s, approval.agentId).length);
  const sessionName = useStore(liveSession, (s) => (named ? nameOf(s) : null));
  const sending = useStore(uiStore, (s) => !!s.sending[id]);
  const draft = useStore(approvalsStore, (s) => draftOf(s, id));
  const reveal = useStore(approvalsStore, (s) => s.reveal === id);
  // Re-read with the form: a spawn that cannot be sent as edited is not approved.
  const problem = useStore(approvalsStore, () => spawnEditFor(id).problem);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!reveal) return;
    const el = ref.current;
    el?.scrollIntoView({ block: "nearest" });
    // Someone typing elsewhere keeps the keyboard; the card is still brought into view.
    if (el && !isTextEntry(document.activeElement)) el.focus();
    requestReveal(null);
  }, [reveal]);

  const { description, id: agentId, path } = approvalAgentLabel(node, approval);
  const spawn = approval.preview?.kind === "spawn" ? approval.preview : null;
  const preview = approval.preview?.kind === "spawn" ? null : (approval.preview ?? null);
  return (
    <div
      ref={ref}
      className={`approval${sending ? " sending" : ""}${approval.stale ? " stale" : ""}`}
      role="listitem"
      tabIndex={0}
      aria-label={`${names.tool} by ${description}`}
      data-testid="approval"
      data-request-id={id}
      data-agent-id={approval.agentId}
      data-slot={slot}
      aria-busy={sending}
    >
      <div className="approval-head">
        {sessionName !== null ? (
          <div className="approval-session" data-testid="approval-session">
            <span className="badge live">live</span> {sessionName}
          </div>
        ) : null}
        <button
          type="button"
          className="approval-agent"
          data-testid="approval-agent"
          title="Show this agent"
          onClick={() => showAgent(slot, approval.agentId)}
        >
          <span className="desc">{description}</span>
          <span className="id">{agentId}</span>
          {path ? <span className="path">{path}</span> : null}
        </button>
      </div>
      {/* A spawn's plan and its answers together: what is approved is the form as edited. */}
      <div className="approval-main" data-testid={spawn ? "spawn-card" : undefined}>
        <div className="approval-body">
          <div className="approval-tool">
            <IconTool size={12} />
            <strong>
              <ToolName name={approval.toolName} mcp={mcp} />
            </strong>
            <span className="faint">{spawn ? "wants to start a subagent" : "wants to run"}</span>
          </div>
          {approval.stale ? (
            <div className="inline-warn" role="alert" data-testid="approval-stale">
              <IconAlert size={12} />
              <span>
                {approval.stale} What you see is the file as it was when the agent asked; the call applies to it as it is
                now.
              </span>
            </div>
          ) : null}
          {spawn ? (
            <SpawnForm requestId={id} plan={spawn} disabled={sending} />
          ) : (
            <ApprovalPreview preview={preview} toolName={approval.toolName} args={approval.toolArgs} />
          )}
        </div>
        <div className="approval-actions">
          {approval.options.length > 0 ? (
            // An external agent's request: its own answers (it takes no reason with a refusal).
            <AgentAnswers
              options={approval.options}
              names={names}
              sending={sending}
              onAnswer={(o) => void answer(id, o.approved, o.scope)}
            />
          ) : (
            <>
              <ScopeOptions names={names} scope={draft.scope} disabled={sending} onChoose={(scope) => patchDraft(id, { scope })} />
              {draft.reasonOpen ? (
                <DenyReason
                  reason={draft.reason}
                  disabled={sending}
                  onChange={(reason) => patchDraft(id, { reason })}
                  onSend={() => void denyWithReason(id)}
                  onClose={() => {
                    patchDraft(id, { reasonOpen: false });
                    ref.current?.focus();
                  }}
                />
              ) : null}
              <div className="approval-buttons">
                <button
                  type="button"
                  className="btn danger"
                  data-testid="deny"
                  disabled={sending}
                  onClick={() => void answer(id, false)}
                >
                  <IconX size={12} /> Deny
                </button>
                <button
                  type="button"
                  className="btn approve"
                  data-testid="approve"
                  disabled={sending || problem !== null}
                  title={problem ?? undefined}
                  onClick={() => void answer(id, true)}
                >
                  <IconCheck size={12} /> {sending ? "Sending…" : "Approve"}
                </button>
              </div>
            </>
          )}
          {(approval.options.length === 0 && !draft.reasonOpen) || waiting >= 2 ? (
            <div className="approval-more">
              {draft.reasonOpen || approval.options.length > 0 ? null : (
                <button
                  type="button"
                  className="btn ghost small"
                  data-testid="deny-with-reason"
                  disabled={sending}
                  onClick={() => patchDraft(id, { reasonOpen: true })}
                >
                  Deny with reason…
                </button>
              )}
              {waiting >= 2 ? (
                <button
                  type="button"
                  className="btn small approve-all"
                  data-testid="approve-all"
                  disabled={sending}
                  title="One answer per request, each for just that call"
                  onClick={() => void approveAllFrom(slot, approval.agentId)}
                >
                  <IconCheck size={12} /> {approveAllLabel(waiting, names.agent)}
                </button>
              ) : null}
            </div>
          ) : null}
        </div>
      </div>
    </div>
  );
});
