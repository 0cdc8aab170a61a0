import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TIP_DELAY_MS } from "../../lib/tooltip";
import { applyFrames, timelineStore } from "../../store/timeline";
import { uiStore } from "../../store/ui";
import { recordCanvases, type Painted, type PaintedRect } from "../../test/canvas";
import { eventMaker } from "../../test/events";
import { withLayout } from "../../test/layout";
import { applyEvents, resetStores, sessionInfo } from "../../test/stores";
import { seg, timelineUpdate } from "../../test/timeline";
import { seedTimelineFixture, timelineFixture } from "../../test/timelineFixture";
import { TimelineView } from "./TimelineView";

vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: {},
}));

// The lanes are 800 px wide and the rows' viewport 600 px tall.
withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

/** The palette's fallbacks (jsdom computes no CSS variables). */
const APPROVAL = "#c27c0e";
const MODEL = "#3e63dd";
const COMPACTION = "#4b5566";

let painted: (canvas: HTMLCanvasElement) => Painted;
const lanes = () => painted(screen.getByTestId("timeline-canvas"));
const axis = () => painted(document.querySelector<HTMLCanvasElement>("canvas.timeline-axis") as HTMLCanvasElement);
/** Runs `action`, then waits until the lanes are painted again (a frame later). */
async function repaint(action: () => void) {
  const before = lanes().frames;
  action();
  await vi.waitFor(() => expect(lanes().frames).toBeGreaterThan(before));
}
const centre = (r: PaintedRect) => ({ clientX: r.x + r.w / 2, clientY: r.y + r.h / 2 });
/** The filled rectangles of the row at `index` with `fill`, left to right. */
const inRow = (index: number, fill: unknown) =>
  lanes()
    .rects.filter((r) => r.fill === fill && r.y >= index * 28 && r.y + r.h <= (index + 1) * 28 && r.h < 28)
    .sort((a, b) => a.x - b.x);

function seedSession() {
  const e = eventMaker();
  applyEvents([
    e.started("agent-main", null, "main"),
    e.started("agent-a", "agent-main", "Write the greeting"),
    e.started("agent-c", "agent-a", "Check the docs", { depth: 2 }),
    e.started("agent-b", "agent-main", "Run the tests"),
  ]);
  applyFrames("s-1", [
    timelineUpdate(
      [
        ["agent-main", 0, seg("model", 1100, 1500, { seq: 1 })],
        ["agent-main", 1, seg("tool", 1500, 3000, { seq: 5, label: "Task", call_id: "t1" })],
        ["agent-a", 0, seg("queued", 1200, 1400, { seq: 2 })],
        ["agent-a", 1, seg("model", 1400, 1800, { seq: 8 })],
        ["agent-a", 2, seg("tool", 1800, 2600, { seq: 20, label: "Edit", call_id: "e1" })],
        ["agent-a", 3, seg("approval", 1900, 2400, { seq: 21, label: "Edit", call_id: "e1" })],
        ["agent-c", 0, seg("model", 1300, 2000, { seq: 3 })],
        ["agent-b", 0, seg("queued", 1400, 2200, { seq: 4 })],
        ["agent-b", 1, seg("model", 2200, 2900, { seq: 30 })],
      ],
      [["agent-a", 500]],
      500,
    ),
  ]);
}

beforeEach(() => {
  painted = recordCanvases();
  resetStores();
  uiStore.set((s) => ({ ...s, sessionView: "timeline" }));
});

afterEach(() => {
  vi.useRealTimers();
});

