/**
 * "Delegate…": start a subagent under a chosen agent. Delegated subagents run
 * in the background of their parent; the result reaches it as a notification.
 */
import { useState, type FormEvent } from "react";
import { GENERAL_PURPOSE, type AgentId } from "../bindings";
import { delegate } from "../ipc/actions";
import { sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { openDialog, select, uiStore } from "../store/ui";
import { Modal } from "./Modal";
import { StatusIcon } from "./StatusIcon";

const GENERAL_DESCRIPTION = "Inherits the parent's model, provider, instructions and tools.";

export function DelegateDialog({ parentId }: { parentId: AgentId }) {
  const parent = useStore(sessionStore, (s) => s.agents[parentId]);
  const types = useStore(uiStore, (s) => s.session?.agent_types);
  const options = [
    { name: GENERAL_PURPOSE, description: GENERAL_DESCRIPTION, model: null as string | null },
    ...(types ?? []).filter((t) => t.name !== GENERAL_PURPOSE),
  ];
  const [type, setType] = useState<string>(GENERAL_PURPOSE);
  const [prompt, setPrompt] = useState("");
  const [description, setDescription] = useState("");
  const [model, setModel] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const chosen = options.find((o) => o.name === type);
  const close = () => openDialog(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!prompt.trim()) {
      setError("Write the task for the subagent.");
      return;
    }
    setBusy(true);
    setError(null);
    const r = await delegate({ parentId, subagentType: type, prompt, description, model });
    setBusy(false);
    if (!r.ok) {
      setError(r.message);
      return;
    }
    close();
    if (r.data) select(r.data);
  };

  const parentLabel = parent ? (parent.depth === 0 ? "Main agent" : parent.description) : parentId;
  return (
    <Modal title="Delegate a task" onClose={close}>
      <form data-testid="delegate-form" onSubmit={(e) => void submit(e)} noValidate>
        <div className="modal-body">
          <div className="field">
            <span className="hint">Parent</span>
            <div className="parent-chip">
              {parent ? <StatusIcon status={parent.status} /> : null}
              <strong>{parentLabel}</strong>
              <span className="faint mono">{parentId}</span>
            </div>
          </div>
          <label className="field">
            <span className="label">Agent type</span>
            <select
              className="select"
              data-testid="delegate-type"
              value={type}
              onChange={(e) => setType(e.target.value)}
            >
              {options.map((o) => (
                <option key={o.name} value={o.name} title={o.description}>
                  {o.name}
                  {o.model ? ` (${o.model})` : ""}
                </option>
              ))}
            </select>
            {chosen?.description ? <span className="hint">{chosen.description}</span> : null}
          </label>
          <label className="field">
            <span className="label">Task</span>
            <textarea
              className="textarea"
              data-testid="delegate-prompt"
              data-autofocus
              rows={5}
              required
              placeholder="What should the subagent do? It sees only this text."
              value={prompt}
              onChange={(e) => setPrompt(e.target.value)}
            />
          </label>
          <div className="grid-2">
            <label className="field">
              <span className="label">Description</span>
              <input
                className="input"
                data-testid="delegate-description"
                placeholder="3–5 words for the tree"
                value={description}
                onChange={(e) => setDescription(e.target.value)}
              />
            </label>
            <label className="field">
              <span className="label">Model</span>
              <input
                className="input mono"
                data-testid="delegate-model"
                placeholder={chosen?.model ?? "inherit"}
                value={model}
                onChange={(e) => setModel(e.target.value)}
                spellCheck={false}
              />
            </label>
          </div>
          <label className="checkbox">
            <input type="checkbox" checked disabled readOnly />
            <span>
              Run in the background
              <br />
              <span className="hint">
                Delegated subagents always run beside their parent; the result reaches it as a notification.
              </span>
            </span>
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
          <button type="submit" className="btn primary" data-testid="delegate-submit" disabled={busy}>
            {busy ? "Delegating…" : "Delegate"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
