/** The inbox's key hint line: which keys move between cards and answer the focused one (else the first). */
import { KEYS_HINT } from "../../lib/approvalKeys";

export function KeysHint() {
  return (
    <div className="keys-hint" data-testid="keys-hint" aria-label="Keyboard shortcuts for the focused card">
      {KEYS_HINT.map((k) => (
        <span key={k.keys}>
          <kbd>{k.keys}</kbd> {k.does}
        </span>
      ))}
      <span className="keys-target">on the marked card</span>
    </div>
  );
}
