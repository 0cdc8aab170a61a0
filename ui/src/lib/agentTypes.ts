/**
 * The agent types the Delegate… form offers: general-purpose, the types the
 * live session can start (Rust's list for it: SessionInfo.agent_types), and
 * the types found on disk since (Settings → Reload, or read again as the form
 * opens). A type the session does not know is listed but cannot be chosen,
 * saying why: the runtime resolves a delegation's type among those it started
 * with, so it would refuse it.
 */
import { GENERAL_PURPOSE, type AgentTypeInfo } from "../bindings";

export interface TypeOption {
  name: string;
  description: string;
  model: string | null;
  /** Why it can't be chosen; null when it can. */
  unavailable: string | null;
}

export const GENERAL_DESCRIPTION = "Inherits the parent's model, provider, instructions and tools.";

/** Why a type found after the session started can't be chosen in it. */
export const ADDED_SINCE = "added after this session started: start a new session to use it";

/**
 * `session`: the types the live session can start; `found`: those on disk now
 * for its workspace (null until read). A type in both shows as the session
 * has it: that is what would run.
 */
export function typeOptions(
  session: readonly AgentTypeInfo[] | undefined,
  found: readonly AgentTypeInfo[] | null,
): TypeOption[] {
  const usable = (session ?? []).filter((t) => t.name !== GENERAL_PURPOSE);
  const known = new Set(usable.map((t) => t.name));
  const added = (found ?? []).filter((t) => t.name !== GENERAL_PURPOSE && !known.has(t.name));
  return [
    { name: GENERAL_PURPOSE, description: GENERAL_DESCRIPTION, model: null, unavailable: null },
    ...usable.map((t) => ({ name: t.name, description: t.description, model: t.model, unavailable: null })),
    ...added.map((t) => ({ name: t.name, description: t.description, model: t.model, unavailable: ADDED_SINCE })),
  ];
}
