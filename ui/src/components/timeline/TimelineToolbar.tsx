/**
 * The timeline's toolbar: what the colours mean, the session's total time
 * waiting for the person, zoom out / in, Fit, and (while the session runs)
 * Follow live. Its tooltips are lib/tooltip's, not native titles (those
 * linger after a click, and over Follow live's place once it has gone).
 */
import { useSyncExternalStore } from "react";
import { formatSpan } from "../../lib/timeline";
import { Tip } from "../../lib/tooltip";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { useNow } from "../../hooks/useNow";
import { timelineOf, timelineStore, waitedAt } from "../../store/timeline";
import type { TimelineController } from "./controller";
import { useRunning } from "./useRunning";

/** One press of − or +. */
export const ZOOM_STEP = 1.5;

export function TimelineToolbar({ controller }: { controller: TimelineController }) {
  const sessionId = useStore(sessionStore, (s) => s.sessionId);
  const timeline = useStore(timelineStore, (all) => timelineOf(all, sessionId));
  // A wait in progress counts as it passes, a second at a time.
  const now = useNow((timeline?.liveWait ?? null) !== null);
  const waiting = waitedAt(timeline, now);
  const running = useRunning();
  const follow = useSyncExternalStore(controller.subscribe, () => controller.follow);
  return (
    <div className="timeline-toolbar">
      <div className="timeline-legend" aria-hidden="true">
        <span className="swatch queued" /> Queued
        <span className="swatch model" /> Model
        <span className="swatch compaction" /> Compacting
        <span className="swatch tool" /> Tool
        <span className="swatch approval" /> Waiting for you
      </div>
      <Tip text="Time any agent waited for your approval">
        <span className="timeline-waiting" data-testid="timeline-waiting">
          Waited for you: <strong>{formatSpan(waiting)}</strong>
        </span>
      </Tip>
      <div className="spacer" />
      {/* At the toolbar's right end: the tooltips line up with the buttons' right edges. */}
      <Tip text="Zoom out (−, or Ctrl/⌘ + wheel)" align="end">
        {(describedBy) => (
          <button
            type="button"
            className="btn small"
            aria-label="Zoom out"
            aria-describedby={describedBy}
            onClick={() => controller.zoom(1 / ZOOM_STEP)}
          >
            −
          </button>
        )}
      </Tip>
      <Tip text="Zoom in (+, or Ctrl/⌘ + wheel)" align="end">
        {(describedBy) => (
          <button
            type="button"
            className="btn small"
            aria-label="Zoom in"
            aria-describedby={describedBy}
            onClick={() => controller.zoom(ZOOM_STEP)}
          >
            +
          </button>
        )}
      </Tip>
      <Tip text="The whole session in view (0)" align="end">
        {(describedBy) => (
          <button type="button" className="btn small" aria-describedby={describedBy} onClick={() => controller.fit()}>
            Fit
          </button>
        )}
      </Tip>
      {running ? (
        <Tip text="Keep now in view while the session runs" align="end">
          {(describedBy) => (
            <button
              type="button"
              className="btn small"
              aria-pressed={follow}
              aria-describedby={describedBy}
              onClick={() => controller.setFollow(!follow)}
            >
              Follow live
            </button>
          )}
        </Tip>
      ) : null}
    </div>
  );
}
