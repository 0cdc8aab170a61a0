/**
 * The timeline view's geometry, pure: time ↔ x, zoom and pan, the window of
 * rows and of each lane's segments that is visible (binary searches: a lane's
 * segments are in start order), the time axis's ticks and their labels, and
 * which segment a point hits. The segments themselves are Rust's
 * (store/timeline.ts); nothing here derives one.
 */
import type { Segment, SegmentKind } from "../bindings";

/** Where the time axis sits: the time at x = 0 and the scale. */
export interface Viewport {
  /** Milliseconds (session clock) at the left edge. */
  t0: number;
  /** Milliseconds per CSS pixel. */
  msPerPx: number;
}

/** The closest zoom: 50 pixels per millisecond. */
export const MIN_MS_PER_PX = 0.02;
/** The widest: an hour per pixel. */
export const MAX_MS_PER_PX = 3_600_000;

export function timeToX(t: number, vp: Viewport): number {
  return (t - vp.t0) / vp.msPerPx;
}

export function xToTime(x: number, vp: Viewport): number {
  return vp.t0 + x * vp.msPerPx;
}

function clampScale(msPerPx: number): number {
  return Math.min(MAX_MS_PER_PX, Math.max(MIN_MS_PER_PX, msPerPx));
}

/** Zoomed by `factor` (> 1 zooms in) around `x`: the time under `x` stays under it. */
export function zoomAt(vp: Viewport, factor: number, x: number): Viewport {
  const msPerPx = clampScale(vp.msPerPx / factor);
  return { t0: xToTime(x, vp) - x * msPerPx, msPerPx };
}

/** Moved by `dx` pixels (positive: later times come into view). */
export function panBy(vp: Viewport, dx: number): Viewport {
  return { t0: vp.t0 + dx * vp.msPerPx, msPerPx: vp.msPerPx };
}

/** The share of the width left empty either side by Fit. */
const FIT_MARGIN = 0.02;
/** Where Follow live keeps "now": this share of the width from the left (where Fit puts the end). */
const FOLLOW_AT = 1 - FIT_MARGIN;

/** `start`..`end` across `width` pixels, a little margin either side (at least a second shown). */
export function fitViewport(start: number, end: number, width: number): Viewport {
  const w = Math.max(width, 1);
  const span = Math.max(end - start, 1000);
  const msPerPx = clampScale(span / (w * (1 - 2 * FIT_MARGIN)));
  return { t0: start - w * FIT_MARGIN * msPerPx, msPerPx };
}

/**
 * Following a live session at the current scale: "now" stays near the right
 * edge once the session is longer than the view; until then the view starts
 * where the session did.
 */
export function followViewport(vp: Viewport, start: number, now: number, width: number): Viewport {
  const w = Math.max(width, 1);
  const t0 = Math.max(start - w * FIT_MARGIN * vp.msPerPx, now - w * FOLLOW_AT * vp.msPerPx);
  return { t0, msPerPx: vp.msPerPx };
}

// ---- Lanes ----

/** A lane ready to draw: its segments without holes, and how far each prefix reaches. */
export interface LaneView {
  segments: readonly Segment[];
  /**
   * `reach[i]`: the latest end among segments 0..i, Infinity from the first
   * open one on. It never decreases, so the first segment that can still be
   * visible at a time is found by binary search, however long segments are.
   */
  reach: Float64Array;
  /** The latest start or end of any segment; -Infinity for an empty lane. */
  last: number;
}

const views = new WeakMap<readonly (Segment | undefined)[], LaneView>();

/** The lane's view, computed once per version of its segments. */
export function laneView(segments: readonly (Segment | undefined)[]): LaneView {
  let v = views.get(segments);
  if (v) return v;
  const dense: Segment[] = [];
  for (const s of segments) if (s !== undefined) dense.push(s);
  const reach = new Float64Array(dense.length);
  let r = -Infinity;
  let last = -Infinity;
  dense.forEach((s, i) => {
    r = Math.max(r, s.end ?? Infinity);
    reach[i] = r;
    last = Math.max(last, s.start, s.end ?? s.start);
  });
  v = { segments: dense, reach, last };
  views.set(segments, v);
  return v;
}

/**
 * The segments of `view` that may meet [t0, t1]: indices [lo, hi). Every one
 * before `lo` ended before t0 and every one from `hi` on starts after t1; one
 * in between may still have ended before t0 (an earlier long one kept the
 * reach up), which the caller skips.
 */
export function visibleRange(view: LaneView, t0: number, t1: number): [number, number] {
  const { segments, reach } = view;
  let lo = 0;
  let hi = reach.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((reach[mid] ?? Infinity) < t0) lo = mid + 1;
    else hi = mid;
  }
  const first = lo;
  hi = segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((segments[mid]?.start ?? Infinity) <= t1) lo = mid + 1;
    else hi = mid;
  }
  return [first, lo];
}

/** Where a segment ends on screen: an open one lasts until `now`. */
export function segmentEnd(s: Segment, now: number): number {
  return Math.max(s.start, s.end ?? now);
}

/** The session's span on the timeline: from its first segment (or agent start) to its last moment or `now`. */
export interface Extent {
  start: number;
  end: number;
}

/**
 * The span the lanes' segments (and the agents' own start and end times,
 * `times`) cover; with `now` (a live session) it ends then. Null when there is nothing.
 */
