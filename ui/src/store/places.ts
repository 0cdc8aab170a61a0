/**
 * Where the person left each agent's output (by session and agent): scrolled
 * up to read, or following the end, with the heights its rows measured.
 * Switching to another session or agent and back brings the output back
 * there, laid out once at the heights it had (not at estimates that the
 * first measurement moves). Bounded: the oldest places are forgotten.
 */
import type { VirtualItem } from "@tanstack/react-virtual";
import type { AgentId, SessionId } from "../bindings";

export interface Place {
  /** The output's scrollTop when it was left. */
  top: number;
  /** It was following the newest output. */
  following: boolean;
  /** The rows it measured (the virtualizer's snapshot), by row key. */
  measured: readonly VirtualItem[];
}

const MAX_PLACES = 500;
const places = new Map<string, Place>();

const keyOf = (session: SessionId | null, agent: AgentId) => `${session ?? ""}/${agent}`;

export function rememberPlace(session: SessionId | null, agent: AgentId, place: Place): void {
  const key = keyOf(session, agent);
  places.delete(key);
  places.set(key, place);
  if (places.size > MAX_PLACES) {
    const oldest = places.keys().next().value;
    if (oldest !== undefined) places.delete(oldest);
  }
}

export function placeOf(session: SessionId | null, agent: AgentId): Place | null {
  return places.get(keyOf(session, agent)) ?? null;
}
