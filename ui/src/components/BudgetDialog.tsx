/**
 * "Budget…": an agent's budget raised, lowered or first given. The fields
 * start as its budget now is; what is sent replaces those limits (a field
 * left empty keeps its limit as it is). For an agent its budget stopped the
 * button reads "Raise budget and resume": Rust resumes it when the new limits
 * leave room, and a notice says so when they (or a budget above it) leave
 * none. Shows what its subtree used so far, as Rust last sent it.
 */
import { useState, type FormEvent } from "react";
import { BUDGET_KINDS, type AgentId } from "../bindings";
import { setBudget } from "../ipc/actions";
import { budgetSource, describeBudget, standingLines } from "../lib/budget";
import { budgetFields, firstProblem, parseBudget, type BudgetFields } from "../lib/budgetForm";
import { agentBudget, agentName, agentStanding, canRaiseBudget } from "../store/selectors";
import { sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { openDialog, pushNotice } from "../store/ui";
import { BudgetInputs } from "./BudgetInputs";
import { Modal } from "./Modal";

export function BudgetDialog({ agentId }: { agentId: AgentId }) {
  const name = useStore(sessionStore, (s) => agentName(s, agentId));
  const status = useStore(sessionStore, (s) => s.agents[agentId]?.status ?? null);
  const current = useStore(sessionStore, (s) => agentBudget(s, agentId));
  const standing = useStore(sessionStore, (s) => agentStanding(s, agentId));
  const origin = useStore(sessionStore, (s) => s.agents[agentId]?.budgetOrigin ?? null);
  const carved = useStore(sessionStore, (s) => s.agents[agentId]?.budgetCarved);
  // Read once: later budget_set events do not overwrite what the person types.
  const [fields, setFields] = useState<BudgetFields>(() => budgetFields(current));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const who = name === "Main agent" ? "the main agent" : name;
  const stopped = status !== null && canRaiseBudget(status);
  const parsed = parseBudget(fields, BUDGET_KINDS);
  const close = () => openDialog(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!parsed.ok) {
      setError(firstProblem(parsed));
      return;
    }
    setBusy(true);
    setError(null);
    const r = await setBudget(agentId, parsed.budget);
    setBusy(false);
    if (!r.ok) {
      setError(r.message);
      return;
    }
    close();
    if (stopped && !r.data.resumed) {
      pushNotice(
        `The budget of ${who} changed, but it stays stopped: its budget, or one above it, still has no room. Raise that one to let it carry on.`,
      );
    }
  };

  return (
    <Modal title={`Budget of ${who}`} onClose={close} testId="budget-dialog">
      <form data-testid="budget-form" onSubmit={(e) => void submit(e)} noValidate>
        <div className="modal-body">
          <div className="field">
            <span className="hint">Now</span>
            <div data-testid="budget-now">{current ? describeBudget(current) : "No budget of its own"}</div>
            {current && origin ? (
              <div className="hint" data-testid="budget-origin">
                {budgetSource(origin, carved ?? [])}
              </div>
            ) : null}
            {standing ? (
              <div className="hint budget-used" data-testid="budget-used">
                Used by it and its subagents: {standingLines(standing).join(" · ")}
              </div>
            ) : null}
          </div>
          <BudgetInputs
            kinds={BUDGET_KINDS}
            fields={fields}
            problems={parsed.ok ? {} : parsed.problems}
            onChange={setFields}
            testId="budget-field"
            placeholder="as it is"
          />
          <span className="hint">
            The limits cover this agent and everything it starts. A field left empty keeps its limit as it is.
            {stopped ? " If the new limits leave room, the agent carries on where it stopped." : ""}
          </span>
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
          <button type="submit" className="btn primary" data-testid="budget-submit" disabled={busy}>
            {busy ? "Sending…" : stopped ? "Raise budget and resume" : "Set budget"}
          </button>
        </div>
      </form>
    </Modal>
  );
}
