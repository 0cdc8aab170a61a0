/**
 * The spinner of something under way. Every spinner in the window turns in step
 * (its animation started on the document clock's whole second), so their stepped
 * turns repaint in the same frames: begun when each mounted, two dozen of them
 * stepped in different frames, and the page, painted in software, repainted in
 * nearly every one (docs/speed.md).
 */
import { useState } from "react";

/** The spinner's period (styles/layout.css `.spinner`). */
const TURN_MS = 1000;

/** A negative delay that puts an animation of `periodMs` in phase with the document clock. */
export function inPhase(periodMs: number): string {
  return `${-(performance.now() % periodMs)}ms`;
}

export function Spinner() {
  const [delay] = useState(() => inPhase(TURN_MS));
  return <span className="spinner" style={{ animationDelay: delay }} />;
}
