/**
 * A budget warning in the agent's output: its subtree passed 80% of a limit and its agents
 * were told to wrap up, or (its standing exhausted) the limit ran out and the subtree stopped.
 */
import { warningText } from "../../lib/budget";
import type { BudgetItem } from "../../store/session/types";
import { BudgetMeter } from "../BudgetMeter";
import { IconGauge } from "../icons";

export function BudgetWarningRow({ item }: { item: BudgetItem }) {
  return (
    <div className="budget-warning" data-testid="budget-warning" data-kind={item.limit} role="status">
      <IconGauge size={12} />
      <span>{warningText(item.limit, item.standing)}</span>
      <BudgetMeter standing={item.standing} />
    </div>
  );
}
