/**
 * The head of an agent's output: its status, name, id, model, type, tokens,
 * cost, turns and wall time over every run, and place in the tree, its budget
 * (AgentBudget), the Output / Changes tabs, the export menu, and (for a
 * subagent's output) the "Show thinking" toggle; below it, why a budget
 * stopped the agent, when one did.
 */
import type { AgentId } from "../../bindings";
import { formatCost, formatDuration, formatTokens, formatTurns, statusLabel } from "../../lib/format";
import { changeCount, externalAgent, externalNote, treePath } from "../../store/selectors";
import type { AgentNode } from "../../store/session/types";
import { agentFigures } from "../../store/session/usage";
import { useReviewing, useSession, useSessionView } from "../../store/sessionScope";
import { patchUi, setOutputTab } from "../../store/ui";
import { ExportMenu } from "../ExportMenu";
import { RunClock } from "../RunClock";
import { StatusIcon } from "../StatusIcon";
import { Tabs } from "../Tabs";
import { BudgetLine, BudgetStop } from "./AgentBudget";
import { ContextMeter } from "../ContextMeter";
import { compactAgent } from "../../ipc/actions";
import { isTerminal } from "../../store/session/status";

export function OutputHeader({ id, node, showThoughts }: { id: AgentId; node: AgentNode; showThoughts: boolean }) {
  const path = useSession((s) => treePath(s, id).join(" › "));
  const hasSession = useSession((s) => s.sessionId !== null);
  // A session under review is read-only: nothing to compact there.
  const reviewing = useReviewing();
  const figures = useSession((s) => agentFigures(s.usage, id, false));
  const tab = useSessionView((v) => v.outputTab);
  const changed = useSession((s) => changeCount(s, id));
  // No figures yet: nothing used.
  const tokens = figures?.tokens ?? 0;
  const cost = formatCost(figures?.usage.cost_usd ?? null);
  const external = externalAgent(node);
  return (
    <>
      <div className="output-header">
        <StatusIcon status={node.status} />
        <div className="heading">
          <div className="title">{node.depth === 0 ? "Main agent" : node.description}</div>
          {/* How it stands and what it used first: a narrow window cuts the line's end (the model, the id, the path). */}
          <div className="sub" title={`${node.id}${node.model ? ` · ${node.model}` : ""}${node.depth > 0 ? ` · ${path}` : ""}`}>
            {statusLabel(node.status)}
            {tokens > 0 ? ` · ${formatTokens(tokens)} tokens` : ""}
            {cost ? ` · ${cost}` : ""}
            {node.turns > 0 ? ` · ${formatTurns(node.turns)}` : ""}
            <RunClock node={node} running={node.wallRunStartedAt !== null}>
              {(elapsed) => (
                <span data-testid="header-elapsed" title="Wall time over every run">
                  {` · ${formatDuration(elapsed)}`}
                </span>
              )}
            </RunClock>
            {external ? (
              <span className="badge external" data-testid="header-external" title={externalNote(external)}>
                ACP{external.sandbox ? " · sandboxed" : " · unsandboxed"}
              </span>
            ) : null}
            {external && tokens === 0 ? (
              <span
                data-testid="header-no-usage"
                title="This agent has reported no token usage: its tokens and cost are not counted toward budgets; a duration budget still holds."
              >
                {" · no usage reported"}
              </span>
            ) : null}
            {node.model ? ` · ${external ? `runs ${external.command}` : node.model}` : ""}
            {node.subagentType ? ` · ${node.subagentType}` : ""}
            {" · "}
            <span className="mono">{node.id}</span>
            {node.depth > 0 ? ` · ${path}` : ""}
          </div>
        </div>
        <span className="output-context">
          <ContextMeter used={node.contextUsed} window={node.contextWindow} testId="header-context" withText />
          {/* An external agent keeps its own context: Arbor cannot compact it. */}
          {!reviewing && !external && node.contextUsed > 0 ? (
            <button
              type="button"
              className="btn small ghost"
              data-testid="compact-agent"
              title={
                isTerminal(node.status)
                  ? "Compact its conversation when it next runs: older results cleared, the rest summarized"
                  : "Compact its conversation before its next request: older results cleared, the rest summarized"
              }
              onClick={() => void compactAgent(id)}
            >
              Compact
            </button>
          ) : null}
        </span>
        <BudgetLine id={id} />
        <Tabs
          label="What to show of this agent"
          value={tab}
          onSelect={setOutputTab}
          tabs={[
            { value: "output", testId: "output-tab", children: "Output" },
            {
              value: "changes",
              testId: "changes-tab",
              title: changed > 0 ? `${changed} file${changed === 1 ? "" : "s"} changed` : "Files this agent changed",
              children: (
                <>
                  Changes{changed > 0 ? <span className="tab-count">{changed}</span> : null}
                </>
              ),
            },
          ]}
        />
        {hasSession ? <ExportMenu agentId={id} /> : null}
        {node.depth > 0 && tab === "output" ? (
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
      <BudgetStop node={node} />
    </>
  );
}