describe("TimelineView", () => {
  it("lists each agent in tree order with its status, time and waiting, and the session's waiting", () => {
    seedSession();
    render(<TimelineView />);
    const table = screen.getByTestId("timeline-summary");
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.querySelector("th")?.textContent)).toEqual([
      "Main agent",
      "Write the greeting",
      "Check the docs",
      "Run the tests",
    ]);
    expect(rows.map((r) => r.querySelectorAll("td")[2]?.textContent)).toEqual(["0ms", "500ms", "0ms", "0ms"]);
    expect(table.querySelector("caption")?.textContent).toContain("waited 500ms for your approval");
    expect(screen.getByTestId("timeline-waiting").textContent).toBe("Waited for you: 500ms");
    // The visible rows' labels, and what each waited at the row's end.
    expect(screen.getAllByTestId("timeline-label").map((l) => l.textContent)).toEqual([
      "Main agent",
      "Write the greeting",
      "Check the docs",
      "Run the tests",
    ]);
    expect(document.querySelectorAll(".timeline-wait")[1]?.textContent).toBe("500ms");
  });

  it("paints each lane on the canvas: model turns, tool calls thinner, the wait for approval on top, the axis", () => {
    seedSession();
    render(<TimelineView />);
    expect(screen.getByRole("img", { name: /Timeline lanes of 4 agents/ })).toBeTruthy();
    const [model] = inRow(0, MODEL);
    const approval = inRow(1, APPROVAL);
    expect(model).toBeTruthy();
    expect(approval).toHaveLength(1);
    // The session is fitted: it starts near the left edge and ends near the right.
    expect(model?.x).toBeGreaterThan(0);
    expect(model?.x).toBeLessThan(30);
    const tool = lanes().rects.find((r) => r.y === 28 + 10);
    expect(tool?.h).toBeLessThan(model?.h ?? 0);
    expect(approval[0]?.h).toBeGreaterThan(model?.h ?? 0);
    // Painted after the call it waits in.
    const order = lanes().rects;
    expect(order.indexOf(approval[0] as PaintedRect)).toBeGreaterThan(order.indexOf(tool as PaintedRect));
    // Queued time is hatched.
    expect(inRow(3, lanes().rects.find((r) => typeof r.fill === "object")?.fill)).toHaveLength(1);
    expect(axis().texts.map((t) => t.text)).toContain("0");
    expect(axis().texts.map((t) => t.text)).toContain("1s");
  });

  it("paints a compaction in its own colour, between the model turns it sits between, and names it", () => {
    seedSession();
    applyFrames("s-1", [
      timelineUpdate(
        [
          ["agent-b", 2, seg("compaction", 2900, 3100, { seq: 31 })],
          ["agent-b", 3, seg("model", 3100, 3400, { seq: 32 })],
        ],
        [],
        null,
      ),
    ]);
    render(<TimelineView />);
    const [compaction] = inRow(3, COMPACTION);
    const models = inRow(3, MODEL);
    expect(compaction).toBeTruthy();
    expect(models.some((m) => m.x + m.w <= (compaction?.x ?? 0) + 1)).toBe(true);
    expect(models.some((m) => m.x >= (compaction?.x ?? 0) + (compaction?.w ?? 0) - 1)).toBe(true);
    fireEvent.pointerMove(screen.getByTestId("timeline-canvas"), centre(compaction as PaintedRect));
    expect(screen.getByTestId("timeline-tooltip").textContent).toContain("Compacting its context");
    expect(document.querySelector(".timeline-legend")?.textContent).toContain("Compacting");
  });

  it("paints a compaction of a few milliseconds on whole pixels, in its own colour", () => {
    seedSession();
    applyFrames("s-1", [
      timelineUpdate(
        [
          ["agent-b", 2, seg("compaction", 2900.3, 2901.1, { seq: 31 })],
          ["agent-b", 3, seg("model", 2901.1, 3400, { seq: 32 })],
        ],
        [],
        null,
      ),
    ]);
    render(<TimelineView />);
    const [compaction] = inRow(3, COMPACTION);
    // A sliver between two pixels would be blended with the row behind it.
    expect(compaction).toBeTruthy();
    expect(Number.isInteger(compaction?.x) && compaction?.w === 1).toBe(true);
  });

  it("jumps to a segment's event in its agent's output when it is clicked", () => {
    seedSession();
    render(<TimelineView />);
    const [approval] = inRow(1, APPROVAL);
    const canvas = screen.getByTestId("timeline-canvas");
    fireEvent.pointerDown(canvas, { ...centre(approval as PaintedRect), button: 0, pointerId: 1 });
    fireEvent.pointerUp(canvas, { ...centre(approval as PaintedRect), button: 0, pointerId: 1 });
    const ui = uiStore.get();
    expect(ui.selected).toBe("agent-a");
    expect(ui.focus).toEqual({ agentId: "agent-a", seq: 21 });
    expect(ui.sessionView).toBe("agent");
    expect(ui.outputTab).toBe("output");
  });

  it("selects an agent clicked where its lane is empty, and stays on the timeline", async () => {
    seedSession();
    render(<TimelineView />);
    const canvas = screen.getByTestId("timeline-canvas");
    const at = { clientX: 2, clientY: 3 * 28 + 14, button: 0, pointerId: 1 };
    await repaint(() => {
      fireEvent.pointerDown(canvas, at);
      fireEvent.pointerUp(canvas, at);
    });
    expect(uiStore.get().selected).toBe("agent-b");
    expect(uiStore.get().sessionView).toBe("timeline");
    // Its row is highlighted.
    expect(lanes().rects.some((r) => r.y === 3 * 28 && r.h === 28 && r.w === 800)).toBe(true);
  });

  it("describes the segment under the pointer", () => {
    seedSession();
    render(<TimelineView />);
    const [task] = inRow(0, lanes().rects.find((r) => r.y === 10)?.fill);
    fireEvent.pointerMove(screen.getByTestId("timeline-canvas"), centre(task as PaintedRect));
    const tip = screen.getByTestId("timeline-tooltip");
    expect(tip.textContent).toContain("Tool call · Task");
    expect(tip.textContent).toContain("at +400ms");
    expect(tip.textContent).toContain("lasted 1.5s");
    fireEvent.pointerMove(screen.getByTestId("timeline-canvas"), centre(inRow(1, APPROVAL)[0] as PaintedRect));
    expect(screen.getByTestId("timeline-tooltip").textContent).toContain("Waiting for your approval · Edit");
    fireEvent.pointerLeave(screen.getByTestId("timeline-canvas"));
    expect(screen.queryByTestId("timeline-tooltip")).toBeNull();
  });

  it("pans with the arrow keys, zooms with + and the buttons, and fits with 0", async () => {
    seedSession();
    render(<TimelineView />);
    // Agent a's Edit call, around the middle of the view.
    const edit = () => lanes().rects.find((r) => r.y === 28 + 10);
    const x0 = edit()?.x ?? NaN;
    const w0 = edit()?.w ?? NaN;
    const chart = screen.getByRole("group", { name: "Timeline chart" });
    await repaint(() => fireEvent.keyDown(chart, { key: "ArrowRight" }));
    expect(edit()?.x).toBeCloseTo(x0 - 80);
    await repaint(() => fireEvent.keyDown(chart, { key: "0" }));
    expect(edit()?.x).toBeCloseTo(x0);
    await repaint(() => fireEvent.click(screen.getByRole("button", { name: "Zoom in" })));
    expect(edit()?.w).toBeCloseTo(w0 * 1.5);
    await repaint(() => fireEvent.keyDown(chart, { key: "-" }));
    expect(edit()?.w).toBeCloseTo(w0);
  });

  it("folds a subtree with the tree: its rows go from the chart and the table", () => {
    seedSession();
    render(<TimelineView />);
    fireEvent.click(screen.getByRole("button", { name: "Collapse Write the greeting" }));
    expect(uiStore.get().collapsed["agent-a"]).toBe(true);
    expect(screen.getAllByTestId("timeline-label").map((l) => l.textContent)).toEqual([
      "Main agent",
      "Write the greeting",
      "Run the tests",
    ]);
    expect(within(screen.getByTestId("timeline-summary")).getAllByRole("row")).toHaveLength(4);
  });

  it("follows a running session until the person pans", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(3500);
    uiStore.set((s) => ({ ...s, session: sessionInfo() }));
    seedSession();
    applyEvents([eventMaker().make("agent-b", { type: "agent_status", status: "running" })].map((ev) => ({ ...ev, seq: 99, ts: 3000 })));
    applyFrames("s-1", [timelineUpdate([["agent-b", 2, seg("tool", 3000, null, { seq: 99, label: "Bash" })]])]);
    render(<TimelineView />);
    const follow = screen.getByRole("button", { name: "Follow live" });
    expect(follow.getAttribute("aria-pressed")).toBe("true");
    // The open call runs until now, which is at the right edge.
    const openCall = () => inRow(3, lanes().rects.find((r) => r.y === 3 * 28 + 10)?.fill).at(-1);
    const right = () => (openCall()?.x ?? 0) + (openCall()?.w ?? 0);
    expect(right()).toBeCloseTo(800 * 0.98, 0);
    // Time passes: the whole session stays in view, now at the right.
    vi.setSystemTime(7000);
    await repaint(() => act(() => applyFrames("s-1", [timelineUpdate([], [], 500)])));
    expect(right()).toBeCloseTo(800 * 0.98, 0);
    expect(inRow(0, MODEL)[0]?.x).toBeLessThan(20);
    fireEvent.pointerMove(screen.getByTestId("timeline-canvas"), centre(openCall() as PaintedRect));
    expect(screen.getByTestId("timeline-tooltip").textContent).toContain("Tool call · Bash");
    expect(screen.getByTestId("timeline-tooltip").textContent).toContain("4s so far");
    fireEvent.keyDown(screen.getByRole("group", { name: "Timeline chart" }), { key: "ArrowLeft" });
    expect(follow.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(follow);
    expect(follow.getAttribute("aria-pressed")).toBe("true");
  });

  it("fits the session again as its segments arrive, until the person zooms", async () => {
    const e = eventMaker();
    applyEvents([e.started("agent-main", null, "main")]);
    render(<TimelineView />);
    const frame = (index: number, segment: ReturnType<typeof seg>) => () =>
      act(() => applyFrames("s-1", [timelineUpdate([["agent-main", index, segment]])]));
    await repaint(frame(0, seg("model", 1100, 3100)));
    const model = () => inRow(0, MODEL)[0];
    expect(model()?.x).toBeCloseTo(16);
    expect(model()?.w).toBeCloseTo(768);
    fireEvent.click(screen.getByRole("button", { name: "Zoom out" }));
    await repaint(frame(1, seg("tool", 3100, 5100, { label: "Bash" })));
    expect(model()?.w).toBeCloseTo(768 / 1.5);
    await repaint(() => fireEvent.click(screen.getByRole("button", { name: "Fit" })));
    expect(model()?.w).toBeCloseTo(384);
  });

  it("invites a session when there is none", () => {
    render(<TimelineView />);
    expect(screen.getByTestId("timeline").textContent).toContain("No timeline yet");
    expect(timelineStore.get()).toEqual({});
  });

  it("renders and paints only the visible rows of a 200-agent, 40,000-segment session", () => {
    const fixture = timelineFixture();
    expect(fixture.timeline.lanes).toHaveLength(200);
    expect(fixture.timeline.lanes.reduce((n, l) => n + l.segments.length, 0)).toBe(40_000);
    for (const l of fixture.timeline.lanes) {
      expect(l.segments.every((s, i) => i === 0 || (l.segments[i - 1]?.start ?? 0) <= s.start)).toBe(true);
    }
    act(() => {
      seedTimelineFixture(fixture);
    });
    render(<TimelineView />);
    // 600 px of 28 px rows, and a few either side.
    const labels = screen.getAllByTestId("timeline-label");
    expect(labels.length).toBeGreaterThan(20);
    expect(labels.length).toBeLessThanOrEqual(31);
    const rects = lanes().rects;
    expect(rects.length).toBeGreaterThan(100);
    expect(rects.length).toBeLessThan(10_000);
    expect(rects.every((r) => r.y > -3 * 28 && r.y < 600 + 3 * 28)).toBe(true);
    // The text alternative lists every agent.
    expect(within(screen.getByTestId("timeline-summary")).getAllByRole("row")).toHaveLength(201);
  });
});

