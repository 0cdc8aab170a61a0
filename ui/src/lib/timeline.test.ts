import { describe, expect, it } from "vitest";
import { seg } from "../test/timeline";
import {
  axisTicks,
  fitViewport,
  followViewport,
  formatOffset,
  formatSpan,
  hitSegment,
  laneView,
  MAX_MS_PER_PX,
  MIN_MS_PER_PX,
  panBy,
  rowWindow,
  tickStep,
  timelineExtent,
  timeToX,
  toolColourIndex,
  visibleRange,
  xToTime,
  zoomAt,
} from "./timeline";

describe("time and x", () => {
  it("maps time to x and back", () => {
    const vp = { t0: 1000, msPerPx: 10 };
    expect(timeToX(1000, vp)).toBe(0);
    expect(timeToX(2000, vp)).toBe(100);
    expect(xToTime(100, vp)).toBe(2000);
  });

  it("zooms around a point: the time under it stays there", () => {
    const vp = { t0: 0, msPerPx: 10 };
    const z = zoomAt(vp, 2, 300);
    expect(z.msPerPx).toBe(5);
    expect(xToTime(300, z)).toBe(xToTime(300, vp));
    const out = zoomAt(z, 0.5, 120);
    expect(out.msPerPx).toBe(10);
    expect(xToTime(120, out)).toBeCloseTo(xToTime(120, z));
  });

  it("keeps the zoom within its limits", () => {
    expect(zoomAt({ t0: 0, msPerPx: 1 }, 1e9, 0).msPerPx).toBe(MIN_MS_PER_PX);
    expect(zoomAt({ t0: 0, msPerPx: 1 }, 1e-12, 0).msPerPx).toBe(MAX_MS_PER_PX);
  });

  it("pans by pixels at the current scale", () => {
    expect(panBy({ t0: 0, msPerPx: 4 }, 25)).toEqual({ t0: 100, msPerPx: 4 });
  });

  it("fits a span into the width with a margin either side, at least a second", () => {
    const vp = fitViewport(10_000, 20_000, 1000);
    expect(timeToX(10_000, vp)).toBeCloseTo(20);
    expect(timeToX(20_000, vp)).toBeCloseTo(980);
    const short = fitViewport(0, 10, 1000);
    expect(xToTime(1000, short) - xToTime(0, short)).toBeGreaterThanOrEqual(1000);
  });

  it("follows now at the right once the session outgrows the view; until then it starts with the session", () => {
    const vp = { t0: 0, msPerPx: 10 };
    const early = followViewport(vp, 5_000, 6_000, 1000);
    expect(timeToX(5_000, early)).toBeCloseTo(20);
    const late = followViewport(vp, 5_000, 100_000, 1000);
    expect(timeToX(100_000, late)).toBeCloseTo(980);
  });
});

describe("visible segments", () => {
  const lane = [
    seg("queued", 0, 100),
    seg("model", 100, 200),
    seg("tool", 200, 300),
    seg("model", 300, 400),
    seg("tool", 400, 500),
  ];

  it("finds the segments meeting a time window by binary search", () => {
    const v = laneView(lane);
    expect(visibleRange(v, 250, 350)).toEqual([2, 4]);
    expect(visibleRange(v, 0, 50)).toEqual([0, 1]);
    expect(visibleRange(v, 600, 700)).toEqual([5, 5]);
    expect(visibleRange(v, -100, -10)).toEqual([0, 0]);
  });

  it("keeps a long segment that began long before the window, and an open one", () => {
    const long = [seg("queued", 0, 10_000), seg("model", 10, 20), seg("tool", 30, 40), seg("model", 50, null)];
    const v = laneView(long);
    // The queued segment (index 0) still covers 5000; the open model turn (index 3) too.
    const [lo, hi] = visibleRange(v, 5000, 5100);
    expect(lo).toBe(0);
    expect(hi).toBe(4);
    // Once the long one is past, a window before the open segment starts from it.
    const v2 = laneView([seg("model", 0, 10), seg("tool", 10, 20), seg("model", 20, null)]);
    expect(visibleRange(v2, 15, 16)).toEqual([1, 2]);
    expect(visibleRange(v2, 500, 600)).toEqual([2, 3]);
  });

  it("skips the holes of a lane whose stored part has not arrived, and caches the view per version", () => {
    const holes = [] as ReturnType<typeof seg>[];
    holes[3] = seg("model", 300, 400);
    const v = laneView(holes);
    expect(v.segments).toEqual([seg("model", 300, 400)]);
    expect(laneView(holes)).toBe(v);
  });

  it("spans the lanes from the first start to the last end, or to now while live", () => {
    const lanes = [[seg("model", 100, 200)], [seg("queued", 50, 80), seg("model", 80, null)]];
    expect(timelineExtent(lanes, [40, null], null)).toEqual({ start: 40, end: 200 });
    expect(timelineExtent(lanes, [], 900)).toEqual({ start: 50, end: 900 });
    expect(timelineExtent([], [], null)).toBeNull();
  });
});

