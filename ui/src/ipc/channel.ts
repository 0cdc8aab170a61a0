/**
 * The session event channels: one Channel per live session of the window. Its
 * frames (events, and the usage figures they changed) go to that session's
 * queue in the store (by its key); a session closed or dropped takes its
 * channel with it, and anything it still delivers is dropped.
 *
 * A channel can also be opened on hold (for continuing a stored session, or
 * joining a running one after a reload): it keeps its frames aside until
 * `commit` names the session they belong to, so nothing is shown if the
 * command fails.
 */
import { Channel } from "@tauri-apps/api/core";
import type { EventFrame } from "../bindings";
import { enqueueFrame, type SlotKey } from "../store/sessionStore";

/** A channel whose frames go to live session `key`. */
export function openEventChannel(key: SlotKey): Channel<EventFrame> {
  const channel = new Channel<EventFrame>();
  channel.onmessage = (frame) => enqueueFrame(frame, key);
  return channel;
}

export interface HeldChannel {
  channel: Channel<EventFrame>;
  /**
   * From now on its frames go to live session `key`, starting with what it
   * held; those that end at or before event `through` (the store's part, read
   * already) are dropped.
   */
  commit(key: SlotKey, through: number): void;
  /** Drops this channel and what it held. */
  abort(): void;
}

/** A channel whose frames wait until `commit`. */
export function openHeldChannel(): HeldChannel {
  let state: { kind: "held"; frames: EventFrame[] } | { kind: "open"; key: SlotKey } | { kind: "closed" } = {
    kind: "held",
    frames: [],
  };
  const channel = new Channel<EventFrame>();
  let after = -1;
  channel.onmessage = (frame) => {
    if (state.kind === "open") {
      if (frame.through > after) enqueueFrame(frame, state.key);
    } else if (state.kind === "held") state.frames.push(frame);
  };
  return {
    channel,
    commit(key, through) {
      if (state.kind !== "held") return;
      const held = state.frames;
      state = { kind: "open", key };
      after = through;
      for (const frame of held) if (frame.through > after) enqueueFrame(frame, key);
    },
    abort() {
      state = { kind: "closed" };
    },
  };
}
