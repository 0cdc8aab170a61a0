/**
 * A budget meter: a thin bar filled to the share of the nearest limit that a
 * subtree used (Rust's figures, as sent), amber past the share at which its
 * agents are told to wrap up, red once a limit ran out. Its tooltip lists
 * every limit with its figures. Optionally followed by a short text.
 */
import type { BudgetStanding } from "../bindings";
import { meterFill, meterLabel, meterTone, percent, standingLines, standingShort } from "../lib/budget";

export function BudgetMeter({
  standing,
  testId,
  withText = false,
}: {
  standing: BudgetStanding;
  testId?: string;
  /** Follow the bar with "Budget 42% · 4,200 / 10,000 tokens". */
  withText?: boolean;
}) {
  const fill = meterFill(standing);
  const tone = meterTone(standing);
  const title = standingLines(standing).join("\n");
  return (
    <span className={`budget-meter ${tone}`} data-testid={testId} data-tone={tone} title={title}>
      <span
        className="budget-track"
        role="meter"
        aria-label={meterLabel(standing)}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent(fill)}
      >
        <span className="budget-fill" style={{ width: `${fill * 100}%` }} />
      </span>
      {withText ? <span className="budget-text">{standingShort(standing)}</span> : null}
    </span>
  );
}
