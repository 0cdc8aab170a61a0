/**
 * Whether a person is typing: a text field had input within the last
 * TYPING_MS. While they type, the window puts their keys first: the shown
 * session's batches are applied a few times a second, not every frame
 * (store/sessionStore.ts), and the backend sends them as seldom
 * (ipc/pace.ts), so little else competes with a keystroke's paint.
 */
export const TYPING_MS = 150;

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
