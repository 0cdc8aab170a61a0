/**
 * "Message…": a steering message to a running agent, read before its next
 * turn. The text is a draft (DraftField): a keystroke renders the text area
 * alone. The dialog reads only its agent's label from the session, so the
 * agent's streamed events do not render it again.
 */
import { useState, type FormEvent } from "react";
import type { AgentId } from "../bindings";
import { messageAgent } from "../ipc/actions";
import { sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { openDialog } from "../store/ui";
import { DraftTextarea, useDraft } from "./DraftField";
import { Modal } from "./Modal";

export function MessageDialog({ agentId }: { agentId: AgentId }) {
  const label = useStore(sessionStore, (s) => {
    const node = s.agents[agentId];
    return node ? (node.depth === 0 ? "the main agent" : node.description) : agentId;
  });
  const draft = useDraft();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const close = () => openDialog(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const text = draft.get();
    if (!text.trim()) {
      setError("Write a message.");
      return;
    }
    setBusy(true);
    setError(null);
    const r = await messageAgent(agentId, text.trim());
    setBusy(false);
    if (r.ok) close();
    else setError(r.message);
  };

  return (
    <Modal title={`Message ${label}`} onClose={close}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <div className="modal-body">
          <label className="field">
            <span className="label">Message</span>
            <DraftTextarea
              draft={draft}
              className="textarea"
              data-testid="message-text"
              rows={4}
              placeholder="Steer the agent: it reads this before its next turn."
              onKeyDown={(e) => {
                if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit(e);
              }}
            />
          </label>
          {error ? (
            <div className="inline-error" role="alert">
              {error}
            </div>
          ) : null}
        </div>
        <div className="modal-foot">
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn primary" data-testid="message-submit" disabled={busy}>
            {busy ? "Sending…" : "Send"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
