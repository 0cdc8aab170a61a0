/**
 * The sessions list: every live session of the window as a row, those waiting
 * for the person first (most requests first), then those at work, then the
 * finished ones (those that finished since the person last looked first, and
 * marked). Pure: it reads the live views the store gives.
 */
import { mainAgent, pendingApprovals } from "../store/selectors";
import type { AgentNode } from "../store/session/types";
import { isTerminal } from "../store/session/status";
import type { LiveView, SlotKey } from "../store/sessionStore";
import { oneLine, shortWorkspace } from "./history";

export type SessionGroup = "waiting" | "working" | "finished";

export interface SessionRow {
  key: SlotKey;
  /** Its first prompt, on one line; null before its first event. */
  prompt: string | null;
  workspace: string;
  pending: number;
  /** Agents at work (running, queued, waiting), subagents included. */
  atWork: number;
  tokens: number;
  costUsd: number | null;
  /** The main agent, whose wall time is the session's elapsed time. */
  main: AgentNode | null;
  group: SessionGroup;
  /** It finished after the person last looked at it. */
  unseen: boolean;
  current: boolean;
  /** Its start has not answered yet. */
  starting: boolean;
}

const ORDER: Record<SessionGroup, number> = { waiting: 0, working: 1, finished: 2 };

function endedAt(agents: readonly AgentNode[]): number {
  let last = 0;
  for (const a of agents) last = Math.max(last, a.endedAt ?? 0);
  return last;
}

const rowsMemo = new WeakMap<readonly LiveView[], SessionRow[]>();

/** One row per live session, in the list's order (start order within a group); the same array for the same views. */
export function sessionRows(views: readonly LiveView[]): SessionRow[] {
  let out = rowsMemo.get(views);
  if (!out) {
    out = buildRows(views);
    rowsMemo.set(views, out);
  }
  return out;
}

function buildRows(views: readonly LiveView[]): SessionRow[] {
  const rows = views.map((v, index): SessionRow & { index: number } => {
    const agents = Object.values(v.state.agents).filter((a) => a.known);
    const atWork = agents.filter((a) => !isTerminal(a.status)).length;
    const pending = pendingApprovals(v.state).length;
    const group: SessionGroup = pending > 0 ? "waiting" : atWork > 0 || v.info === null ? "working" : "finished";
    const main = mainAgent(v.state);
    const totals = v.state.usage.session;
    return {
      index,
      key: v.key,
      prompt: main?.prompt ? oneLine(main.prompt, 120) : null,
      workspace: v.info ? shortWorkspace(v.info.workspace) : "",
      pending,
      atWork,
      tokens: totals?.tokens ?? 0,
      costUsd: totals?.usage.cost_usd ?? null,
      main,
      group,
      unseen: group === "finished" && !v.current && endedAt(agents) > v.lookedAt,
      current: v.current,
      starting: v.info === null,
    };
  });
  rows.sort(
    (a, b) =>
      ORDER[a.group] - ORDER[b.group] ||
      (a.group === "waiting" ? b.pending - a.pending : 0) ||
      (a.group === "finished" ? Number(b.unseen) - Number(a.unseen) : 0) ||
      a.index - b.index,
  );
  return rows.map(({ index: _index, ...row }) => row);
}

/** The list shows when there is somewhere else to go: several live sessions, or one not on display. */
export function showsSessionsList(slots: number, currentShown: boolean): boolean {
  return slots >= 2 || (slots === 1 && !currentShown);
}
