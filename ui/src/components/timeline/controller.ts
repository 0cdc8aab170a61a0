/**
 * The timeline chart's moving parts outside React: the viewport (fitted to
 * the session until the person zooms or pans; Fit fits it again), Follow
 * live, the canvases' size and scroll, the hovered segment, and the redraw loop. A change asks for one frame (requestAnimationFrame); while
 * the session runs, "now" asks for another only once it has moved a pixel.
 * Panning and hovering never re-render React: the toolbar and the tooltip
 * read `follow` and `hover` through `subscribe`.
 */
import type { AgentId, Segment } from "../../bindings";
import {
  axisTicks,
  fitViewport,
  followViewport,
  hitSegment,
  laneView,
  panBy,
  rowWindow,
  timeToX,
  xToTime,
  zoomAt,
  type Viewport,
} from "../../lib/timeline";
import { AXIS_HEIGHT, paintAxis, paintLanes, ROW_HEIGHT } from "./draw";
import { readPalette, type Palette } from "./palette";
import { readScene, type Scene } from "./scene";

export interface Hover {
  agentId: AgentId;
  segment: Segment;
  /** Where the pointer is on the screen (the tooltip follows it). */
  clientX: number;
  clientY: number;
  /** The session's start (offsets in the tooltip count from it) and where open segments end. */
  origin: number;
  now: number;
  /** The session runs: an open segment is still going (else its run was cut off). */
  running: boolean;
}

export interface Hit {
  agentId: AgentId;
  segment: Segment | null;
}

/** How far a pointer may be from a segment and still hit it, in pixels. */
const HIT_SLOP = 3;
/** Rows painted beyond the visible ones, either side (they come into view while scrolling). */
const OVERSCAN = 2;

export class TimelineController {
  private vp: Viewport | null = null;
  private width = 0;
  private height = 0;
  private scrollTop = 0;
  private lanes: HTMLCanvasElement | null = null;
  private axis: HTMLCanvasElement | null = null;
  private palette: Palette | null = null;
  private frame: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private listeners = new Set<() => void>();
  private readonly clock: () => number;
  /** The last frame's scene: hit tests and the tooltip use what is on screen. */
  private scene: Scene | null = null;
  follow = true;
  /**
   * The view fits the session until the person zooms or pans (a stored
   * timeline arriving, the window resized, a live session growing while
   * followed: it is fitted again); Fit brings it back.
   */
  private autoFit = true;
  hover: Hover | null = null;

  constructor(clock: () => number = Date.now) {
    this.clock = clock;
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  private emit(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Takes the canvases, and paints at once (the first paint is not a frame late). */
  attach(lanes: HTMLCanvasElement, axis: HTMLCanvasElement): void {
    this.lanes = lanes;
    this.axis = axis;
    this.palette = readPalette(lanes);
    this.draw();
  }

  detach(): void {
    this.lanes = null;
    this.axis = null;
    if (this.frame !== null && typeof cancelAnimationFrame === "function") cancelAnimationFrame(this.frame);
    if (this.timer !== null) clearTimeout(this.timer);
    this.frame = null;
    this.timer = null;
  }

  /** The theme changed: colours are read again. */
  retheme(): void {
    if (this.lanes) this.palette = readPalette(this.lanes);
    this.invalidate();
  }

  setSize(width: number, height: number): void {
    if (width === this.width && height === this.height) return;
    this.width = width;
    this.height = height;
    this.invalidate();
  }

  setScrollTop(y: number): void {
    if (y === this.scrollTop) return;
    this.scrollTop = y;
    this.invalidate();
  }

  /** Something drawn changed: one frame soon. */
  invalidate = (): void => {
    if (this.frame !== null || !this.lanes) return;
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (typeof requestAnimationFrame !== "function") {
      this.draw();
      return;
    }
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.draw();
    });
  };

  /**
   * The viewport for `scene`: fitted while nobody zoomed or panned (a running
   * session only while followed), else moved along with "now" while following.
   */
  private settle(scene: Scene): Viewport | null {
    if (!scene.extent || this.width <= 0) return this.vp;
    const following = this.follow && scene.running;
    if (this.vp === null || (this.autoFit && (following || !scene.running))) {
      this.vp = fitViewport(scene.extent.start, scene.extent.end, this.width);
    } else if (following) {
      this.vp = followViewport(this.vp, scene.extent.start, scene.now, this.width);
    }
    return this.vp;
  }

