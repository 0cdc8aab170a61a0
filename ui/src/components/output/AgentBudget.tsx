/**
 * An agent's budget in its output header: the meter with its figures (Rust's
 * standing, as last sent) and "Budget…" to raise, lower or first give one;
 * and, once a budget stopped it, why (its agent_finished error, Rust's words)
 * with "Raise budget and resume", or the ancestor's budget to raise when that
 * was the one that ran out. A past session under review offers no actions.
 */
import type { AgentId } from "../../bindings";
import { agentName, agentStanding, canRaiseBudget, exhaustedOwner } from "../../store/selectors";
import type { AgentNode } from "../../store/session/types";
import { useReviewing, useSession } from "../../store/sessionScope";
import { openDialog } from "../../store/ui";
import { BudgetMeter } from "../BudgetMeter";
import { IconGauge } from "../icons";

export function BudgetLine({ id }: { id: AgentId }) {
  const standing = useSession((s) => agentStanding(s, id));
  const readOnly = useReviewing();
  if (!standing && readOnly) return null;
  return (
    <div className="output-budget" data-testid="output-budget">
      {standing ? <BudgetMeter standing={standing} withText testId="output-budget-meter" /> : null}
      {readOnly ? null : (
        <button
          type="button"
          className="btn small ghost"
          data-testid="budget-button"
          title={standing ? "Raise or lower this agent's budget" : "Give this agent a budget of its own"}
          onClick={() => openDialog({ kind: "budget", agentId: id })}
        >
          <IconGauge size={12} /> Budget…
        </button>
      )}
    </div>
  );
}

export function BudgetStop({ node }: { node: AgentNode }) {
  const owner = useSession((s) => exhaustedOwner(s, node.id));
  const ownerName = useSession((s) => (owner ? agentName(s, owner) : null));
  const readOnly = useReviewing();
  if (!canRaiseBudget(node.status)) return null;
  const reason = node.finished?.error ?? null;
  const above = owner !== null && owner !== node.id;
  return (
    <div className="budget-stop" role="alert" data-testid="budget-stop">
      <IconGauge size={14} />
      <div className="budget-stop-text">
        <strong>Stopped: budget exhausted.</strong>{" "}
        <span data-testid="budget-stop-reason">{reason ?? "Its budget, or an ancestor's, ran out."}</span>
      </div>
      {readOnly ? null : (
        <div className="budget-stop-actions">
          {above ? (
            <button
              type="button"
              className="btn small primary"
              data-testid="budget-raise-owner"
              title="The budget that ran out is this agent's ancestor's: raising it resumes that agent"
              onClick={() => openDialog({ kind: "budget", agentId: owner })}
            >
              Raise {ownerName === "Main agent" ? "the main agent" : ownerName}'s budget…
            </button>
          ) : null}
          <button
            type="button"
            className={`btn small${above ? "" : " primary"}`}
            data-testid="budget-raise"
            onClick={() => openDialog({ kind: "budget", agentId: node.id })}
          >
            Raise budget and resume…
          </button>
        </div>
      )}
    </div>
  );
}
