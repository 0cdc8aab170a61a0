/**
 * What a revert did, as the backend answered: every file reverted, or (when
 * any file conflicts) nothing, with each conflict's path and reason; or why
 * the command failed.
 */
import { revertSummary } from "../../lib/changes";
import type { RevertState } from "../../store/changes";
import { setRevert } from "../../store/changes";

export function RevertResult({ revert }: { revert: RevertState }) {
  if (revert.busy) {
    return (
      <div className="revert-result" data-testid="changes-reverting">
        Reverting…
      </div>
    );
  }
  const dismiss = (
    <button type="button" className="btn small ghost" onClick={() => setRevert(null)}>
      Dismiss
    </button>
  );
  if (revert.error !== null) {
    return (
      <div className="revert-result failed" role="alert" data-testid="changes-revert-error">
        <div className="revert-head">
          <strong>Could not revert: {revert.error}</strong>
          {dismiss}
        </div>
      </div>
    );
  }
  const outcome = revert.outcome;
  if (outcome === null) return null;
  const summary = revertSummary(outcome);
  if (!summary.ok) {
    return (
      <div className="revert-result failed" role="alert" data-testid="changes-conflicts">
        <div className="revert-head">
          <strong>{summary.text}</strong>
          {dismiss}
        </div>
        <ul>
          {outcome.conflicts.map((c) => (
            <li key={c.path} data-testid="changes-conflict" data-path={c.path}>
              <span className="mono">{c.path}</span>: {c.reason}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  return (
    <div className="revert-result ok" role="status" data-testid="changes-reverted">
      <div className="revert-head">
        <strong>{summary.text}</strong>
        {dismiss}
      </div>
      {outcome.reverted.length > 0 ? (
        <ul>
          {outcome.reverted.map((p) => (
            <li key={p} className="mono">
              {p}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
