/**
 * How an agent's run ended: its status; the agent's turns and wall time over
 * every run (after a resume, "run 2 of 2 · … in all runs"; an earlier run's
 * result keeps its own figures), the error, the result text (unless the last
 * response already showed it) and the files it modified. A result cut off at
 * the output limit says so above its text; one a budget stopped says why in
 * the budget's colour, not a failure's.
 */
import type { AgentId } from "../../bindings";
import { endTone, formatDuration, formatTurns, resultMeta, statusLabel } from "../../lib/format";
import { runOf, totalElapsedMs } from "../../store/selectors";
import type { FinishedItem } from "../../store/session/types";
import { useSession } from "../../store/sessionScope";
import { Markdown } from "../Markdown";
import { StatusIcon } from "../StatusIcon";

export function ResultCard({ item, agentId }: { item: FinishedItem; agentId: AgentId }) {
  const run = useSession((s) => runOf(s, agentId, item.key));
  const allTurns = useSession((s) => s.agents[agentId]?.turns ?? item.turns);
  // Over once its latest result is in: no clock needed.
  const allMs = useSession((s) => {
    const node = s.agents[agentId];
    return node ? totalElapsedMs(node, node.endedAt ?? item.ts) : null;
  });
  const meta = resultMeta({
    run: run?.index ?? 1,
    runs: run?.total ?? 1,
    latest: run?.latest ?? true,
    turns: item.turns,
    durationMs: item.durationMs,
    allTurns,
    allMs: allMs ?? item.durationMs,
  });
  const tone = endTone(item.status);
  const kind = tone === "done" ? "" : tone;
  const showText = !item.resultShown && (item.result !== "" || item.error === null);
  const cutOff = item.status === "truncated";
  const hasBody = cutOff || item.error !== null || showText || item.filesModified.length > 0;
  return (
    <div className={`result ${kind}`}>
      <div className="result-head">
        <StatusIcon status={item.status} />
        {item.status === "completed" ? "Result" : statusLabel(item.status)}
        <span
          className="meta"
          data-testid="result-meta"
          title={`This run: ${formatTurns(item.turns)} · ${formatDuration(item.durationMs)}`}
        >
          {meta}
        </span>
      </div>
      {hasBody ? (
        <div className="result-body">
          {cutOff ? (
            <div className="cut-off-note" data-testid="cut-off-note">
              Cut off: the model reached its output limit, so this answer is incomplete
              {item.resultShown ? " (the last response above is all that arrived)" : ""}. Resume the agent to let it
              carry on.
              {item.error ? <div className="faint tool-text">{item.error}</div> : null}
            </div>
          ) : item.error ? (
            <div className={tone === "budget" ? "budget-note" : "error-text"}>{item.error}</div>
          ) : null}
          {showText ? item.result ? <Markdown text={item.result} /> : <div className="faint">(no result text)</div> : null}
          {item.filesModified.length > 0 ? (
            <div>
              <div className="section-label">Files modified</div>
              <div className="files">
                {item.filesModified.map((f) => (
                  <span key={f} className="badge mono">
                    {f}
                  </span>
                ))}
              </div>
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
