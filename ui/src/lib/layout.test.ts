import { describe, expect, it } from "vitest";
import {
  CENTER_MIN,
  DEFAULT_WIDTHS,
  LAYOUT_KEY,
  PANE_LIMITS,
  SPLITTER_WIDTH,
  STRIP_WIDTH,
  dragWidth,
  inboxFolded,
  loadWidths,
  saveWidths,
  sessionLayout,
  splitterKey,
} from "./layout";

function memory(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return { getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v), data };
}

describe("the session layout", () => {
  it("gives the panes a share of the window: wider at 1440 px than at 1024, not capped at 320", () => {
    const small = sessionLayout(DEFAULT_WIDTHS, 1024, false);
    const large = sessionLayout(DEFAULT_WIDTHS, 1440, false);
    expect(small).toMatchObject({ narrow: false, tree: { width: 256 }, inbox: { width: 280 } });
    expect(large).toMatchObject({ narrow: false, tree: { width: 360 }, inbox: { width: 317 } });
    // Whatever the widths, the output keeps its room.
    for (const l of [small, large]) expect(l.tree.width + l.inbox.width + 2 * SPLITTER_WIDTH).toBeLessThanOrEqual(1440 - CENTER_MIN);
  });

  it("cuts a dragged width to what the window leaves beside the output, the tree first", () => {
    const l = sessionLayout({ tree: 700, inbox: 600 }, 1024, false);
    expect(l.tree.max).toBe(1024 - CENTER_MIN - 2 * SPLITTER_WIDTH - PANE_LIMITS.inbox.min);
    expect(l.tree.width).toBe(l.tree.max);
    expect(l.inbox.width).toBe(PANE_LIMITS.inbox.min);
    expect(l.tree.width + l.inbox.width + 2 * SPLITTER_WIDTH + CENTER_MIN).toBe(1024);
  });

  it("leaves the folded inbox a strip, and the tree more room", () => {
    const l = sessionLayout(DEFAULT_WIDTHS, 1024, true);
    expect(l.inbox).toEqual({ width: STRIP_WIDTH, min: STRIP_WIDTH, max: STRIP_WIDTH });
    expect(l.tree.max).toBe(1024 - CENTER_MIN - SPLITTER_WIDTH - STRIP_WIDTH);
  });

  it("stacks the panes in a narrow window (1024 px at 200% zoom is 512)", () => {
    expect(sessionLayout(DEFAULT_WIDTHS, 512, false).narrow).toBe(true);
    expect(sessionLayout(DEFAULT_WIDTHS, 1024, false).narrow).toBe(false);
  });
});

describe("a splitter's keys and drag", () => {
  const size = { width: 300, min: 180, max: 500 };

  it("moves away from the pane to widen it, further with Shift, to either end with Home and End", () => {
    expect(splitterKey("ArrowRight", false, "start", size)).toEqual({ width: 316 });
    expect(splitterKey("ArrowLeft", true, "start", size)).toEqual({ width: 236 });
    // The inbox is at the end: ← widens it.
    expect(splitterKey("ArrowLeft", false, "end", size)).toEqual({ width: 316 });
    expect(splitterKey("ArrowRight", false, "end", size)).toEqual({ width: 284 });
    expect(splitterKey("Home", false, "start", size)).toEqual({ width: 180 });
    expect(splitterKey("End", false, "start", size)).toEqual({ width: 500 });
    expect(splitterKey("ArrowRight", true, "start", { ...size, width: 480 })).toEqual({ width: 500 });
    expect(splitterKey("Enter", false, "start", size)).toBe("reset");
    expect(splitterKey("a", false, "start", size)).toBeNull();
  });

  it("follows the pointer within the pane's limits", () => {
    expect(dragWidth("start", 300, 300, 350, size)).toBe(350);
    expect(dragWidth("end", 300, 1000, 950, size)).toBe(350);
    expect(dragWidth("start", 300, 300, 0, size)).toBe(180);
  });
});

describe("the kept widths", () => {
  it("round-trips, and falls back to the defaults on anything unreadable", () => {
    const store = memory();
    expect(loadWidths(store)).toBe(DEFAULT_WIDTHS);
    saveWidths(store, { tree: 420, inbox: null });
    expect(loadWidths(store)).toEqual({ tree: 420, inbox: null });
    expect(loadWidths(memory({ [LAYOUT_KEY]: "{oops" }))).toBe(DEFAULT_WIDTHS);
    expect(loadWidths(memory({ [LAYOUT_KEY]: '{"tree": 5000, "inbox": "wide"}' }))).toEqual({ tree: PANE_LIMITS.tree.max, inbox: null });
    expect(loadWidths(null)).toBe(DEFAULT_WIDTHS);
    const refusing = { getItem: () => { throw new Error("denied"); } };
    expect(loadWidths(refusing)).toBe(DEFAULT_WIDTHS);
  });
});

describe("the folded inbox", () => {
  it("folds while nothing waits, opens when a request comes, and holds the person's choice until a new one", () => {
    expect(inboxFolded(null, [], false)).toBe(true);
    expect(inboxFolded(null, ["r1"], false)).toBe(false);
    // Opened by the person while empty: stays open.
    expect(inboxFolded({ open: true, pending: [] }, [], false)).toBe(false);
    // Folded by the person with r1 waiting: folded, until r2 comes.
    const folded = { open: false, pending: ["r1"] };
    expect(inboxFolded(folded, ["r1"], false)).toBe(true);
    expect(inboxFolded(folded, [], false)).toBe(true);
    expect(inboxFolded(folded, ["r1", "r2"], false)).toBe(false);
    // A card to bring into view opens it whatever was chosen.
    expect(inboxFolded(folded, ["r1"], true)).toBe(false);
  });

  it("stays open while a rule is in force, to be seen and revoked, unless the person folds it", () => {
    expect(inboxFolded(null, [], false, 1)).toBe(false);
    expect(inboxFolded({ open: false, pending: [] }, [], false, 1)).toBe(true);
    expect(inboxFolded(null, [], false, 0)).toBe(true);
  });
});
