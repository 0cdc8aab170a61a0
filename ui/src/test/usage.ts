/**
 * Builders of usage figures for tests, shaped as Rust sends them: each
 * figure's tokens are given (as input tokens), never summed here; and budget
 * standings, with the figures and shares given as Rust would have computed them.
 */
import type { AgentId, AgentUsage, Budget, BudgetKind, BudgetStanding, BudgetUse, UsageFigures, UsageUpdate } from "../bindings";

export function figures(tokens: number, cost: number | null = null): UsageFigures {
  return {
    usage: { input_tokens: tokens, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: cost },
    tokens,
  };
}

/** An agent's entry; a leaf's subtree figures are its own. No budget unless given. */
export function agentUsage(
  agentId: AgentId,
  own: UsageFigures,
  subtree: UsageFigures = own,
  budget: BudgetStanding | null = null,
): AgentUsage {
  return { agent_id: agentId, own, subtree, budget };
}

export function usageUpdate(agents: AgentUsage[], session: UsageFigures): UsageUpdate {
  return { agents, session };
}

/** A budget with only the limits given. */
export function budget(limits: Partial<Budget> = {}): Budget {
  return { max_tokens: null, max_cost_usd: null, max_duration_seconds: null, max_subagents: null, ...limits };
}

/**
 * A standing as Rust sends it: the budget, what was used, and the share of the
 * nearest limit (given, not computed here), with the limit that ran out if any.
 */
export function standing(
  limits: Partial<Budget>,
  used: Partial<BudgetUse>,
  fraction: number,
  nearest: BudgetKind | null,
  exhausted: BudgetKind | null = null,
): BudgetStanding {
  return {
    budget: budget(limits),
    used: { tokens: 0, cache_read_tokens: 0, cost_usd: 0, cost_incomplete: false, elapsed_ms: 0, subagents: 0, ...used },
    fraction,
    nearest,
    exhausted,
    next_tokens: 0,
  };
}
