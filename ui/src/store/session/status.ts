/** Which agent statuses end a run: the tree, the output and the reducer ask the same question. */
import { TERMINAL_AGENT_STATUSES, type AgentStatus } from "../../bindings";

// Rust owns the list (AgentStatus::TERMINAL); a status it adds is terminal here too.
export const TERMINAL: ReadonlySet<AgentStatus> = new Set<AgentStatus>(TERMINAL_AGENT_STATUSES);

export function isTerminal(status: AgentStatus): boolean {
  return TERMINAL.has(status);
}
