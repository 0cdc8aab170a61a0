/**
 * Whether a person is typing: a text field had input within the last
 * TYPING_MS. While they type, the window puts their keys first: batches and
 * clock ticks wait for a pause, TYPING_HOLD_MS at most (store/sessionStore.ts,
 * hooks/useNow.ts), and the backend sends every session at its background
 * pace (ipc/pace.ts), so little else competes with a keystroke's paint.
 */
export const TYPING_MS = 150;

/**
 * The longest the window holds the stream back (its batches and its clocks)
 * while a person types on without a pause: anything else painted in the frame
 * of a keystroke holds that keystroke back (a subagent's output scrolling as
 * it streams repaints the whole output; docs/speed.md), and someone typing
 * is not reading it meanwhile. They pause, and it catches up at once.
 */
export const TYPING_HOLD_MS = 1000;

/**
 * Whether something last shown `ageMs` ago (a batch applied, a clock's due tick)
 * waits for the person typing: they type, and it has waited less than
 * TYPING_HOLD_MS. A negative age (a clock that went back, as a test's fake one
 * does) is no reason to wait.
 */
export function heldForTyping(ageMs: number): boolean {
  return isTyping(performance.now()) && ageMs >= 0 && ageMs < TYPING_HOLD_MS;
}

/** When a person last typed in a text field (performance.now()). */
let typedAt = Number.NEGATIVE_INFINITY;
let quietTimer: ReturnType<typeof setTimeout> | null = null;
const listeners = new Set<(typing: boolean) => void>();

/** Whether the last keystroke was less than TYPING_MS before `now` (a clock that went back, as a test's fake one does, is no typing). */
export function isTyping(now: number): boolean {
  return now >= typedAt && now - typedAt < TYPING_MS;
}

/** Calls `listener(true)` when typing starts and `listener(false)` when it has paused for TYPING_MS. */
export function onTypingChange(listener: (typing: boolean) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function quiet(): void {
  quietTimer = null;
  for (const l of [...listeners]) l(false);
}

if (typeof window !== "undefined") {
  window.addEventListener(
    "input",
    () => {
      typedAt = performance.now();
      if (quietTimer === null) for (const l of [...listeners]) l(true);
      else clearTimeout(quietTimer);
      quietTimer = setTimeout(quiet, TYPING_MS);
    },
    true,
  );
}
