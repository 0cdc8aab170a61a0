/**
 * The session event channel: one Channel per started session. Batches from it
 * go to the session store's queue; a channel replaced by a newer session is
 * closed, and anything it still delivers is dropped.
 */
import { Channel } from "@tauri-apps/api/core";
import type { AgentEvent } from "../bindings";
import { enqueueEvents } from "../store/sessionStore";

let current: { channel: Channel<AgentEvent[]>; open: boolean } | null = null;

/** Opens a fresh channel for a new session and closes the previous one. */
export function openEventChannel(): Channel<AgentEvent[]> {
  closeEventChannel();
  const channel = new Channel<AgentEvent[]>();
  const entry = { channel, open: true };
  channel.onmessage = (batch) => {
    if (entry.open) enqueueEvents(batch);
  };
  current = entry;
  return channel;
}

export function closeEventChannel(): void {
  if (current) current.open = false;
  current = null;
}
