/**
 * While a person types (lib/typing.ts), the window's stepped animations (the
 * spinners and pulses of agents at work) hold still: a step painted in a
 * keystroke's frame holds that keystroke back, and in this webview, which
 * paints in software, a step of every spinner on screen is a large repaint
 * (docs/speed.md: typing p95 19 → 11 ms with a streaming subagent shown).
 * When they pause, each animation goes on from where it would have been, so
 * every spinner in the window still steps in the same frames
 * (components/Spinner.tsx). A session's pane out of view holds its own still
 * the same way (`holdStill`).
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

/**
 * Pauses the stepped animations under `root` (a session's pane out of view,
 * components/layout/SessionPanes.tsx: clipped away, its spinners would still
 * be stepped, restyled and painted off-screen every frame); the returned
 * function plays them again in step with every spinner in the window: a start
 * time of minus its delay puts its turns on the document clock's whole periods
 * (components/Spinner.tsx), whatever paused it meanwhile. Pausing touches only
 * the animated elements, where a style on the pane would restyle all of it.
 */
export function holdStill(root: Element): () => void {
  if (typeof root.getAnimations !== "function") return () => undefined;
  const held = root.getAnimations({ subtree: true }).filter(stepped);
  for (const a of held) a.pause();
  return () => {
    for (const a of held) {
      // One whose element left meanwhile was cancelled ("idle"): a start time would play it on, unseen.
      if (a.playState !== "paused") continue;
      const delay = a.effect?.getTiming().delay;
      a.startTime = -(typeof delay === "number" ? delay : 0);
    }
  };
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
