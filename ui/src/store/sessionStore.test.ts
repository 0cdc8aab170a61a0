import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { askFor, rule } from "../test/approvals";
import { eventMaker } from "../test/events";
import { frameOf } from "../test/stores";
import { agentUsage, figures, usageUpdate } from "../test/usage";
import { initialSession } from "./session/reducer";
import { reduceBatch } from "../test/agents";
import { TYPING_HOLD_MS, TYPING_MS } from "../lib/typing";
import {
  dropSlot,
  enqueueFrame,
  flushEvents,
  hasParkedSession,
  holdBatches,
  liveSession,
  liveStore,
  liveViews,
  onEventsApplied,
  openSlot,
  resetSession,
  sessionStore,
  showLiveSession,
  showPastSession,
  slotStateOf,
  switchToSlot,
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
    enqueueFrame(frameOf([e.started("agent-main", null, "main")]));
    const chunks = Array.from({ length: 500 }, (_, i) => e.make("agent-main", { type: "response_chunk", content: String(i % 10) }));
    enqueueFrame(frameOf(chunks));
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

  it("holds batches while a part of the window renders what a person asked for, at most until the fallback", () => {
    const e = eventMaker();
    const release = holdBatches();
    enqueueFrame(frameOf([e.started("agent-main", null, "main")]));
    vi.advanceTimersToNextFrame();
    vi.advanceTimersToNextFrame();
    expect(sessionStore.get().agents["agent-main"]).toBeUndefined();
    release();
    vi.advanceTimersToNextFrame();
    expect(sessionStore.get().agents["agent-main"]).toBeDefined();
    // Never released: the 250 ms fallback applies them anyway.
    const forgotten = holdBatches();
    enqueueFrame(frameOf([e.started("agent-s", "agent-main", "Child")]));
    vi.advanceTimersToNextFrame();
    expect(sessionStore.get().agents["agent-s"]).toBeUndefined();
    vi.advanceTimersByTime(260);
    expect(sessionStore.get().agents["agent-s"]).toBeDefined();
    forgotten();
    forgotten();
  });

  it("while a person types, holds the stream's batches until they pause, and a second at most, losing none", async () => {
    const e = eventMaker();
    const applied = vi.fn();
    const off = onEventsApplied(applied);
    enqueueFrame(frameOf([e.started("agent-main", null, "main")]));
    vi.advanceTimersToNextFrame();
    expect(applied).toHaveBeenCalledTimes(1);
    const text = () => (sessionStore.get().agents["agent-main"]?.items[0] as { text: string } | undefined)?.text;
    // Typing, a key a frame, while a chunk arrives every frame: 30 frames, about half a second.
    const keyAndChunk = async (c: string) => {
      window.dispatchEvent(new Event("input"));
      enqueueFrame(frameOf([e.make("agent-main", { type: "response_chunk", content: c })]));
      vi.advanceTimersToNextFrame();
      // The after-paint task.
      await vi.advanceTimersByTimeAsync(0);
    };
    for (let i = 0; i < 30; i++) await keyAndChunk("x");
    expect(applied).toHaveBeenCalledTimes(1);
    expect(text()).toBeUndefined();
    // They pause: everything that waited, in the next frame.
    vi.advanceTimersByTime(TYPING_MS + 1);
    vi.advanceTimersToNextFrame();
    expect(applied).toHaveBeenCalledTimes(2);
    expect(text()).toBe("x".repeat(30));
    // Someone who types on without a pause still sees the stream once a hold, and nothing is lost.
    const start = performance.now();
    while (performance.now() - start < TYPING_HOLD_MS * 2.5) await keyAndChunk("y");
    expect(applied.mock.calls.length - 2).toBeGreaterThanOrEqual(2);
    expect(applied.mock.calls.length - 2).toBeLessThanOrEqual(3);
    flushEvents();
    expect(text()).toMatch(/^x{30}y+$/);
    // Typing over: every frame again.
    vi.advanceTimersByTime(300);
    enqueueFrame(frameOf([e.make("agent-main", { type: "response_chunk", content: "z" })]));
    const before = applied.mock.calls.length;
    vi.advanceTimersToNextFrame();
    expect(applied.mock.calls.length).toBe(before + 1);
    off();
  });

  it("drops what was queued for a session that was replaced", () => {
    const e = eventMaker();
    enqueueFrame(frameOf([e.started("agent-main", null, "main")]));
    resetSession();
    vi.advanceTimersToNextFrame();
    vi.advanceTimersByTime(500);
    expect(sessionStore.get().roots).toEqual([]);
  });

  it("keeps applying the live session's events while a past session is displayed", () => {
    const live = eventMaker("s-live");
    enqueueFrame(frameOf([live.started("agent-main", null, "live main")]));
    flushEvents();
    const past = reduceBatch(initialSession(), [eventMaker("s-past").started("agent-old", null, "old main")]);
    const applied = vi.fn();
    const off = onEventsApplied(applied);
    showPastSession(past);
    expect(hasParkedSession()).toBe(true);
    enqueueFrame(frameOf([live.status("agent-main", "running")]));
    vi.advanceTimersToNextFrame();
    // The past session stays on display; the live one moved on out of sight.
    expect(sessionStore.get()).toBe(past);
    expect(applied).toHaveBeenCalledTimes(1);
    expect(showLiveSession()).not.toBeNull();
    expect(sessionStore.get().sessionId).toBe("s-live");
    expect(sessionStore.get().agents["agent-main"]?.status).toBe("running");
    expect(hasParkedSession()).toBe(false);
    off();
  });

  it("routes each live session's frames to it, displayed or not, and switching shows each as it now is", () => {
    const one = eventMaker("s-one");
    const two = eventMaker("s-two");
    const first = openSlot(initialSession());
    enqueueFrame(frameOf([one.started("agent-a", null, "first main")]), first);
    flushEvents();
    const second = openSlot(initialSession());
    expect(sessionStore.get().roots).toEqual([]);
    enqueueFrame(frameOf([two.started("agent-b", null, "second main")]), second);
    // The first goes on out of sight: its request arrives while the second is displayed.
    enqueueFrame(frameOf([one.make("agent-a", { type: "response_chunk", content: "hi" })]), first);
    const applied = vi.fn();
    const off = onEventsApplied(applied);
    flushEvents();
    expect(applied.mock.calls.map((c) => c[2]).sort()).toEqual([first, second].sort());
    expect(sessionStore.get().sessionId).toBe("s-two");
    expect(liveViews.get().map((v) => [v.state.sessionId, v.current])).toEqual([
      ["s-one", false],
      ["s-two", true],
    ]);
    expect(slotStateOf(first).agents["agent-a"]?.items).toHaveLength(1);
    switchToSlot(first, null);
    expect(sessionStore.get().sessionId).toBe("s-one");
    expect(liveSession.get()).toBe(sessionStore.get());
    expect(slotStateOf(second).sessionId).toBe("s-two");
    // A closed session's late frames are dropped with it; the window shows a fresh page.
    enqueueFrame(frameOf([one.status("agent-a", "running")]), first);
    dropSlot(first);
    flushEvents();
    expect(liveStore.get().current).toBeNull();
    expect(sessionStore.get().roots).toEqual([]);
    expect(liveViews.get().map((v) => v.state.sessionId)).toEqual(["s-two"]);
    off();
  });

  it("takes in a frame's usage figures in place of the ones it had, never adding them", () => {
    const e = eventMaker();
    enqueueFrame(frameOf([e.started("agent-main", null, "main"), e.started("agent-a", "agent-main", "A")]));
    flushEvents();
    expect(sessionStore.get().usage).toEqual({ agents: {}, session: null });

    const main1 = agentUsage("agent-main", figures(100, 0.5), figures(130, 0.75));
    const a1 = agentUsage("agent-a", figures(30, 0.25));
    enqueueFrame(frameOf([e.usage("agent-a", 30, 0)], { usage: usageUpdate([a1, main1], figures(130, 0.75)) }));
    flushEvents();
    const first = sessionStore.get().usage;
    expect(first.agents).toEqual({ "agent-main": main1, "agent-a": a1 });
    expect(first.session).toEqual(figures(130, 0.75));

    // Two frames in one animation frame: the later figures replace the earlier
    // (cumulative, as Rust sends them); an agent not named keeps its entry.
    const a2 = agentUsage("agent-a", figures(40, 0.3));
    const a3 = agentUsage("agent-a", figures(55, 0.35));
    enqueueFrame(frameOf([e.usage("agent-a", 10, 0)], { usage: usageUpdate([a2], figures(140)) }));
    enqueueFrame(frameOf([e.usage("agent-a", 15, 0)], { usage: usageUpdate([a3], figures(155, 0.85)) }));
    flushEvents();
    const after = sessionStore.get().usage;
    expect(after.agents["agent-a"]).toBe(a3);
    expect(after.agents["agent-main"]).toBe(main1);
    expect(after.session).toEqual(figures(155, 0.85));
    expect(first.agents["agent-a"]).toBe(a1);
    expect(sessionStore.get().agents["agent-a"]?.turns).toBe(3);

    // A frame without usage leaves the figures as they were.
    enqueueFrame(frameOf([e.status("agent-a", "completed")]));
    flushEvents();
    expect(sessionStore.get().usage).toBe(after);
  });

  it("drops the usage queued for a session that was replaced", () => {
    const e = eventMaker();
    enqueueFrame(frameOf([e.usage("agent-main", 1, 0)], { usage: usageUpdate([agentUsage("agent-main", figures(1))], figures(1)) }));
    resetSession();
    vi.advanceTimersByTime(500);
    expect(sessionStore.get().usage).toEqual({ agents: {}, session: null });
  });
});

