/**
 * The timeline's toolbar: what the colours mean, the session's total time
 * waiting for the person, zoom out / in, Fit, and (while the session runs)
 * Follow live.
 */
import { useSyncExternalStore } from "react";
import { formatSpan } from "../../lib/timeline";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { timelineOf, timelineStore } from "../../store/timeline";
import type { TimelineController } from "./controller";
import { useRunning } from "./useRunning";

/** One press of − or +. */
export const ZOOM_STEP = 1.5;

export function TimelineToolbar({ controller }: { controller: TimelineController }) {
  const sessionId = useStore(sessionStore, (s) => s.sessionId);
  const waiting = useStore(timelineStore, (all) => timelineOf(all, sessionId)?.waitingMs ?? 0);
  const running = useRunning();
  const follow = useSyncExternalStore(controller.subscribe, () => controller.follow);
  return (
    <div className="timeline-toolbar">
      <div className="timeline-legend" aria-hidden="true">
        <span className="swatch queued" /> Queued
        <span className="swatch model" /> Model
        <span className="swatch tool" /> Tool
        <span className="swatch approval" /> Waiting for you
      </div>
      <div className="timeline-waiting" data-testid="timeline-waiting" title="Time any agent waited for your approval">
        Waited for you: <strong>{formatSpan(waiting)}</strong>
      </div>
      <div className="spacer" />
      <button
        type="button"
        className="btn small"
        aria-label="Zoom out"
        title="Zoom out (−, or Ctrl/⌘ + wheel)"
        onClick={() => controller.zoom(1 / ZOOM_STEP)}
      >
        −
      </button>
      <button
        type="button"
        className="btn small"
        aria-label="Zoom in"
        title="Zoom in (+, or Ctrl/⌘ + wheel)"
        onClick={() => controller.zoom(ZOOM_STEP)}
      >
        +
      </button>
      <button type="button" className="btn small" title="The whole session in view (0)" onClick={() => controller.fit()}>
        Fit
      </button>
      {running ? (
        <button
          type="button"
          className="btn small"
          aria-pressed={follow}
          title="Keep now in view while the session runs"
          onClick={() => controller.setFollow(!follow)}
        >
          Follow live
        </button>
      ) : null}
    </div>
  );
}
