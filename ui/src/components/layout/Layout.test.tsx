import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { LAYOUT_KEY } from "../../lib/layout";
import { requestReveal } from "../../store/approvals";
import { uiStore } from "../../store/ui";
import { askFor, answered } from "../../test/approvals";
import { eventMaker } from "../../test/events";
import { applyEvents, resetStores, sessionInfo } from "../../test/stores";
import { INBOX_PANE_ID, InboxPanel, useInboxFolded } from "./InboxPanel";
import { Splitter } from "./Splitter";
import { useSessionLayout } from "./useSessionLayout";

vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: { sendCommand: vi.fn() },
}));

/** The panes as App lays them out: the tree's splitter, and the inbox with its own while it is open. */
function Panes() {
  const folded = useInboxFolded();
  const layout = useSessionLayout(folded);
  return (
    <div data-testid="panes" data-narrow={layout.narrow}>
      <aside id="agent-tree-pane" />
      <Splitter pane="tree" side="start" size={layout.tree} label="Resize the agent tree" controls="agent-tree-pane" />
      {folded ? null : <Splitter pane="inbox" side="end" size={layout.inbox} label="Resize the approvals" controls={INBOX_PANE_ID} />}
      <InboxPanel folded={folded} />
    </div>
  );
}

const treeSplitter = () => screen.getByRole("separator", { name: "Resize the agent tree" });
const value = (el: HTMLElement) => Number(el.getAttribute("aria-valuenow"));

function setViewport(width: number) {
  Object.defineProperty(window, "innerWidth", { configurable: true, value: width });
  act(() => void window.dispatchEvent(new Event("resize")));
}

// jsdom has no scrolling: a card brought into view (a notification clicked) scrolls nowhere.
const scrollIntoView = Object.getOwnPropertyDescriptor(Element.prototype, "scrollIntoView");
beforeAll(() => {
  Element.prototype.scrollIntoView = () => {};
});
afterAll(() => {
  if (scrollIntoView) Object.defineProperty(Element.prototype, "scrollIntoView", scrollIntoView);
});

beforeEach(() => {
  window.localStorage.clear();
  setViewport(1024);
  resetStores({ session: sessionInfo() });
});

describe("the pane splitters", () => {
  it("are focusable separators with the pane's width as their value, moved with the keys", () => {
    render(<Panes />);
    const s = treeSplitter();
    expect(s.tabIndex).toBe(0);
    expect(s.getAttribute("aria-orientation")).toBe("vertical");
    expect(s.getAttribute("aria-controls")).toBe("agent-tree-pane");
    // The default at 1024 px, and how far it can go beside the output and the folded inbox.
    expect([value(s), s.getAttribute("aria-valuemin"), s.getAttribute("aria-valuemax")]).toEqual([256, "180", "658"]);
    fireEvent.keyDown(s, { key: "ArrowRight" });
    expect(value(s)).toBe(272);
    fireEvent.keyDown(s, { key: "ArrowLeft", shiftKey: true });
    expect(value(s)).toBe(208);
    fireEvent.keyDown(s, { key: "Home" });
    expect(value(s)).toBe(180);
    fireEvent.keyDown(s, { key: "End" });
    expect(value(s)).toBe(658);
    fireEvent.keyDown(s, { key: "Enter" });
    expect(value(s)).toBe(256);
    expect(uiStore.get().paneWidths.tree).toBeNull();
  });

  it("follow a drag, and go back to the default on a double-click", () => {
    render(<Panes />);
    const s = treeSplitter();
    fireEvent.pointerDown(s, { button: 0, clientX: 256, pointerId: 1 });
    fireEvent.pointerMove(s, { clientX: 340, pointerId: 1 });
    expect(value(s)).toBe(340);
    // Saved once the drag ends.
    expect(window.localStorage.getItem(LAYOUT_KEY)).toBeNull();
    fireEvent.pointerUp(s, { clientX: 340, pointerId: 1 });
    expect(JSON.parse(window.localStorage.getItem(LAYOUT_KEY) ?? "null")).toEqual({ tree: 340, inbox: null });
    // A move after the drag moves nothing.
    fireEvent.pointerMove(s, { clientX: 500, pointerId: 1 });
    expect(value(s)).toBe(340);
    fireEvent.doubleClick(s);
    expect(value(s)).toBe(256);
  });

  it("remember the widths across restarts", () => {
    const first = render(<Panes />);
    fireEvent.keyDown(treeSplitter(), { key: "ArrowRight", shiftKey: true });
    expect(value(treeSplitter())).toBe(320);
    first.unmount();
    // A new run: the ui store starts from what was kept.
    resetStores({ session: sessionInfo() });
    expect(uiStore.get().paneWidths).toEqual({ tree: 320, inbox: null });
    render(<Panes />);
    expect(value(treeSplitter())).toBe(320);
  });

  it("stop where the output would be squeezed, and go in a narrow window", () => {
    render(<Panes />);
    fireEvent.keyDown(treeSplitter(), { key: "End" });
    setViewport(800);
    expect(value(treeSplitter())).toBe(800 - 320 - 6 - 40);
    setViewport(512);
    expect(screen.getByTestId("panes").dataset.narrow).toBe("true");
  });
});

