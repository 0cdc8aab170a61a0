import { beforeEach, describe, expect, it } from "vitest";
import type { EventFrame } from "../bindings";
import { eventMaker } from "../test/events";
import { seg, storedTimeline, timelineUpdate } from "../test/timeline";
import { frameOf, resetStores } from "../test/stores";
import { enqueueFrame, flushEvents, resetSession } from "./sessionStore";
import {
  applyTimelineUpdates,
  emptyTimeline,
  keepTimelines,
  timelineStore,
  updateTimeline,
  waitedAt,
  wallTimeMs,
  withStoredTimeline,
} from "./timeline";

describe("applyTimelineUpdates", () => {
  it("upserts each segment at its index of its agent's lane: opened, then closed by a later frame", () => {
    const open = seg("model", 100, null, { seq: 3 });
    let t = applyTimelineUpdates(emptyTimeline("s-1"), [
      timelineUpdate([
        ["a", 0, seg("queued", 0, 100, { seq: 1 })],
        ["a", 1, open],
      ]),
    ]);
    expect(t.lanes.a?.segments).toEqual([seg("queued", 0, 100, { seq: 1 }), open]);
    t = applyTimelineUpdates(t, [timelineUpdate([["a", 1, { ...open, end: 400 }]])]);
    expect(t.lanes.a?.segments.map((s) => s?.end)).toEqual([100, 400]);
  });

  it("applies a flush's frames in order: the later version of a segment wins", () => {
    const t = applyTimelineUpdates(emptyTimeline("s-1"), [
      timelineUpdate([["a", 0, seg("tool", 10, null, { label: "Bash" })]]),
      timelineUpdate([["a", 0, seg("tool", 10, 90, { label: "Bash" })]]),
    ]);
    expect(t.lanes.a?.segments).toEqual([seg("tool", 10, 90, { label: "Bash" })]);
  });

  it("copies only the lanes a batch touched, once, and never the state it was given", () => {
    const before = applyTimelineUpdates(emptyTimeline("s-1"), [
      timelineUpdate([
        ["a", 0, seg("model", 0, 10)],
        ["b", 0, seg("model", 0, 10)],
      ]),
    ]);
    const laneA = before.lanes.a;
    const segmentsB = before.lanes.b?.segments;
    const after = applyTimelineUpdates(before, [
      timelineUpdate([["b", 1, seg("tool", 10, 20)]]),
      timelineUpdate([["b", 2, seg("model", 20, null)]]),
    ]);
    expect(after.lanes.a).toBe(laneA);
    expect(after.lanes.b?.segments).toHaveLength(3);
    // The earlier state is as it was.
    expect(segmentsB).toHaveLength(1);
    expect(before.lanes.b?.segments).toHaveLength(1);
  });

  it("takes lanes' and the session's waiting times as Rust sent them", () => {
    const t = applyTimelineUpdates(emptyTimeline("s-1"), [
      timelineUpdate([["a", 0, seg("approval", 0, 500, { label: "Write" })]], [["a", 500]], 500),
      timelineUpdate([], [["a", 700]], 650),
    ]);
    expect(t.lanes.a?.waitingMs).toBe(700);
    expect(t.waitingMs).toBe(650);
  });

  it("counts a wait in progress as it passes, as Rust says to, and stops once it ends", () => {
    const waiting = applyTimelineUpdates(emptyTimeline("s-1"), [
      timelineUpdate([["a", 0, seg("approval", 1_000, 1_500, { label: "Write" })]], [["a", 500]], 500),
      { ...timelineUpdate([["b", 0, seg("approval", 2_000, null, { label: "Bash" })]]), live_wait_changed: true, live_wait: { since: 2_000, before_ms: 500 } },
    ]);
    // The live Timeline's figure at 11 s: the 0.5 s that ended, and 9 s of the wait still open.
    expect(waitedAt(waiting, 11_000)).toBe(9_500);
    expect(waitedAt(waiting, 2_000)).toBe(500);
    const ended = applyTimelineUpdates(waiting, [
      { ...timelineUpdate([["b", 0, seg("approval", 2_000, 11_000, { label: "Bash" })]], [["b", 9_000]], 9_500), live_wait_changed: true, live_wait: null },
    ]);
    expect(waitedAt(ended, 60_000)).toBe(9_500);
    expect(waitedAt(null, 5)).toBe(0);
  });

  it("returns the state itself when the updates change nothing", () => {
    const t = emptyTimeline("s-1");
    expect(applyTimelineUpdates(t, [])).toBe(t);
    expect(applyTimelineUpdates(t, [timelineUpdate([])])).toBe(t);
  });
});

