/**
 * A frame-time probe for benchmarks: when `localStorage.arborPerf === "1"` or
 * the URL has `?perf=1`, `window.__arborPerf.frames` collects the time between
 * animation frames (ms), `work` the time each applied batch of events took
 * to reduce and render (ms), `paints` each timeline paint: when it ended
 * (performance.now()), how long it took and how many rectangles it filled,
 * `inputs` the input latency of text fields (ms), and `spent` the time (ms)
 * summed per named stage of the page's own work (`timed`: reducing events,
 * splitting Markdown into blocks, rendering blocks to HTML), which says where
 * a slow frame's time went. Off otherwise.
 *
 * `inputs`: for each `input` event in a textarea or an input, the time from
 * the event's `timeStamp` (when the browser created it, on the
 * performance.now() clock) to the end of the next frame's rendering. A
 * requestAnimationFrame callback runs inside that frame's rendering update,
 * with the app's own frame work (the event stream's batch and its render);
 * a message it posts on a MessageChannel is a task, and no task runs until
 * the whole update (every callback, style, layout, paint) is over. So
 * performance.now() in that message is when the typed character was painted
 * (handed to the compositor; the compositor's own few ms to the screen are
 * not counted), whatever else the frame held. A MessageChannel rather than
 * setTimeout(0): no timer clamping. Inputs of one frame share one message.
 */
export interface TimelinePaint {
  at: number;
  ms: number;
  rects: number;
}

export interface PerfProbe {
  frames: number[];
  work: number[];
  paints: TimelinePaint[];
  inputs: number[];
  /**
   * Where each of `inputs` went, in the same order: `queued`, from the event's
   * timeStamp to its handler (the page's thread was busy with something else);
   * `toFrame`, from the handler to the frame's requestAnimationFrame callback;
   * `render`, from that callback to the painted frame (style, layout, paint).
   */
  inputParts: { queued: number[]; toFrame: number[]; render: number[] };
  /** Milliseconds spent per stage (see `timed`), summed since the probe was last cleared. */
  spent: Record<string, number>;
}

declare global {
  interface Window {
    __arborPerf?: PerfProbe;
  }
}

const MAX_FRAMES = 100_000;

/** The probe while it is on (null otherwise: `timed` costs one comparison). */
let active: PerfProbe | null = null;

/** A region's render time (components/PerfRegion.tsx), added to `spent["render <id>"]` while the probe is on. */
export function recordRender(id: string, ms: number): void {
  if (active !== null) addSpent(active, `render ${id}`, ms);
}

function addSpent(probe: PerfProbe, stage: string, ms: number): void {
  probe.spent[stage] = (probe.spent[stage] ?? 0) + ms;
}

/** `f()`, its time added to the probe's `spent[stage]` while the probe is on. */
export function timed<T>(stage: string, f: () => T): T {
  const probe = active;
  if (probe === null) return f();
  const started = performance.now();
  try {
    return f();
  } finally {
    addSpent(probe, stage, performance.now() - started);
  }
}

function enabled(): boolean {
  try {
    if (new URLSearchParams(window.location.search).get("perf") === "1") return true;
    return window.localStorage.getItem("arborPerf") === "1";
  } catch {
    return false;
  }
}

/** Keeps a probe list bounded: past the limit, the older half goes. */
function bound(list: unknown[]): void {
  if (list.length >= MAX_FRAMES) list.splice(0, list.length - MAX_FRAMES / 2);
}

/** An event's timeStamp on the performance.now() clock (old engines gave epoch milliseconds). */
function eventTime(e: Event): number {
  const t = e.timeStamp;
  return t > performance.now() + 3_600_000 ? t - performance.timeOrigin : t;
}

function isTextField(target: EventTarget | null): boolean {
  return target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement;
}

function installInputProbe(probe: PerfProbe): void {
  /** Input events waiting for their frame to be painted: their timeStamp and when their handler ran. */
  let waiting: { at: number; handled: number }[] = [];
  const channel = new MessageChannel();
  channel.port1.onmessage = (m: MessageEvent<{ frame: number; inputs: { at: number; handled: number }[] }>) => {
    const now = performance.now();
    const parts = probe.inputParts;
    for (const { at, handled } of m.data.inputs) {
      for (const list of [probe.inputs, parts.queued, parts.toFrame, parts.render]) bound(list);
      probe.inputs.push(now - at);
      parts.queued.push(handled - at);
      parts.toFrame.push(m.data.frame - handled);
      parts.render.push(now - m.data.frame);
    }
  };
  const painted = () => {
    const inputs = waiting;
    waiting = [];
    channel.port2.postMessage({ frame: performance.now(), inputs });
  };
  document.addEventListener(
    "input",
    (e) => {
      if (!isTextField(e.target)) return;
      if (waiting.length === 0) requestAnimationFrame(painted);
      waiting.push({ at: eventTime(e), handled: performance.now() });
    },
    { capture: true, passive: true },
  );
}

export function installPerfProbe(): void {
  if (typeof window === "undefined" || !enabled() || window.__arborPerf) return;
  const probe: PerfProbe = {
    frames: [],
    work: [],
    paints: [],
    inputs: [],
    inputParts: { queued: [], toFrame: [], render: [] },
    spent: {},
  };
  window.__arborPerf = probe;
  active = probe;
  installInputProbe(probe);
  let last = performance.now();
  const tick = (t: number) => {
    bound(probe.frames);
    bound(probe.work);
    bound(probe.paints);
    bound(probe.inputs);
    probe.frames.push(t - last);
    last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

/**
 * Marks the moment the window first became usable (app state loaded, its first
 * screen rendered): `performance.getEntriesByName("arbor-interactive")`, what the
 * benchmark's cold start measures to. Once per page; always on (one mark).
 */
export function markInteractive(): void {
  if (typeof performance === "undefined" || typeof performance.mark !== "function") return;
  if (performance.getEntriesByName("arbor-interactive").length === 0) performance.mark("arbor-interactive");
}
