/**
 * The head of an agent's output: its status, name, id, model, type, tokens,
 * cost and place in the tree, the export menu, and (for a subagent) the
 * "Show thinking" toggle.
 */
import type { AgentId } from "../../bindings";
import { formatCost, formatTokens, statusLabel } from "../../lib/format";
import { treePath } from "../../store/selectors";
import type { AgentNode } from "../../store/session/types";
import { agentFigures } from "../../store/session/usage";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { patchUi } from "../../store/ui";
import { ExportMenu } from "../ExportMenu";
import { StatusIcon } from "../StatusIcon";

export function OutputHeader({ id, node, showThoughts }: { id: AgentId; node: AgentNode; showThoughts: boolean }) {
  const path = useStore(sessionStore, (s) => treePath(s, id).join(" › "));
  const hasSession = useStore(sessionStore, (s) => s.sessionId !== null);
  const figures = useStore(sessionStore, (s) => agentFigures(s.usage, id, false));
  // No figures yet: nothing used.
  const tokens = figures?.tokens ?? 0;
  const cost = formatCost(figures?.usage.cost_usd ?? null);
  return (
    <div className="output-header">
      <StatusIcon status={node.status} />
      <div style={{ minWidth: 0, flex: 1 }}>
        <div className="title">{node.depth === 0 ? "Main agent" : node.description}</div>
        <div className="sub">
          <span className="mono">{node.id}</span>
          {node.model ? ` · ${node.model}` : ""}
          {node.subagentType ? ` · ${node.subagentType}` : ""}
          {` · ${statusLabel(node.status)}`}
          {tokens > 0 ? ` · ${formatTokens(tokens)} tokens` : ""}
          {cost ? ` · ${cost}` : ""}
          {node.depth > 0 ? ` · ${path}` : ""}
        </div>
      </div>
      {hasSession ? <ExportMenu agentId={id} /> : null}
      {node.depth > 0 ? (
        <label className="toggle" title="Subagents' thinking is hidden by default">
          <input
            type="checkbox"
            checked={showThoughts}
            onChange={(e) => patchUi({ showSubagentThoughts: e.target.checked })}
          />
          Show thinking
        </label>
      ) : null}
    </div>
  );
}