describe("the timeline toolbar's tooltips", () => {
  /** The tooltip describing `el` (a button's by aria-describedby, the waiting figure's in its anchor), or null while hidden. */
  function shownTip(el: HTMLElement): string | null {
    const id = el.getAttribute("aria-describedby");
    const tip = id ? document.getElementById(id) : el.closest(".tip-anchor")?.querySelector<HTMLElement>("[role=tooltip]");
    if (!tip) throw new Error("no tooltip");
    return tip.hidden ? null : tip.textContent;
  }
  const shownTips = () => [...document.querySelectorAll<HTMLElement>("[role=tooltip]")].filter((t) => !t.hidden);
  function rest(el: HTMLElement) {
    fireEvent.pointerEnter(el.closest(".tip-anchor") as HTMLElement);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
  }

  it("describe each button in lib/tooltip's tooltip, and go with Follow live when the session stops running", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    uiStore.set((s) => ({ ...s, session: sessionInfo() }));
    const e = eventMaker();
    applyEvents([e.started("agent-main", null, "main"), e.status("agent-main", "running")]);
    render(<TimelineView />);
    const button = (name: string) => screen.getByRole("button", { name });
    const tips = {
      "Zoom out": "Zoom out (−, or Ctrl/⌘ + wheel)",
      "Zoom in": "Zoom in (+, or Ctrl/⌘ + wheel)",
      Fit: "The whole session in view (0)",
      "Follow live": "Keep now in view while the session runs",
    };
    for (const [name, text] of Object.entries(tips)) {
      expect(button(name).getAttribute("title")).toBeNull();
      expect(shownTip(button(name))).toBeNull();
      rest(button(name));
      expect(shownTip(button(name))).toBe(text);
      fireEvent.pointerDown(button(name));
      expect(shownTip(button(name))).toBeNull();
      fireEvent.pointerLeave(button(name).closest(".tip-anchor") as HTMLElement);
    }
    const waiting = screen.getByTestId("timeline-waiting");
    expect(waiting.getAttribute("title")).toBeNull();
    rest(waiting);
    expect(shownTip(waiting)).toBe("Time any agent waited for your approval");
    fireEvent.pointerLeave(waiting.closest(".tip-anchor") as HTMLElement);

    // Resting on Follow live as the session stops: the button goes, and its tooltip with it.
    rest(button("Follow live"));
    expect(shownTips().map((t) => t.textContent)).toEqual([tips["Follow live"]]);
    act(() => applyEvents([e.status("agent-main", "completed")]));
    expect(screen.queryByRole("button", { name: "Follow live" })).toBeNull();
    expect(shownTips()).toEqual([]);
  });
});
