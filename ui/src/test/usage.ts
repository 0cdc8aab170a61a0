/**
 * Builders of usage figures for tests, shaped as Rust sends them: each
 * figure's tokens are given (as input tokens), never summed here.
 */
import type { AgentId, AgentUsage, UsageFigures, UsageUpdate } from "../bindings";

export function figures(tokens: number, cost: number | null = null): UsageFigures {
  return {
    usage: { input_tokens: tokens, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: cost },
    tokens,
  };
}

/** An agent's entry; a leaf's subtree figures are its own. */
export function agentUsage(agentId: AgentId, own: UsageFigures, subtree: UsageFigures = own): AgentUsage {
  return { agent_id: agentId, own, subtree };
}

export function usageUpdate(agents: AgentUsage[], session: UsageFigures): UsageUpdate {
  return { agents, session };
}