  /** Paints both canvases now. */
  draw(): void {
    const lanes = this.lanes;
    const axis = this.axis;
    if (!lanes || !axis || this.width <= 0 || this.height <= 0) return;
    const scene = readScene(this.clock());
    this.scene = scene;
    const vp = this.settle(scene);
    const p = this.palette ?? readPalette(lanes);
    this.palette = p;
    const lctx = prepare(lanes, this.width, this.height);
    const actx = prepare(axis, this.width, AXIS_HEIGHT);
    if (!lctx || !actx) return;
    if (!vp || !scene.extent) {
      lctx.clearRect(0, 0, this.width, this.height);
      actx.clearRect(0, 0, this.width, AXIS_HEIGHT);
      return;
    }
    const started = performance.now();
    const ticks = axisTicks(vp, this.width, scene.extent.start);
    const { first, last } = rowWindow(this.scrollTop, this.height, ROW_HEIGHT, scene.rows.length, OVERSCAN);
    const rects = paintLanes(lctx, scene, {
      vp,
      width: this.width,
      height: this.height,
      scrollTop: this.scrollTop,
      first,
      last,
      ticks,
      hover: this.hover,
    }, p);
    paintAxis(actx, this.width, ticks, scene.running ? timeToX(scene.now, vp) : null, p);
    const probe = typeof window === "undefined" ? undefined : window.__arborPerf;
    if (probe) {
      const at = performance.now();
      probe.paints.push({ at, ms: at - started, rects });
    }
    if (scene.running) this.tick(vp);
  }

  /** While the session runs: the next frame once "now" has moved about a pixel (between 30 ms and a second). */
  private tick(vp: Viewport): void {
    if (this.timer !== null) return;
    const wait = Math.min(1000, Math.max(30, vp.msPerPx));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.invalidate();
    }, wait);
  }

  // ---- Moving the view ----

  /** Zoom by `factor` (> 1: in) around `x` (the middle by default; "now" while following). */
  zoom(factor: number, x?: number): void {
    const scene = this.scene ?? readScene(this.clock());
    const vp = this.settle(scene);
    if (!vp) return;
    const following = this.follow && scene.running;
    const at = following ? timeToX(scene.now, vp) : (x ?? this.width / 2);
    this.vp = zoomAt(vp, factor, at);
    this.autoFit = false;
    this.invalidate();
  }

  /** Pan by `dx` pixels (positive: later); the person took over, so Follow live stops. */
  pan(dx: number): void {
    if (!this.vp || dx === 0) return;
    this.vp = panBy(this.vp, dx);
    this.autoFit = false;
    this.setFollow(false);
    this.invalidate();
  }

  /** The whole session in view (and kept so, as it grows, while followed). */
  fit(): void {
    const scene = readScene(this.clock());
    this.autoFit = true;
    if (scene.extent && this.width > 0) this.vp = fitViewport(scene.extent.start, scene.extent.end, this.width);
    this.invalidate();
  }

  setFollow(follow: boolean): void {
    if (this.follow === follow) return;
    this.follow = follow;
    this.emit();
    this.invalidate();
  }

  /** The lanes' width in CSS pixels. */
  get viewportWidth(): number {
    return this.width;
  }

  // ---- Pointing ----

  /** The agent row and segment under (x, y), in the lanes canvas's pixels. */
  hitAt(x: number, y: number): Hit | null {
    const scene = this.scene;
    const vp = this.vp;
    if (!scene || !vp) return null;
    const row = scene.rows[Math.floor((y + this.scrollTop) / ROW_HEIGHT)];
    if (!row) return null;
    const lane = scene.lanes[row.id];
    const segment = lane ? hitSegment(laneView(lane.segments), xToTime(x, vp), HIT_SLOP * vp.msPerPx, scene.now) : null;
    return { agentId: row.id, segment };
  }

  /**
   * The pointer moved to (x, y) of the lanes canvas, at (clientX, clientY) on
   * the screen, or left (null): the segment under it is outlined and described.
   */
  pointAt(at: { x: number; y: number; clientX: number; clientY: number } | null): Hover | null {
    const hit = at === null ? null : this.hitAt(at.x, at.y);
    const scene = this.scene;
    const next: Hover | null =
      hit?.segment && scene?.extent && at !== null
        ? {
            agentId: hit.agentId,
            segment: hit.segment,
            clientX: at.clientX,
            clientY: at.clientY,
            origin: scene.extent.start,
            now: scene.now,
            running: scene.running,
          }
        : null;
    const same = next?.segment === this.hover?.segment && next?.agentId === this.hover?.agentId;
    if (same && next?.clientX === this.hover?.clientX && next?.clientY === this.hover?.clientY) return this.hover;
    this.hover = next;
    this.emit();
    if (!same) this.invalidate();
    return next;
  }
}

/** The canvas's 2D context, its backing store sized for the screen's pixel density. */
function prepare(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D | null {
  const dpr = typeof window !== "undefined" ? window.devicePixelRatio || 1 : 1;
  const w = Math.round(width * dpr);
  const h = Math.round(height * dpr);
  if (canvas.width !== w) canvas.width = w;
  if (canvas.height !== h) canvas.height = h;
  const ctx = canvas.getContext("2d");
  if (!ctx) return null;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}
