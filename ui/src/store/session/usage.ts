/**
 * Token usage as Rust sends it: each agent's figures (its own and its
 * subtree's) and the session's, taken in from UsageUpdates (a live frame's, a
 * stored session's). Rust derives them (arbor-protocol state.rs, checked
 * against the shared fixture); the UI never sums usage, it only keeps the
 * latest figures it was sent.
 */
import type { AgentId, AgentUsage, UsageFigures, UsageUpdate } from "../../bindings";
import type { SessionState, SessionUsage } from "./types";

/** Before any figures arrived: no agent has an entry, the session no total. */
export function noUsage(): SessionUsage {
  return { agents: {}, session: null };
}

/** Every agent's figures of a complete update (a stored session's), by agent id. */
export function usageFrom(update: UsageUpdate): SessionUsage {
  return mergeUsage(noUsage(), [update]);
}

/**
 * `updates`, in order, over `current`: each entry replaces what the agent had
 * (the figures are cumulative, never added up), the last session total
 * replaces the session's. One copy of the map, however many updates; agents
 * not named keep their entry (the same object).
 */
export function mergeUsage(current: SessionUsage, updates: readonly UsageUpdate[]): SessionUsage {
  if (updates.length === 0) return current;
  const agents: Record<AgentId, AgentUsage> = { ...current.agents };
  let session = current.session;
  for (const u of updates) {
    for (const a of u.agents) agents[a.agent_id] = a;
    session = u.session;
  }
  return { agents, session };
}

/**
 * The figures an agent's row shows: its own, or (when its subagents are
 * folded away) its subtree's; null while it has none yet (shown as nothing used).
 */
export function agentFigures(usage: SessionUsage, id: AgentId, subtree: boolean): UsageFigures | null {
  const entry = usage.agents[id];
  if (!entry) return null;
  return subtree ? entry.subtree : entry.own;
}

/** `state` with `updates` merged into its figures; `state` itself when there are none. */
export function withUsage(state: SessionState, updates: readonly UsageUpdate[]): SessionState {
  return updates.length === 0 ? state : { ...state, usage: mergeUsage(state.usage, updates) };
}