export function timelineExtent(
  lanes: Iterable<readonly (Segment | undefined)[]>,
  times: Iterable<number | null>,
  now: number | null,
): Extent | null {
  let start = Infinity;
  let end = -Infinity;
  for (const segments of lanes) {
    const v = laneView(segments);
    const first = v.segments[0];
    if (first) start = Math.min(start, first.start);
    end = Math.max(end, v.last);
  }
  for (const t of times) {
    if (t === null) continue;
    start = Math.min(start, t);
    end = Math.max(end, t);
  }
  if (now !== null) end = Math.max(end, now);
  if (!Number.isFinite(start)) return null;
  return { start, end: Math.max(start, end) };
}

// ---- Rows ----

/** The rows [first, last) that meet a viewport `height` tall scrolled to `scrollTop`, plus `overscan` either side. */
export function rowWindow(
  scrollTop: number,
  height: number,
  rowHeight: number,
  count: number,
  overscan = 0,
): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return { first, last: Math.max(first, last) };
}

// ---- The time axis ----

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Tick spacings, in ms: round numbers of milliseconds, seconds, minutes and hours. */
const STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500,
  SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 15 * SECOND, 30 * SECOND,
  MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE, 15 * MINUTE, 30 * MINUTE,
  HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR,
];

/** The smallest round spacing that keeps ticks at least `minPx` apart. */
export function tickStep(msPerPx: number, minPx = 80): number {
  for (const step of STEPS) if (step / msPerPx >= minPx) return step;
  const day = 24 * HOUR;
  return Math.ceil((minPx * msPerPx) / day) * day;
}

export interface Tick {
  /** Its time (session clock). */
  t: number;
  x: number;
  /** Time since `origin`, as round as the spacing allows. */
  label: string;
}

/** The ticks across `width` pixels, at round offsets from `origin` (the session's start). */
export function axisTicks(vp: Viewport, width: number, origin: number, minPx = 80): Tick[] {
  const step = tickStep(vp.msPerPx, minPx);
  const out: Tick[] = [];
  const from = Math.ceil((vp.t0 - origin) / step);
  const to = Math.floor((xToTime(width, vp) - origin) / step);
  for (let k = from; k <= to; k++) {
    const t = origin + k * step;
    out.push({ t, x: timeToX(t, vp), label: formatOffset(k * step, step) });
  }
  return out;
}

/** An offset from the session's start for an axis with ticks `step` apart: "0", "250ms", "1.5s", "45s", "2m 30s", "1h 05m". */
export function formatOffset(ms: number, step: number): string {
  if (ms === 0) return "0";
  const sign = ms < 0 ? "−" : "";
  const a = Math.abs(ms);
  if (step < SECOND) {
    if (a < SECOND) return `${sign}${a}ms`;
    const decimals = step >= 100 ? 1 : step >= 10 ? 2 : 3;
    return `${sign}${trimZeros((a / SECOND).toFixed(decimals))}s`;
  }
  if (a < MINUTE) return `${sign}${Math.round(a / SECOND)}s`;
  if (a < HOUR) {
    const m = Math.floor(a / MINUTE);
    const s = Math.round((a % MINUTE) / SECOND);
    return `${sign}${m}m${s > 0 ? ` ${String(s).padStart(2, "0")}s` : ""}`;
  }
  const h = Math.floor(a / HOUR);
  const m = Math.round((a % HOUR) / MINUTE);
  return `${sign}${h}h${m > 0 ? ` ${String(m).padStart(2, "0")}m` : ""}`;
}

function trimZeros(s: string): string {
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/** A duration for a tooltip or a row: "0ms", "340ms", "3.4s", "42s", "2m 05s", "1h 10m". */
export function formatSpan(ms: number): string {
  const a = Math.max(0, Math.round(ms));
  if (a < SECOND) return `${a}ms`;
  if (a < 10 * SECOND) return `${trimZeros((a / SECOND).toFixed(1))}s`;
  if (a < MINUTE) return `${Math.round(a / SECOND)}s`;
  if (a < HOUR) {
    const s = Math.floor(a / SECOND);
    return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  }
  const m = Math.floor(a / MINUTE);
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

// ---- Hits ----

/** Which of overlapping segments a point means: what is drawn on top wins. */
const HIT_ORDER: Record<SegmentKind, number> = { queued: 0, model: 1, compaction: 1, tool: 2, approval: 3 };

/**
 * The segment at time `t` of a lane, within `tolerance` ms either side (a
 * narrow segment is still hit): the one drawn on top (approval, tool, model,
 * queued); among equals the nearest, then the later. Null when none is there.
 */
export function hitSegment(view: LaneView, t: number, tolerance: number, now: number): Segment | null {
  const [lo, hi] = visibleRange(view, t - tolerance, t + tolerance);
  let best: Segment | null = null;
  let bestDistance = Infinity;
  for (let i = lo; i < hi; i++) {
    const s = view.segments[i];
    if (!s) continue;
    const end = segmentEnd(s, now);
    const distance = t < s.start ? s.start - t : t > end ? t - end : 0;
    if (distance > tolerance) continue;
    const better =
      best === null ||
      HIT_ORDER[s.kind] > HIT_ORDER[best.kind] ||
      (HIT_ORDER[s.kind] === HIT_ORDER[best.kind] && distance <= bestDistance);
    if (better) {
      best = s;
      bestDistance = distance;
    }
  }
  return best;
}

// ---- Colours ----

/** A tool's colour among `n`: the same name always gets the same one. */
export function toolColourIndex(name: string, n: number): number {
  // FNV-1a: short names that differ by a letter land apart.
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % Math.max(1, n);
}
