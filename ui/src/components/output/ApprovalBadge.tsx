/**
 * A tool call's approval state on its card's head: awaiting, withdrawn
 * because its agent was stopped first, or (for a transcript stored before
 * calls named who decided them) approved or denied with its scope. Who
 * decided a call is its DecisionMark, under the head.
 */
import type { ApprovalScope } from "../../bindings";
import type { ApprovalState } from "../../store/session/types";

export function ApprovalBadge({ state, scope }: { state: ApprovalState; scope: ApprovalScope | null }) {
  const scopeText = scope && scope !== "once" ? ` · ${scope}` : "";
  switch (state) {
    case "pending":
      return <span className="badge waiting">awaiting approval</span>;
    case "approved":
      return <span className="badge">approved{scopeText}</span>;
    case "denied":
      return <span className="badge failed">denied{scopeText}</span>;
    case "withdrawn":
      return (
        <span className="badge" title="Nobody answered before the agent was stopped; the call did not run">
          Withdrawn — the agent was stopped
        </span>
      );
  }
}
