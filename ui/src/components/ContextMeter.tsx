/**
 * How full an agent's context is: a thin ring-less bar, distinct from the
 * budget meter (a dotted track), filled to its last request's share of the
 * model's window; amber near compaction. Its tooltip words the figures and
 * says when the window is a guess.
 */
import type { ContextWindow } from "../bindings";
import { contextFill } from "../lib/context";

export function ContextMeter({
  used,
  window,
  testId,
  withText = false,
}: {
  used: number;
  window: ContextWindow | null;
  testId?: string;
  /** Follow the bar with "12k / 200k context". */
  withText?: boolean;
}) {
  const fill = contextFill(used, window);
  if (fill === null) return null;
  return (
    <span className={`context-meter ${fill.tone}`} data-testid={testId} data-tone={fill.tone} title={fill.label}>
      <span
        className="context-track"
        role="meter"
        aria-label={fill.label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(fill.share * 100)}
      >
        <span className="context-fill" style={{ width: `${fill.share * 100}%` }} />
      </span>
      {withText ? <span className="context-text">{fill.short}</span> : null}
    </span>
  );
}
