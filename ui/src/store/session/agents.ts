/**
 * Each agent as Rust's one derivation left it (arbor-protocol state.rs:
 * `StoredAgent`, sent in every frame for the agents its events changed, and in
 * a stored session's detail), written onto the tree's nodes as it is. The
 * reducer builds the tree, the outputs and the approvals from the events; an
 * agent's status, runs, wall time, turns, end and budget it takes from here,
 * and derives none of them itself.
 */
import type { AgentId, ContextWindow, ExternalAgent, Fork, StoredAgent } from "../../bindings";
import { isTerminal } from "./status";
import type { AgentNode, SessionState } from "./types";

/** The node's window when it is the same figure (every frame brings a new object). */
function sameWindow(had: ContextWindow | null, now: ContextWindow | null): ContextWindow | null {
  return had !== null && now !== null && had.tokens === now.tokens && had.source === now.source ? had : now;
}

/** `had` when `now` says the same, so an unchanged node stays the same object. */
function sameFork(had: Fork | null, now: Fork | null): Fork | null {
  return had !== null && now !== null && had.messages === now.messages ? had : now;
}

function sameExternal(had: ExternalAgent | null, now: ExternalAgent | null): ExternalAgent | null {
  return had !== null && now !== null && had.command === now.command && JSON.stringify(had.sandbox) === JSON.stringify(now.sandbox)
    ? had
    : now;
}

/** The node's figures as `agent` has them; the node itself when nothing differs. */
function settled(node: AgentNode, agent: StoredAgent): AgentNode {
  const next: AgentNode = {
    ...node,
    status: agent.status,
    depth: agent.depth,
    description: agent.description,
    subagentType: agent.subagent_type,
    model: agent.model,
    provider: agent.provider,
    background: agent.background,
    // Absent from agents stored before forks existed.
    fork: sameFork(node.fork, agent.fork ?? null),
    // Absent from agents stored before external agents existed; kept while the same.
    external: sameExternal(node.external, agent.external ?? null),
    startedAt: agent.started_at,
    endedAt: agent.ended_at,
    durationMs: agent.duration_ms,
    turns: agent.turns,
    budget: agent.budget ?? null,
    // Absent from agents stored before wall time was kept: no run counted.
    wallElapsedMs: agent.elapsed_ms ?? 0,
    wallRunStartedAt: agent.run_started_at ?? null,
    // Absent from agents stored before context was kept.
    contextUsed: agent.context_used ?? 0,
    contextWindow: sameWindow(node.contextWindow, agent.context_window ?? null),
  };
  // A call it was still writing when its run ended never ran.
  if (isTerminal(agent.status) && node.items.some((it) => it.kind === "tool" && it.input === "writing")) {
    next.items = node.items.map((it) => (it.kind === "tool" && it.input === "writing" ? { ...it, input: "cut" } : it));
  }
  const same = (Object.keys(next) as (keyof AgentNode)[]).every((k) => next[k] === node[k]);
  return same ? node : next;
}

/**
 * `state` with each of `agents` (later ones win) on its node; an agent with no
 * node yet (its agent_started not applied) is skipped. `state` itself when
 * nothing changed.
 */
export function withAgents(state: SessionState, agents: readonly StoredAgent[]): SessionState {
  let copied: Record<AgentId, AgentNode> | null = null;
  for (const agent of agents) {
    const node = (copied ?? state.agents)[agent.id];
    if (!node) continue;
    const next = settled(node, agent);
    if (next === node) continue;
    copied ??= { ...state.agents };
    copied[agent.id] = next;
  }
  return copied ? { ...state, agents: copied } : state;
}
