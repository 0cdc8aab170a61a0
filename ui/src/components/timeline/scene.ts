/**
 * What one frame of the timeline draws, read from the stores: the rows (the
 * agent tree's, in its order and with its collapsed nodes), each agent's lane
 * and node, the selection, whether the session runs (its open segments grow
 * until now), and the span the lanes cover.
 */
import type { AgentId } from "../../bindings";
import { timelineExtent, type Extent } from "../../lib/timeline";
import { bookStore } from "../../store/review";
import { effectiveSelection, visibleRows, type TreeRow } from "../../store/selectors";
import type { AgentNode } from "../../store/session/types";
import { sessionStore } from "../../store/sessionStore";
import { anyAgentActive, timelineOf, timelineStore, type TimelineLane } from "../../store/timeline";
import { uiStore } from "../../store/ui";

export interface Scene {
  rows: readonly TreeRow[];
  agents: Readonly<Record<AgentId, AgentNode>>;
  lanes: Readonly<Record<AgentId, TimelineLane>>;
  selected: AgentId | null;
  /** The live session runs: "now" moves and open segments grow until it. */
  running: boolean;
  /** Where open segments end: now while running, else the end of the span. */
  now: number;
  /** The span the lanes and agents cover; null while there is nothing to draw. */
  extent: Extent | null;
}

const NO_LANES: Readonly<Record<AgentId, TimelineLane>> = {};

/** Whether the displayed session is the live one and one of its agents has not ended. */
export function sessionRunning(): boolean {
  const ui = uiStore.get();
  return bookStore.get().review === null && ui.session !== null && anyAgentActive(sessionStore.get().agents);
}

export function readScene(now: number): Scene {
  const state = sessionStore.get();
  const ui = uiStore.get();
  const lanes = timelineOf(timelineStore.get(), state.sessionId)?.lanes ?? NO_LANES;
  const running = sessionRunning();
  const times: (number | null)[] = [];
  for (const id in state.agents) {
    const a = state.agents[id];
    if (a?.known) times.push(a.startedAt, a.endedAt);
  }
  const extent = timelineExtent(
    Object.values(lanes).map((l) => l.segments),
    times,
    running ? now : null,
  );
  return {
    rows: visibleRows(state, ui.collapsed),
    agents: state.agents,
    lanes,
    selected: effectiveSelection(state, ui.selected),
    running,
    now: running ? now : (extent?.end ?? now),
    extent,
  };
}
