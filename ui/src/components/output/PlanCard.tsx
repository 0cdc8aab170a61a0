/**
 * The agent's plan (an external ACP agent's `plan` update): its steps in order,
 * each marked done, under way or to do, the high-priority ones tagged. A plan
 * is the whole list as the agent last stated it (store/session/items.ts).
 */
import { memo } from "react";
import type { Plan, PlanStatus } from "../../bindings";
import { IconCheck } from "../icons";

const WORDS: Record<PlanStatus, string> = { completed: "done", in_progress: "under way", pending: "to do" };

function Mark({ status }: { status: PlanStatus }) {
  if (status === "completed") return <IconCheck size={11} />;
  return <span className="plan-dot" aria-hidden="true" />;
}

export const PlanCard = memo(function PlanCard({ plan }: { plan: Plan }) {
  return (
    <div className="plan-card" data-testid="plan">
      <div className="plan-head">Plan</div>
      <ol className="plan-steps">
        {plan.entries.map((e, i) => (
          <li key={i} className={`plan-step ${e.status}`} data-status={e.status} title={WORDS[e.status]}>
            <Mark status={e.status} />
            <span className="plan-text">{e.content}</span>
            {e.priority === "high" ? <span className="plan-high">high</span> : null}
          </li>
        ))}
      </ol>
    </div>
  );
});
