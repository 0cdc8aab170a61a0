import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { eventMaker } from "../test/events";
import { initialSession, reduceBatch } from "./session/reducer";
import {
  adoptDisplayedSession,
  enqueueEvents,
  flushEvents,
  hasParkedSession,
  onEventsApplied,
  resetSession,
  sessionStore,
  showLiveSession,
  showPastSession,
} from "./sessionStore";

describe("the event queue", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    resetSession();
  });
  afterEach(() => vi.useRealTimers());

  it("applies queued batches once per frame, in order, with one store update", () => {
    const e = eventMaker();
    const updates = vi.fn();
    const off = sessionStore.subscribe(updates);
    const applied = vi.fn();
    const offApplied = onEventsApplied(applied);
    enqueueEvents([e.started("agent-main", null, "main")]);
    const chunks = Array.from({ length: 500 }, (_, i) => e.make("agent-main", { type: "response_chunk", content: String(i % 10) }));
    enqueueEvents(chunks);
    expect(sessionStore.get().agents["agent-main"]).toBeUndefined();
    vi.advanceTimersToNextFrame();
    expect(updates).toHaveBeenCalledTimes(1);
    expect(applied).toHaveBeenCalledTimes(1);
    expect(sessionStore.get().agents["agent-main"]?.items[0]).toMatchObject({ kind: "response" });
    expect((sessionStore.get().agents["agent-main"]?.items[0] as { text: string }).text).toHaveLength(500);
    expect(window.__arborEventsApplied).toBeGreaterThanOrEqual(501);
    off();
    offApplied();
  });

  it("drops what was queued for a session that was replaced", () => {
    const e = eventMaker();
    enqueueEvents([e.started("agent-main", null, "main")]);
    resetSession();
    vi.advanceTimersToNextFrame();
    vi.advanceTimersByTime(500);
    expect(sessionStore.get().roots).toEqual([]);
  });

  it("keeps applying the live session's events while a past session is displayed", () => {
    const live = eventMaker("s-live");
    enqueueEvents([live.started("agent-main", null, "live main")]);
    flushEvents();
    const past = reduceBatch(initialSession(), [eventMaker("s-past").started("agent-old", null, "old main")]);
    const applied = vi.fn();
    const off = onEventsApplied(applied);
    showPastSession(past);
    expect(hasParkedSession()).toBe(true);
    enqueueEvents([live.status("agent-main", "running")]);
    vi.advanceTimersToNextFrame();
    // The past session stays on display; the live one moved on out of sight.
    expect(sessionStore.get()).toBe(past);
    expect(applied).toHaveBeenCalledTimes(1);
    expect(showLiveSession()).toBe(true);
    expect(sessionStore.get().sessionId).toBe("s-live");
    expect(sessionStore.get().agents["agent-main"]?.status).toBe("running");
    expect(showLiveSession()).toBe(false);
    off();
  });

  it("forgets a parked live session when the displayed one is adopted", () => {
    const live = eventMaker("s-live");
    enqueueEvents([live.started("agent-main", null, "live main")]);
    flushEvents();
    const past = reduceBatch(initialSession(), [eventMaker("s-past").started("agent-old", null, "old main")]);
    showPastSession(past);
    enqueueEvents([live.status("agent-main", "cancelled")]);
    adoptDisplayedSession();
    vi.advanceTimersByTime(500);
    expect(hasParkedSession()).toBe(false);
    expect(sessionStore.get()).toBe(past);
  });
});
