/**
 * While a person types (lib/typing.ts), the window's stepped animations (the
 * spinners and pulses of agents at work) hold still: a step painted in a
 * keystroke's frame holds that keystroke back, and in this webview, which
 * paints in software, a step of every spinner on screen is a large repaint
 * (docs/speed.md: typing p95 19 → 11 ms with a streaming subagent shown).
 * When they pause, each animation goes on from where it would have been, so
 * every spinner in the window still steps in the same frames
 * (components/Spinner.tsx).
 */
import { onTypingChange } from "./typing";

/** The keyframes that step (styles/layout.css). */
const STEPPED = new Set(["spin", "pulse"]);

interface Held {
  animation: Animation;
  startTime: CSSNumberish | null;
}

function stepped(a: Animation): boolean {
  return "animationName" in a && STEPPED.has(String((a as CSSAnimation).animationName));
}

/** Installs the hold; returns its removal. */
export function installStillWhileTyping(): () => void {
  let held: Held[] = [];
  return onTypingChange((typing) => {
    if (typeof document === "undefined" || typeof document.getAnimations !== "function") return;
    if (typing) {
      held = document
        .getAnimations()
        .filter(stepped)
        .map((animation) => ({ animation, startTime: animation.startTime }));
      for (const h of held) h.animation.pause();
      return;
    }
    // Its start time as before the pause: it plays again in step with the document's clock.
    // One whose element left meanwhile was cancelled ("idle"): a start time would play it on, unseen.
    for (const h of held) if (h.startTime !== null && h.animation.playState === "paused") h.animation.startTime = h.startTime;
    held = [];
  });
}
