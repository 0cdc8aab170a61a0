/**
 * The timeline as text, for assistive technology (visually hidden): each
 * agent of the chart in its order, with its status, how long its runs took
 * and how long it waited for the person; and the session's waiting in the caption.
 * Its rows come in a render of their own after the chart's first paint (a
 * deferred value): hundreds of rows need not hold up the picture.
 */
import { memo, useDeferredValue } from "react";
import type { AgentId } from "../../bindings";
import { statusLabel } from "../../lib/format";
import { formatSpan } from "../../lib/timeline";
import { useNow } from "../../hooks/useNow";
import { agentName, visibleRows, type TreeRow } from "../../store/selectors";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { laneWaiting, timelineOf, timelineStore, wallTimeMs } from "../../store/timeline";
import { uiStore } from "../../store/ui";
import { useRunning } from "./useRunning";

const NO_ROWS: readonly TreeRow[] = [];

export function TimelineSummary() {
  const collapsed = useStore(uiStore, (s) => s.collapsed);
  const shown = useStore(sessionStore, (s) => visibleRows(s, collapsed));
  const rows = useDeferredValue(shown, NO_ROWS);
  const sessionId = useStore(sessionStore, (s) => s.sessionId);
  const waiting = useStore(timelineStore, (all) => timelineOf(all, sessionId)?.waitingMs ?? 0);
  const running = useRunning();
  const now = useNow(running, 5000);
  return (
    <table className="sr-only" data-testid="timeline-summary">
      <caption>
        Timeline of {shown.length} agent{shown.length === 1 ? "" : "s"}; the session waited {formatSpan(waiting)} for your
        approval.
      </caption>
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Status</th>
          <th scope="col">Ran for</th>
          <th scope="col">Waited for you</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <SummaryRow key={r.id} id={r.id} now={now} />
        ))}
      </tbody>
    </table>
  );
}

const SummaryRow = memo(function SummaryRow({ id, now }: { id: AgentId; now: number }) {
  const node = useStore(sessionStore, (s) => s.agents[id]);
  const name = useStore(sessionStore, (s) => agentName(s, id));
  const sessionId = useStore(sessionStore, (s) => s.sessionId);
  const waiting = useStore(timelineStore, (all) => laneWaiting(all, sessionId, id));
  if (!node) return null;
  return (
    <tr data-agent-id={id}>
      <th scope="row">{name}</th>
      <td>{statusLabel(node.status)}</td>
      <td>{formatSpan(wallTimeMs(node, now))}</td>
      <td>{formatSpan(waiting)}</td>
    </tr>
  );
});
