/**
 * An agent's wall time, ticking while it runs and its pane is in view. It is a
 * component of its own so that the clock, and a pane coming back into view,
 * render only this text: a tree row or an output header that read the clock
 * themselves rendered whole on every tick and on every session switch
 * (docs/speed.md, issue 25).
 */
import type { ReactNode } from "react";
import { useNow } from "../hooks/useNow";
import { totalElapsedMs } from "../store/selectors";
import type { AgentNode } from "../store/session/types";
import { usePaneShown } from "../store/sessionScope";

interface RunClockProps {
  node: Pick<AgentNode, "wallRunStartedAt" | "wallElapsedMs">;
  /** Whether the time moves (an agent at work); a still clock shows its time as of its last render. */
  running: boolean;
  /** What shows the time (ms over every run); nothing shows for an agent that never ran. */
  children: (elapsedMs: number) => ReactNode;
}

export function RunClock({ node, running, children }: RunClockProps) {
  // A pane out of view keeps its clocks still (store/sessionScope.ts): it is not seen.
  const paneShown = usePaneShown();
  const now = useNow(running && paneShown);
  const elapsed = totalElapsedMs(node, now);
  return elapsed === null ? null : children(elapsed);
}
