import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { eventMaker } from "../test/events";
import { enqueueEvents, onEventsApplied, resetSession, sessionStore } from "./sessionStore";

describe("the event queue", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    resetSession(null);
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
    resetSession("new prompt");
    vi.advanceTimersToNextFrame();
    vi.advanceTimersByTime(500);
    expect(sessionStore.get().roots).toEqual([]);
    expect(sessionStore.get().initialPrompt).toBe("new prompt");
  });
});
