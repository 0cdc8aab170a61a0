/**
 * The session layout's arithmetic: how wide the agent tree and the approval
 * inbox are (a person's dragged width, or a share of the window), what fits
 * beside the output, what a splitter's keys do, how the widths are kept across
 * restarts (localStorage), and when the inbox is folded to a strip. Pure, so
 * it is tested without a window; store/ui.ts holds the state, the components
 * in components/layout/ draw it.
 */

export type Pane = "tree" | "inbox";

export interface PaneLimits {
  min: number;
  max: number;
  /** The default's share of the window's width, held between `defaultMin` and `defaultMax`. */
  share: number;
  defaultMin: number;
  defaultMax: number;
}

/**
 * A name is read at 180 px; past 720 the output would be the one squeezed.
 * The defaults grow with the window (1024 px: 256 and 280; 1440: 360 and 317)
 * instead of stopping at a fixed width.
 */
export const PANE_LIMITS: Readonly<Record<Pane, PaneLimits>> = {
  tree: { min: 180, max: 720, share: 0.25, defaultMin: 240, defaultMax: 440 },
  inbox: { min: 240, max: 640, share: 0.22, defaultMin: 280, defaultMax: 380 },
};

/** What the output and the prompt keep beside the panes: a line of text and the Send button. */
export const CENTER_MIN = 320;
/** A splitter's width: wide enough to grab, its line drawn in the middle. */
export const SPLITTER_WIDTH = 6;
/** The folded inbox: a strip with its count. */
export const STRIP_WIDTH = 40;
/** Below this width (a small window, or 200% zoom) the panes stack and the splitters go. */
export const NARROW_WIDTH = 720;
/** A splitter's arrow keys move it this much; with Shift, by BIG_STEP. */
export const STEP = 16;
export const BIG_STEP = 64;

/** The person's widths; null: the default, which follows the window. */
export type PaneWidths = Readonly<Record<Pane, number | null>>;

export const DEFAULT_WIDTHS: PaneWidths = { tree: null, inbox: null };

const clamp = (n: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, n));

/** A width a person may give the pane, whatever the window. */
export function clampWidth(pane: Pane, px: number): number {
  const { min, max } = PANE_LIMITS[pane];
  return Math.round(clamp(px, min, max));
}

/** The pane's width when nobody chose one: a share of the window. */
export function defaultWidth(pane: Pane, viewport: number): number {
  const { share, defaultMin, defaultMax } = PANE_LIMITS[pane];
  return Math.round(clamp(viewport * share, defaultMin, defaultMax));
}

/** One pane's width as laid out, and how far its splitter can go in this window. */
export interface PaneSize {
  width: number;
  min: number;
  max: number;
}

export interface SessionLayout {
  /** Stacked: no splitters, panes one above the other, the whole scrolls. */
  narrow: boolean;
  tree: PaneSize;
  /** When folded, `width` is the strip's. */
  inbox: PaneSize;
}

/**
 * The panes' widths in a window `viewport` px wide: the chosen (or default)
 * widths, cut so that the output keeps CENTER_MIN. The tree is served first:
 * it is what a person resizes most.
 */
export function sessionLayout(widths: PaneWidths, viewport: number, inboxFolded: boolean): SessionLayout {
  const narrow = viewport < NARROW_WIDTH;
  const treeLimits = PANE_LIMITS.tree;
  const inboxLimits = PANE_LIMITS.inbox;
  const inboxWanted = inboxFolded ? STRIP_WIDTH : clampWidth("inbox", widths.inbox ?? defaultWidth("inbox", viewport));
  const splitters = SPLITTER_WIDTH * (inboxFolded ? 1 : 2);
  const room = viewport - CENTER_MIN - splitters;
  const inboxFloor = inboxFolded ? STRIP_WIDTH : inboxLimits.min;
  const treeMax = clamp(room - inboxFloor, treeLimits.min, treeLimits.max);
  const treeWidth = Math.min(clampWidth("tree", widths.tree ?? defaultWidth("tree", viewport)), treeMax);
  const inboxMax = inboxFolded ? STRIP_WIDTH : clamp(room - treeWidth, inboxLimits.min, inboxLimits.max);
  return {
    narrow,
    tree: { width: treeWidth, min: treeLimits.min, max: treeMax },
    inbox: {
      width: Math.min(inboxWanted, inboxMax),
      min: inboxFolded ? STRIP_WIDTH : inboxLimits.min,
      max: inboxMax,
    },
  };
}

