/**
 * Paints the timeline on its canvases: the lanes of the visible rows (only
 * the segments that meet the visible time window; neighbours that fall on the
 * same pixels merged into one rectangle), each agent's end marker, "now", and
 * the time axis. Queued time is hatched, model turns solid, tool calls a
 * thinner band in their tool's colour, waits for a person on top in the
 * warning colour.
 */
import type { AgentId, Segment } from "../../bindings";
import { laneView, segmentEnd, timeToX, toolColourIndex, visibleRange, xToTime, type Tick, type Viewport } from "../../lib/timeline";
import { isTerminal } from "../../store/session/status";
import type { Palette } from "./palette";
import type { Scene } from "./scene";

export const ROW_HEIGHT = 28;
export const AXIS_HEIGHT = 24;

/** Bands within a row, [top, height]: model turns and queued time, tool calls, waits for a person. */
const BASE_BAND: readonly [number, number] = [7, 14];
const TOOL_BAND: readonly [number, number] = [10, 8];
const APPROVAL_BAND: readonly [number, number] = [4, 20];

export interface Frame {
  vp: Viewport;
  width: number;
  height: number;
  scrollTop: number;
  /** The rows to paint: [first, last). */
  first: number;
  last: number;
  ticks: readonly Tick[];
  hover: { agentId: AgentId; segment: Segment } | null;
}

/** A rectangle being widened while the next segments fall on its pixels. */
interface Run {
  x0: number;
  x1: number;
  fill: string | CanvasPattern;
}

/** Paints the lanes; returns how many rectangles it filled (the cost of a frame). */
export function paintLanes(ctx: CanvasRenderingContext2D, scene: Scene, f: Frame, p: Palette): number {
  let rects = 0;
  ctx.clearRect(0, 0, f.width, f.height);
  for (let i = f.first; i < f.last; i++) {
    if (scene.rows[i]?.id !== scene.selected) continue;
    ctx.fillStyle = p.selected;
    ctx.fillRect(0, i * ROW_HEIGHT - f.scrollTop, f.width, ROW_HEIGHT);
  }
  ctx.fillStyle = p.grid;
  for (const tick of f.ticks) ctx.fillRect(Math.round(tick.x), 0, 1, f.height);
  // A little beyond the edges, so strokes at the edge are not cut.
  const t0 = xToTime(-2, f.vp);
  const t1 = xToTime(f.width + 2, f.vp);
  for (let i = f.first; i < f.last; i++) {
    const row = scene.rows[i];
    if (!row) continue;
    const y = i * ROW_HEIGHT - f.scrollTop;
    ctx.fillStyle = p.grid;
    ctx.fillRect(0, y + ROW_HEIGHT - 1, f.width, 1);
    const lane = scene.lanes[row.id];
    if (lane) rects += paintLane(ctx, lane.segments, y, t0, t1, scene.now, f, p);
    const node = scene.agents[row.id];
    if (node && isTerminal(node.status) && node.endedAt !== null) {
      const x = timeToX(node.endedAt, f.vp);
      if (x >= -4 && x <= f.width + 4) {
        ctx.fillStyle = p.status[node.status];
        ctx.fillRect(Math.round(x) - 1, y + 3, 3, ROW_HEIGHT - 6);
        ctx.beginPath();
        ctx.arc(Math.round(x) + 0.5, y + ROW_HEIGHT / 2, 4, 0, Math.PI * 2);
        ctx.fill();
        rects += 1;
      }
    }
    if (f.hover && f.hover.agentId === row.id) outline(ctx, f.hover.segment, y, scene.now, f, p);
  }
  if (scene.running) {
    const x = timeToX(scene.now, f.vp);
    if (x >= 0 && x <= f.width) {
      ctx.fillStyle = p.now;
      ctx.fillRect(Math.round(x), 0, 1, f.height);
    }
  }
  return rects;
}

