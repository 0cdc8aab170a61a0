/**
 * The spinner of something under way. Every spinner in the window turns in step
 * (its animation started on the document clock's whole second), so their stepped
 * turns repaint in the same frames: begun when each mounted, two dozen of them
 * stepped in different frames, and the page, painted in software, repainted in
 * nearly every one (docs/speed.md).
 */
import { useCallback, useState, type CSSProperties, type RefCallback } from "react";

/** The spinner's period (styles/layout.css `.spinner`). */
const TURN_MS = 1000;

/** A negative delay that puts an animation of `periodMs` in phase with the document clock. */
export function inPhase(periodMs: number): string {
  return `${-(performance.now() % periodMs)}ms`;
}

/**
 * What keeps an element's animation of `periodMs` in phase: its delay, fixed
 * when it renders, and, where the page has the Web Animations API, its
 * animation's start time pinned when it mounts. CSS starts an animation when
 * the element's style is first resolved, which under a heavy stream can be a
 * hundred milliseconds after the render that computed the delay (the
 * end-to-end layout test saw a spinner 130 ms out of step).
 */
export function usePhase(periodMs: number): { style: CSSProperties; ref: RefCallback<HTMLElement> } {
  const [style] = useState(() => ({ animationDelay: inPhase(periodMs) }));
  const ref = useCallback(
    (el: HTMLElement | null) => {
      if (el === null || typeof el.getAnimations !== "function") return;
      // Begun at the timeline's `-delay`: its turns fall on the document clock's whole periods.
      const start = -parseFloat(style.animationDelay);
      for (const a of el.getAnimations()) a.startTime = start;
    },
    [style],
  );
  return { style, ref };
}

export function Spinner() {
  const { style, ref } = usePhase(TURN_MS);
  return <span className="spinner" style={style} ref={ref} />;
}