/** Which way a splitter's pane grows: the tree (at the start) to the right, the inbox (at the end) to the left. */
export type PaneSide = "start" | "end";

/**
 * What a key does on a pane's splitter (WAI-ARIA window splitter): the arrows
 * move it (Shift: further), Home and End take the pane to its least and most,
 * Enter gives it back its default. Null: not a splitter key.
 */
export function splitterKey(
  key: string,
  shift: boolean,
  side: PaneSide,
  size: PaneSize,
): { width: number } | "reset" | null {
  const step = shift ? BIG_STEP : STEP;
  // The arrow pointing away from the pane widens it.
  const grow = side === "start" ? "ArrowRight" : "ArrowLeft";
  const shrink = side === "start" ? "ArrowLeft" : "ArrowRight";
  const to = (w: number) => ({ width: Math.round(clamp(w, size.min, size.max)) });
  switch (key) {
    case grow:
    case "ArrowUp":
      return to(size.width + step);
    case shrink:
    case "ArrowDown":
      return to(size.width - step);
    case "Home":
      return to(size.min);
    case "End":
      return to(size.max);
    case "Enter":
      return "reset";
    default:
      return null;
  }
}

/** The width a drag that began at `startX` with the pane `startWidth` wide gives it at `x`. */
export function dragWidth(side: PaneSide, startWidth: number, startX: number, x: number, size: PaneSize): number {
  const moved = side === "start" ? x - startX : startX - x;
  return Math.round(clamp(startWidth + moved, size.min, size.max));
}

/** Where the widths are kept across restarts. */
export const LAYOUT_KEY = "arbor.layout.v1";

/** The widths kept by an earlier run; the defaults when there are none, or they are unreadable. */
export function loadWidths(storage: Pick<Storage, "getItem"> | null): PaneWidths {
  let raw: string | null = null;
  try {
    raw = storage?.getItem(LAYOUT_KEY) ?? null;
  } catch {
    // Storage refused (a locked-down webview): the defaults.
  }
  if (raw === null) return DEFAULT_WIDTHS;
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== "object") return DEFAULT_WIDTHS;
    const o = parsed as Record<string, unknown>;
    const read = (pane: Pane): number | null => {
      const v = o[pane];
      return typeof v === "number" && Number.isFinite(v) ? clampWidth(pane, v) : null;
    };
    return { tree: read("tree"), inbox: read("inbox") };
  } catch {
    return DEFAULT_WIDTHS;
  }
}

export function saveWidths(storage: Pick<Storage, "setItem"> | null, widths: PaneWidths): void {
  try {
    storage?.setItem(LAYOUT_KEY, JSON.stringify(widths));
  } catch {
    // Full or refused: the widths last this run only.
  }
}

/**
 * A person opened or folded the inbox, with the requests pending then. A
 * request that was not among them brings the automatic state back: a new
 * request always shows.
 */
export interface InboxChoice {
  open: boolean;
  pending: readonly string[];
}

/**
 * Whether the inbox is folded to its strip: while nothing waits and no rule
 * is in force (the inbox lists the rules, to revoke), unless the person
 * opened it; while something waits, only if the person folded it since the
 * last request came. A card to bring into view (a notification was clicked)
 * always opens it.
 */
export function inboxFolded(
  choice: InboxChoice | null,
  pending: readonly string[],
  revealing: boolean,
  rulesInForce = 0,
): boolean {
  if (revealing) return false;
  const standing = choice !== null && pending.every((id) => choice.pending.includes(id));
  if (standing) return !choice.open;
  return pending.length === 0 && rulesInForce === 0;
}