describe("the rules in force and the live session behind a review", () => {
  beforeEach(() => resetSession());

  it("takes a frame's rules as the whole list (the last frame's wins); a frame without rules leaves them", () => {
    const e = eventMaker();
    const one = rule("rule-1");
    const two = rule("rule-2", { scope: "session" });
    enqueueFrame(frameOf([e.started("agent-main", null, "main")], { rules: [one] }));
    enqueueFrame(frameOf([], { rules: [one, two] }));
    flushEvents();
    const listed = sessionStore.get().rules;
    expect(listed.map((r) => r.rule_id)).toEqual(["rule-1", "rule-2"]);
    enqueueFrame(frameOf([e.status("agent-main", "running")]));
    flushEvents();
    expect(sessionStore.get().rules).toBe(listed);
    // A frame with nothing but a changed list still applies.
    enqueueFrame(frameOf([], { rules: [] }));
    flushEvents();
    expect(sessionStore.get().rules).toEqual([]);
  });

  it("reads the live session through liveSession while a past one is displayed, and tells its readers", () => {
    const live = eventMaker("s-live");
    enqueueFrame(frameOf([live.started("agent-main", null, "live main")], { rules: [rule("rule-1")] }));
    flushEvents();
    const past = reduceBatch(initialSession(), [eventMaker("s-past").started("agent-old", null, "old main")]);
    showPastSession(past);
    expect(liveSession.get().sessionId).toBe("s-live");
    expect(sessionStore.get().rules).toEqual([]);
    const told = vi.fn();
    const off = liveSession.subscribe(told);
    enqueueFrame(frameOf([...askFor(live.make, "agent-main", "r1")], { rules: [rule("rule-1"), rule("rule-2")] }));
    flushEvents();
    expect(told).toHaveBeenCalled();
    expect(liveSession.get().pending).toEqual(["r1"]);
    expect(liveSession.get().rules.map((r) => r.rule_id)).toEqual(["rule-1", "rule-2"]);
    expect(sessionStore.get()).toBe(past);
    showLiveSession();
    expect(liveSession.get()).toBe(sessionStore.get());
    expect(sessionStore.get().rules.map((r) => r.rule_id)).toEqual(["rule-1", "rule-2"]);
    off();
  });
});