function paintLane(
  ctx: CanvasRenderingContext2D,
  segments: readonly (Segment | undefined)[],
  y: number,
  t0: number,
  t1: number,
  now: number,
  f: Frame,
  p: Palette,
): number {
  const view = laneView(segments);
  const [lo, hi] = visibleRange(view, t0, t1);
  let rects = 0;
  let base: Run | null = null;
  let tool: Run | null = null;
  const approvals: Run[] = [];
  const flush = (run: Run | null, band: readonly [number, number]) => {
    if (run === null) return;
    ctx.fillStyle = run.fill;
    ctx.fillRect(run.x0, y + band[0], run.x1 - run.x0, band[1]);
    rects += 1;
  };
  /** `run` widened to [x0, x1] when that is the same colour and touches it; else painted, and a new one begun. */
  const extend = (run: Run | null, x0: number, x1: number, fill: string | CanvasPattern, band: readonly [number, number]): Run => {
    if (run !== null && run.fill === fill && x0 <= run.x1 + 0.5) {
      run.x1 = Math.max(run.x1, x1);
      return run;
    }
    flush(run, band);
    return { x0, x1, fill };
  };
  for (let i = lo; i < hi; i++) {
    const s = view.segments[i];
    if (!s) continue;
    const end = segmentEnd(s, now);
    if (end < t0) continue;
    const exact0 = Math.max(-2, timeToX(s.start, f.vp));
    const exact1 = Math.min(f.width + 2, timeToX(end, f.vp));
    // At least a pixel wide: a short call still shows. A sliver that narrow sits on whole
    // pixels, so it shows in its own colour (across two pixels it would be blended with the
    // row behind it); wider ones keep their exact place.
    const sliver = exact1 - exact0 < 2;
    const x0 = sliver ? Math.round(exact0) : exact0;
    const x1 = sliver ? x0 + Math.max(1, Math.round(exact1 - exact0)) : exact1;
    switch (s.kind) {
      case "queued":
        base = extend(base, x0, x1, p.hatch ?? p.queued, BASE_BAND);
        break;
      case "model":
        base = extend(base, x0, x1, p.model, BASE_BAND);
        break;
      case "compaction":
        base = extend(base, x0, x1, p.compaction, BASE_BAND);
        break;
      case "tool":
        tool = extend(tool, x0, x1, p.tools[toolColourIndex(s.label, p.tools.length)] ?? p.model, TOOL_BAND);
        break;
      case "approval":
        approvals.push({ x0, x1, fill: p.approval });
        break;
      default: {
        const never: never = s.kind;
        void never;
      }
    }
  }
  flush(base, BASE_BAND);
  flush(tool, TOOL_BAND);
  // On top of everything: a wait for a person is never hidden by its call.
  for (const a of approvals) flush(a, APPROVAL_BAND);
  return rects;
}

function bandOf(s: Segment): readonly [number, number] {
  return s.kind === "approval" ? APPROVAL_BAND : s.kind === "tool" ? TOOL_BAND : BASE_BAND;
}

function outline(ctx: CanvasRenderingContext2D, s: Segment, y: number, now: number, f: Frame, p: Palette): void {
  const [top, h] = bandOf(s);
  const x0 = timeToX(s.start, f.vp);
  const x1 = Math.max(x0 + 1, timeToX(segmentEnd(s, now), f.vp));
  ctx.strokeStyle = p.outline;
  ctx.lineWidth = 1;
  ctx.strokeRect(Math.round(x0) - 0.5, y + top - 1.5, Math.round(x1 - x0) + 1, h + 3);
}

/** Paints the time axis: a tick and its offset from the session's start at each of `ticks`, and "now". */
export function paintAxis(
  ctx: CanvasRenderingContext2D,
  width: number,
  ticks: readonly Tick[],
  nowX: number | null,
  p: Palette,
): void {
  ctx.clearRect(0, 0, width, AXIS_HEIGHT);
  ctx.fillStyle = p.grid;
  ctx.fillRect(0, AXIS_HEIGHT - 1, width, 1);
  ctx.font = "10.5px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  for (const tick of ticks) {
    const x = Math.round(tick.x);
    ctx.fillStyle = p.grid;
    ctx.fillRect(x, AXIS_HEIGHT - 7, 1, 6);
    ctx.fillStyle = p.text;
    ctx.fillText(tick.label, x + 3, AXIS_HEIGHT / 2 - 2);
  }
  if (nowX !== null && nowX >= 0 && nowX <= width) {
    ctx.fillStyle = p.now;
    ctx.fillRect(Math.round(nowX), 0, 1, AXIS_HEIGHT);
  }
}
