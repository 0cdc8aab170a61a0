/**
 * The session event channel: one Channel per started session. Its frames
 * (events, and the usage figures they changed) go to the session store's
 * queue; a channel replaced by a newer session is closed, and anything it
 * still delivers is dropped.
 *
 * A channel can also be opened on hold (for resuming a stored session): it
 * keeps its frames aside until `commit` makes it the current channel, so the
 * live session goes on undisturbed if the command fails.
 */
import { Channel } from "@tauri-apps/api/core";
import type { EventFrame } from "../bindings";
import { enqueueFrame } from "../store/sessionStore";

interface Entry {
  channel: Channel<EventFrame>;
  state: "held" | "open" | "closed";
  held: EventFrame[];
}

let current: Entry | null = null;

function entry(state: Entry["state"]): Entry {
  const channel = new Channel<EventFrame>();
  const e: Entry = { channel, state, held: [] };
  channel.onmessage = (frame) => {
    if (e.state === "open") enqueueFrame(frame);
    else if (e.state === "held") e.held.push(frame);
  };
  return e;
}

/** Opens a fresh channel for a new session and closes the previous one. */
export function openEventChannel(): Channel<EventFrame> {
  closeEventChannel();
  const e = entry("open");
  current = e;
  return e.channel;
}

export interface HeldChannel {
  channel: Channel<EventFrame>;
  /** Closes the current channel, makes this one current and delivers what it held. */
  commit(): void;
  /** Drops this channel and what it held. */
  abort(): void;
}

/** A channel whose frames wait until `commit` (the current channel stays open meanwhile). */
export function openHeldChannel(): HeldChannel {
  const e = entry("held");
  return {
    channel: e.channel,
    commit() {
      if (e.state !== "held") return;
      closeEventChannel();
      e.state = "open";
      current = e;
      for (const frame of e.held) enqueueFrame(frame);
      e.held = [];
    },
    abort() {
      e.state = "closed";
      e.held = [];
    },
  };
}

export function closeEventChannel(): void {
  if (current) current.state = "closed";
  current = null;
}
