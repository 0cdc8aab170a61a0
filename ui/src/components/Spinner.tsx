/**
 * The spinner of something under way. Every spinner in the window turns in step
 * (its animation started on the document clock's whole second), so their stepped
 * turns repaint in the same frames: begun when each mounted, two dozen of them
 * stepped in different frames, and the page, painted in software, repainted in
 * nearly every one (docs/speed.md).
 */
import { useState, type CSSProperties } from "react";

/** The spinner's period (styles/layout.css `.spinner`). */
const TURN_MS = 1000;

/** A negative delay that puts an animation of `periodMs` in phase with the document clock. */
export function inPhase(periodMs: number): string {
  return `${-(performance.now() % periodMs)}ms`;
}

/** The style that keeps an element's animation of `periodMs` in phase, fixed when it mounts. */
export function usePhase(periodMs: number): CSSProperties {
  const [style] = useState(() => ({ animationDelay: inPhase(periodMs) }));
  return style;
}

export function Spinner() {
  return <span className="spinner" style={usePhase(TURN_MS)} />;
}