describe("rows", () => {
  it("covers the rows in view, plus overscan, within the count", () => {
    expect(rowWindow(0, 100, 28, 200)).toEqual({ first: 0, last: 4 });
    expect(rowWindow(280, 100, 28, 200, 2)).toEqual({ first: 8, last: 16 });
    expect(rowWindow(5000, 600, 28, 10)).toEqual({ first: 178, last: 178 });
  });
});

describe("the time axis", () => {
  it("picks the smallest round spacing that keeps ticks apart", () => {
    expect(tickStep(1, 80)).toBe(100);
    expect(tickStep(10, 80)).toBe(1000);
    expect(tickStep(100, 80)).toBe(10_000);
    expect(tickStep(1000, 80)).toBe(120_000);
    expect(tickStep(60_000, 80)).toBe(2 * 3_600_000);
  });

  it("puts ticks at round offsets from the session's start", () => {
    const vp = { t0: 10_050, msPerPx: 10 };
    const ticks = axisTicks(vp, 400, 10_000);
    expect(ticks.map((t) => t.label)).toEqual(["1s", "2s", "3s", "4s"]);
    expect(ticks[0]?.x).toBeCloseTo(95);
  });

  it("labels offsets in ms, s, min and h as the spacing asks", () => {
    expect(formatOffset(0, 100)).toBe("0");
    expect(formatOffset(250, 50)).toBe("250ms");
    expect(formatOffset(1500, 500)).toBe("1.5s");
    expect(formatOffset(1250, 50)).toBe("1.25s");
    expect(formatOffset(45_000, 5000)).toBe("45s");
    expect(formatOffset(150_000, 30_000)).toBe("2m 30s");
    expect(formatOffset(120_000, 60_000)).toBe("2m");
    expect(formatOffset(3_900_000, 300_000)).toBe("1h 05m");
  });

  it("formats durations compactly", () => {
    expect(formatSpan(0)).toBe("0ms");
    expect(formatSpan(340)).toBe("340ms");
    expect(formatSpan(3400)).toBe("3.4s");
    expect(formatSpan(42_000)).toBe("42s");
    expect(formatSpan(125_000)).toBe("2m 05s");
    expect(formatSpan(4_200_000)).toBe("1h 10m");
  });
});

describe("hits", () => {
  const lane = laneView([
    seg("model", 0, 100),
    seg("tool", 100, 400, { label: "Edit" }),
    seg("approval", 150, 300, { label: "Edit" }),
    seg("model", 400, null),
  ]);

  it("finds what is drawn on top: a wait for approval over its call", () => {
    expect(hitSegment(lane, 200, 0, 1000)?.kind).toBe("approval");
    expect(hitSegment(lane, 350, 0, 1000)?.kind).toBe("tool");
    expect(hitSegment(lane, 50, 0, 1000)?.kind).toBe("model");
  });

  it("reaches a narrow segment within the tolerance, an open one until now, nothing beyond", () => {
    expect(hitSegment(lane, 103, 5, 1000)?.kind).toBe("tool");
    expect(hitSegment(lane, 900, 0, 1000)?.start).toBe(400);
    expect(hitSegment(lane, 1100, 5, 1000)).toBeNull();
    expect(hitSegment(laneView([]), 0, 5, 0)).toBeNull();
  });
});

describe("tool colours", () => {
  it("gives a tool the same colour every time, within the palette", () => {
    expect(toolColourIndex("Bash", 8)).toBe(toolColourIndex("Bash", 8));
    const all = ["Bash", "Read", "Edit", "Write", "Grep", "Glob", "Task", "WebFetch"].map((t) => toolColourIndex(t, 8));
    expect(all.every((i) => i >= 0 && i < 8)).toBe(true);
    expect(new Set(all).size).toBeGreaterThan(3);
  });
});
