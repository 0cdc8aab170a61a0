/**
 * A frame-time probe for benchmarks: when `localStorage.arborPerf === "1"` or
 * the URL has `?perf=1`, `window.__arborPerf.frames` collects the time between
 * animation frames (ms), `work` the time each applied batch of events took
 * to reduce and render (ms), and `paints` each timeline paint: when it ended
 * (performance.now()), how long it took and how many rectangles it filled. Off otherwise.
 */
export interface TimelinePaint {
  at: number;
  ms: number;
  rects: number;
}

declare global {
  interface Window {
    __arborPerf?: { frames: number[]; work: number[]; paints: TimelinePaint[] };
  }
}

const MAX_FRAMES = 100_000;

function enabled(): boolean {
  try {
    if (new URLSearchParams(window.location.search).get("perf") === "1") return true;
    return window.localStorage.getItem("arborPerf") === "1";
  } catch {
    return false;
  }
}

export function installPerfProbe(): void {
  if (typeof window === "undefined" || !enabled() || window.__arborPerf) return;
  const probe = { frames: [] as number[], work: [] as number[], paints: [] as TimelinePaint[] };
  window.__arborPerf = probe;
  let last = performance.now();
  const tick = (t: number) => {
    if (probe.frames.length >= MAX_FRAMES) probe.frames.splice(0, probe.frames.length - MAX_FRAMES / 2);
    if (probe.work.length >= MAX_FRAMES) probe.work.splice(0, probe.work.length - MAX_FRAMES / 2);
    if (probe.paints.length >= MAX_FRAMES) probe.paints.splice(0, probe.paints.length - MAX_FRAMES / 2);
    probe.frames.push(t - last);
    last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}