describe("withStoredTimeline", () => {
  it("loads a stored timeline, and later frames upsert on top of it", () => {
    const stored = storedTimeline(
      { a: { segments: [seg("queued", 0, 50), seg("model", 50, 200)], waiting: 0 }, b: { segments: [seg("model", 20, 80)] } },
      0,
    );
    let t = withStoredTimeline(emptyTimeline("s-1"), stored);
    expect(t.load).toBe("loaded");
    expect(t.lanes.a?.segments).toHaveLength(2);
    t = applyTimelineUpdates(t, [
      timelineUpdate([["a", 2, seg("model", 300, null)]]),
      // Idempotent: the stored segment again, as a resumed backend may send it.
      timelineUpdate([["b", 0, seg("model", 20, 80)]]),
    ]);
    expect(t.lanes.a?.segments.map((s) => s?.start)).toEqual([0, 50, 300]);
    expect(t.lanes.b?.segments).toEqual([seg("model", 20, 80)]);
  });

  it("fills in under frames that came first (a resumed session): the later version of each segment stays", () => {
    // The resumed run's frames: index 2 opened and closed, index 1 still open here but closed in the store.
    let t = applyTimelineUpdates(emptyTimeline("s-1"), [
      timelineUpdate([["a", 2, seg("model", 300, 400)], ["a", 1, seg("tool", 100, null)]], [["a", 30]], 30),
    ]);
    expect(t.lanes.a?.segments[0]).toBeUndefined();
    const stored = storedTimeline({ a: { segments: [seg("queued", 0, 50), seg("tool", 100, 250)], waiting: 20 } }, 20);
    t = withStoredTimeline(t, stored);
    expect(t.lanes.a?.segments).toEqual([seg("queued", 0, 50), seg("tool", 100, 250), seg("model", 300, 400)]);
    expect(t.lanes.a?.waitingMs).toBe(30);
    expect(t.waitingMs).toBe(30);
  });
});

describe("the timeline store", () => {
  beforeEach(() => resetStores());

  it("takes a live frame's timeline with its events, for the frame's session", () => {
    const e = eventMaker("s-live");
    const frame: EventFrame = frameOf([e.started("agent-main", null, "main"), e.status("agent-main", "running")], {
      timeline: timelineUpdate([["agent-main", 0, seg("model", 1200, null, { seq: 2 })]]),
    });
    enqueueFrame(frame);
    expect(timelineStore.get()["s-live"]).toBeUndefined();
    flushEvents();
    expect(timelineStore.get()["s-live"]?.lanes["agent-main"]?.segments).toEqual([seg("model", 1200, null, { seq: 2 })]);
  });

  it("ignores frames without a timeline (an older backend), and forgets timelines with the session", () => {
    const e = eventMaker("s-live");
    enqueueFrame({ events: [e.started("agent-main", null, "main")], agents: [], usage: null, rules: null } as unknown as EventFrame);
    flushEvents();
    expect(timelineStore.get()).toEqual({});
    updateTimeline("s-live", (t) => t);
    expect(Object.keys(timelineStore.get())).toEqual(["s-live"]);
    resetSession();
    expect(timelineStore.get()).toEqual({});
  });

  it("keeps only the timelines it is told to", () => {
    updateTimeline("s-1", (t) => t);
    updateTimeline("s-2", (t) => t);
    updateTimeline("s-3", (t) => t);
    keepTimelines(["s-1", null, "s-3"]);
    expect(Object.keys(timelineStore.get()).sort()).toEqual(["s-1", "s-3"]);
  });
});

describe("wallTimeMs", () => {
  it("adds the current run so far to the runs that ended", () => {
    expect(wallTimeMs({ wallElapsedMs: 1000, wallRunStartedAt: null }, 9999)).toBe(1000);
    expect(wallTimeMs({ wallElapsedMs: 1000, wallRunStartedAt: 5000 }, 5500)).toBe(1500);
  });
});
