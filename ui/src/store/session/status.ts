/** Which agent statuses end a run, and which of those a new run carries on from: Rust's lists, asked in one place. */
import { RESUMABLE_AGENT_STATUSES, TERMINAL_AGENT_STATUSES, type AgentStatus } from "../../bindings";

// Rust owns the list (AgentStatus::TERMINAL); a status it adds is terminal here too.
export const TERMINAL: ReadonlySet<AgentStatus> = new Set<AgentStatus>(TERMINAL_AGENT_STATUSES);

export function isTerminal(status: AgentStatus): boolean {
  return TERMINAL.has(status);
}

// Which ended statuses a plain new run carries on from: Rust's too (AgentStatus::RESUMABLE).
export const RESUMABLE: ReadonlySet<AgentStatus> = new Set<AgentStatus>(RESUMABLE_AGENT_STATUSES);
