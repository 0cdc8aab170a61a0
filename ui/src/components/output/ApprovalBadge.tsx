/**
 * A tool call's approval state on its card: awaiting, approved or denied (with
 * a wider scope), or withdrawn because its agent was stopped first.
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