describe("the approval inbox's pane", () => {
  it("folds to a strip with the count while nothing waits, and opens when a request comes", () => {
    const e = eventMaker();
    applyEvents([e.started("agent-main", null, "main")]);
    render(<Panes />);
    const panel = screen.getByTestId("inbox-panel");
    expect(panel.dataset.folded).toBe("true");
    const strip = screen.getByRole("button", { name: "Show the approvals: nothing waits for you" });
    expect(strip.getAttribute("aria-expanded")).toBe("false");
    expect(strip.textContent).toContain("0");
    // No splitter for a strip.
    expect(screen.queryByRole("separator", { name: "Resize the approvals" })).toBeNull();

    act(() => applyEvents(askFor(e.make, "agent-main", "r-1")));
    expect(screen.getByTestId("inbox-panel").dataset.folded).toBeUndefined();
    expect(screen.getByTestId("approval")).toBeTruthy();
    expect(screen.getByRole("separator", { name: "Resize the approvals" })).toBeTruthy();

    // Answered: nothing waits, it folds again.
    act(() => applyEvents([answered(e.make, "agent-main", "r-1", "approved")]));
    expect(screen.getByTestId("inbox-panel").dataset.folded).toBe("true");
  });

  it("opens and folds at the person's word, and a new request opens it again", () => {
    const e = eventMaker();
    applyEvents([e.started("agent-main", null, "main")]);
    render(<Panes />);
    fireEvent.click(screen.getByTestId("inbox-expand"));
    expect(screen.getByText("Nothing to approve")).toBeTruthy();
    act(() => applyEvents(askFor(e.make, "agent-main", "r-1")));
    fireEvent.click(screen.getByRole("button", { name: "Fold the approvals" }));
    expect(screen.getByRole("button", { name: "Show the approvals: 1 request waiting" }).textContent).toContain("1");
    act(() => applyEvents(askFor(e.make, "agent-main", "r-2")));
    expect(screen.getAllByTestId("approval")).toHaveLength(2);
    // A card to bring into view (a notification was clicked) opens it too.
    fireEvent.click(screen.getByRole("button", { name: "Fold the approvals" }));
    expect(screen.queryByTestId("approval")).toBeNull();
    act(() => requestReveal("r-1"));
    expect(screen.getAllByTestId("approval")).toHaveLength(2);
  });

  it("keeps its dragged width", () => {
    const e = eventMaker();
    applyEvents([e.started("agent-main", null, "main"), ...askFor(e.make, "agent-main", "r-1")]);
    render(<Panes />);
    const s = screen.getByRole("separator", { name: "Resize the approvals" });
    expect(value(s)).toBe(280);
    // ← widens the pane at the end.
    fireEvent.keyDown(s, { key: "ArrowLeft" });
    expect(value(s)).toBe(296);
    expect(JSON.parse(window.localStorage.getItem(LAYOUT_KEY) ?? "null")).toEqual({ tree: null, inbox: 296 });
  });
});
