/**
 * The timeline's colours, read from the theme's CSS variables (styles/theme.css
 * and timeline.css) so the canvas follows light and dark like the rest of the
 * window: a status colour for each agent status (the end markers), the
 * segments' colours, a palette for tools, and the queued hatching.
 */
import { AGENT_STATUSES, type AgentStatus } from "../../bindings";

export interface Palette {
  background: string;
  grid: string;
  text: string;
  selected: string;
  now: string;
  model: string;
  compaction: string;
  queued: string;
  /** The queued hatching (null where a canvas cannot make patterns): queued is drawn plain then. */
  hatch: CanvasPattern | null;
  approval: string;
  outline: string;
  tools: readonly string[];
  status: Readonly<Record<AgentStatus, string>>;
}

/** The variable that colours each status (as its status icon is coloured in layout.css). */
const STATUS_VARS: Record<AgentStatus, string> = {
  queued: "--queued",
  running: "--running",
  waiting_approval: "--waiting",
  completed: "--completed",
  failed: "--failed",
  cancelled: "--cancelled",
  max_turns: "--max-turns",
  truncated: "--max-turns",
  interrupted: "--cancelled",
  budget_exhausted: "--budget",
};

/** How many tool colours timeline.css defines (--tl-tool-0 …). */
export const TOOL_COLOURS = 8;

export function readPalette(el: Element): Palette {
  const style = getComputedStyle(el);
  const v = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const queued = v("--tl-queued", "#8a909b");
  const status = {} as Record<AgentStatus, string>;
  for (const s of AGENT_STATUSES) status[s] = v(STATUS_VARS[s], "#8a909b");
  return {
    background: v("--panel", "#ffffff"),
    grid: v("--border", "#e1e3e8"),
    text: v("--text-3", "#8a909b"),
    selected: v("--selected", "#e3ebfd"),
    now: v("--accent", "#3e63dd"),
    model: v("--tl-model", "#3e63dd"),
    compaction: v("--tl-compaction", "#4b5566"),
    queued,
    hatch: hatchPattern(queued),
    approval: v("--waiting", "#c27c0e"),
    outline: v("--text", "#1d2025"),
    tools: Array.from({ length: TOOL_COLOURS }, (_, i) => v(`--tl-tool-${i}`, "#7c66dc")),
    status,
  };
}

/** Diagonal lines in `colour` over a faint wash of it. */
function hatchPattern(colour: string): CanvasPattern | null {
  const tile = document.createElement("canvas");
  tile.width = 6;
  tile.height = 6;
  const ctx = tile.getContext("2d");
  if (!ctx || typeof ctx.createPattern !== "function") return null;
  ctx.globalAlpha = 0.18;
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, 6, 6);
  ctx.globalAlpha = 0.7;
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(0, 6);
  ctx.lineTo(6, 0);
  ctx.moveTo(-1, 1);
  ctx.lineTo(1, -1);
  ctx.moveTo(5, 7);
  ctx.lineTo(7, 5);
  ctx.stroke();
  return ctx.createPattern(tile, "repeat");
}
