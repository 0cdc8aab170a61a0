/**
 * The session's timeline, beside the agents' output: one row per agent in
 * the tree's order (collapsed with it), its lane drawn on a canvas, the time
 * axis, what each agent and the session waited for the person, and a text
 * table of the same for assistive technology. A stored session's timeline is
 * loaded the first time it is shown; each session gets a fresh view (its own
 * zoom, pan and Follow live).
 */
import { useEffect, useState } from "react";
import { ensureTimeline, loadTimeline } from "../../ipc/timeline";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { timelineOf, timelineStore } from "../../store/timeline";
import { IconAlert, IconClock } from "../icons";
import { TimelineController } from "./controller";
import { TimelineChart } from "./TimelineChart";
import { TimelineSummary } from "./TimelineSummary";
import { TimelineToolbar } from "./TimelineToolbar";
import { TimelineTooltip } from "./TimelineTooltip";

export function TimelineView() {
  const sessionId = useStore(sessionStore, (s) => s.sessionId);
  const hasAgents = useStore(sessionStore, (s) => s.roots.length > 0);
  const load = useStore(timelineStore, (all) => timelineOf(all, sessionId)?.load ?? "none");
  const error = useStore(timelineStore, (all) => timelineOf(all, sessionId)?.error ?? null);

  useEffect(() => {
    if (sessionId !== null) void ensureTimeline(sessionId);
  }, [sessionId]);

  if (!hasAgents || sessionId === null) {
    return (
      <div className="timeline" data-testid="timeline">
        <div className="empty">
          <IconClock size={28} />
          <div className="title">No timeline yet</div>
          <div>Once a session runs, each agent's queued time, model turns, tool calls and waits for you show here.</div>
        </div>
      </div>
    );
  }
  return (
    <div className="timeline" data-testid="timeline">
      {load === "error" ? (
        <div className="timeline-note error" role="alert">
          <IconAlert size={12} /> Could not load the stored timeline: {error}
          <button type="button" className="btn small" onClick={() => void loadTimeline(sessionId)}>
            Retry
          </button>
        </div>
      ) : null}
      {load === "loading" ? (
        <div className="timeline-note" role="status">
          Loading the stored timeline…
        </div>
      ) : null}
      <SessionTimeline key={sessionId} />
    </div>
  );
}

/** One session's chart: its controller lives as long as the session is shown. */
function SessionTimeline() {
  const [controller] = useState(() => new TimelineController());
  return (
    <>
      <TimelineToolbar controller={controller} />
      <TimelineChart controller={controller} />
      <TimelineTooltip controller={controller} />
      <TimelineSummary />
    </>
  );
}
