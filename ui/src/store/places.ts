/**
 * Where the person left each agent's output (by session and agent): scrolled
 * up to read, or following the end. Switching to another session or agent and
 * back brings the output back there. Bounded: the oldest places are forgotten.
 */
import type { AgentId, SessionId } from "../bindings";

export interface Place {
  /** The output's scrollTop when it was left. */
  top: number;
  /** It was following the newest output. */
  following: boolean;
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
