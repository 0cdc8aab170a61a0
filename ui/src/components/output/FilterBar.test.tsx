import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TIP_DELAY_MS } from "../../lib/tooltip";
import { outputFilterOf, patchUi, select, uiStore } from "../../store/ui";
import { sessionStore } from "../../store/sessionStore";
import { eventMaker } from "../../test/events";
import { withLayout } from "../../test/layout";
import { applyEvents, resetStores, sessionInfo } from "../../test/stores";
import { OutputView } from "./OutputView";

vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: {},
}));

withLayout({ offsetHeight: 2000, offsetWidth: 800, clientHeight: 2000 });

const e = eventMaker();
let bashFail = 0;

beforeEach(() => {
  resetStores({ session: sessionInfo() });
  const events = [
    e.started("agent-main", null, "main"),
    e.make("agent-main", { type: "imported_entry", kind: "attachment: environment", content: "Working directory: /pond" }),
    e.make("agent-main", { type: "thoughts", content: "main is thinking" }),
    e.make("agent-main", { type: "response", content: "Reading the log first" }),
    e.make("agent-main", { type: "tool_call", call_id: "r1", tool_name: "Read", tool_args: { file_path: "build.log" } }),
    e.make("agent-main", { type: "tool_output", call_id: "r1", content: "log text", is_error: false }),
    e.make("agent-main", { type: "tool_call", call_id: "b1", tool_name: "Bash", tool_args: { command: "make" } }),
    e.make("agent-main", { type: "tool_output", call_id: "b1", content: "make: *** failed", is_error: true }),
    e.started("agent-sub", "agent-main", "Check the tests"),
    e.make("agent-sub", { type: "tool_call", call_id: "g1", tool_name: "Grep", tool_args: { pattern: "fn main" } }),
    e.make("agent-sub", { type: "response", content: "Sub found it" }),
  ];
  bashFail = events[7]!.seq;
  applyEvents(events);
});

const output = () => screen.getByTestId("output");
const rowKeys = () => [...output().querySelectorAll<HTMLElement>(".output-row")].map((r) => r.dataset.key);

describe("the output's filter bar", () => {
  it("counts each kind, all on by default; imported entries only where there are any", () => {
    render(<OutputView />);
    const bar = screen.getByTestId("filter-bar");
    const chip = (kind: string) => within(bar).getByTestId(`filter-${kind}`);
    expect(chip("text").getAttribute("aria-pressed")).toBe("true");
    expect(chip("text").textContent).toBe("Responses1");
    expect(chip("thinking").textContent).toBe("Thinking1");
    expect(chip("tools").textContent).toBe("Tool calls2");
    expect(chip("errors").textContent).toBe("Errors1");
    expect(chip("imported").textContent).toBe("Imported entries1");
    expect(screen.queryByTestId("filter-reset")).toBeNull();
    // The imported row is a folded system line.
    const entry = screen.getByTestId("imported-entry");
    expect(entry.textContent).toContain("attachment: environment");
    expect(entry.querySelector("pre")).toBeNull();
    fireEvent.click(within(entry).getByRole("button"));
    expect(entry.querySelector("pre")?.textContent).toBe("Working directory: /pond");

    act(() => select("agent-sub"));
    expect(screen.queryByTestId("filter-imported")).toBeNull();
  });

  it("hides the kinds switched off, keeps the filter across agents, and shows all again", () => {
    render(<OutputView />);
    expect(output().textContent).toContain("Reading the log first");
    fireEvent.click(screen.getByTestId("filter-text"));
    expect(screen.getByTestId("filter-text").getAttribute("aria-pressed")).toBe("false");
    expect(output().textContent).not.toContain("Reading the log first");
    expect(output().textContent).toContain("make: *** failed");
    expect(screen.getByTestId("filter-shown").textContent).toBe("4 of 5 shown");

    // Only errors: the failed call stays (it is a tool call and an error), the good one goes.
    for (const kind of ["thinking", "tools", "approvals", "imported"]) fireEvent.click(screen.getByTestId(`filter-${kind}`));
    expect(rowKeys()).toEqual([`e${bashFail - 1}`]);

    // The filter is the session's: another agent shows through it too.
    act(() => select("agent-sub"));
    expect(output().textContent).not.toContain("Sub found it");
    expect(screen.getByTestId("filter-empty")).toBeTruthy();
    const sessionId = sessionStore.get().sessionId;
    expect(outputFilterOf(uiStore.get(), sessionId).hidden).toContain("text");

    fireEvent.click(screen.getByTestId("filter-reset"));
    expect(output().textContent).toContain("Sub found it");
    expect(screen.queryByTestId("filter-reset")).toBeNull();
  });

  it("lists the tools this agent called, each on or off, or only it", () => {
    render(<OutputView />);
    fireEvent.click(screen.getByTestId("filter-tools-menu"));
    const tools = screen.getAllByTestId("filter-tool");
    expect(tools.map((t) => t.dataset.tool)).toEqual(["Read", "Bash"]);
    fireEvent.click(within(tools[1]!).getByRole("checkbox"));
    expect(output().textContent).not.toContain("make: *** failed");
    expect(output().textContent).toContain("log text");
    expect(screen.getByTestId("filter-tools-menu").textContent).toContain("1/2");
    fireEvent.click(within(screen.getAllByTestId("filter-tool")[1]!).getByTestId("filter-tool-only"));
    expect(output().textContent).toContain("make: *** failed");
    expect(output().textContent).not.toContain("log text");
    fireEvent.click(screen.getByTestId("filter-tools-all"));
    expect(output().textContent).toContain("log text");
  });

  it("gives way to a search hit (or a timeline segment) it would hide", () => {
    render(<OutputView />);
    fireEvent.click(screen.getByTestId("filter-tools"));
    fireEvent.click(screen.getByTestId("filter-errors"));
    expect(output().textContent).not.toContain("make: *** failed");
    act(() => patchUi({ focus: { agentId: "agent-main", seq: bashFail } }));
    expect(output().textContent).toContain("make: *** failed");
    expect(screen.queryByTestId("filter-reset")).toBeNull();
  });
});

describe("the tools menu's tooltip", () => {
  beforeEach(() => {
    // Only the tooltip's delay: the output's layout keeps its own clock.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const caret = () => screen.getByTestId("filter-tools-menu");
  const anchor = () => caret().closest(".tip-anchor") as HTMLElement;
  /** The tooltip the button shows, or null while it shows none. */
  function shownTip(): string | null {
    const tip = document.getElementById(caret().getAttribute("aria-describedby") ?? "");
    if (!tip) throw new Error("no tooltip");
    return tip.hidden ? null : tip.textContent;
  }
  function rest() {
    fireEvent.pointerEnter(anchor());
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
  }

  it("shows after a rest, never while its menu is open, and again once it is closed", () => {
    render(<OutputView />);
    expect(caret().getAttribute("title")).toBeNull();
    expect(caret().getAttribute("aria-label")).toBe("Which tools");
    expect(shownTip()).toBeNull();
    rest();
    expect(shownTip()).toBe("Which tools' calls to show");

    fireEvent.pointerDown(caret());
    fireEvent.click(caret());
    expect(screen.getAllByTestId("filter-tool")).toHaveLength(2);
    expect(shownTip()).toBeNull();
    // Back over the button, or focused, while the menu is open: it stays away (it would cover the menu).
    fireEvent.pointerLeave(anchor());
    rest();
    fireEvent.focus(caret());
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS * 2));
    expect(shownTip()).toBeNull();

    fireEvent.keyDown(caret(), { key: "Escape" });
    expect(screen.queryByTestId("filter-tool")).toBeNull();
    fireEvent.blur(caret());
    fireEvent.pointerLeave(anchor());
    rest();
    expect(shownTip()).toBe("Which tools' calls to show");
  });

  it("gives a disabled menu's reason, and goes when the button comes to do something else", () => {
    const e2 = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([e2.started("agent-main", null, "main"), e2.make("agent-main", { type: "response", content: "No tools yet" })]);
    render(<OutputView />);
    expect((caret() as HTMLButtonElement).disabled).toBe(true);
    rest();
    expect(shownTip()).toBe("No tool called yet");
    // The first call: the menu has tools to list now; the reason goes, and the new text waits for a new rest.
    act(() =>
      applyEvents([e2.make("agent-main", { type: "tool_call", call_id: "r1", tool_name: "Read", tool_args: { file_path: "a" } })]),
    );
    expect((caret() as HTMLButtonElement).disabled).toBe(false);
    expect(shownTip()).toBeNull();
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS * 2));
    expect(shownTip()).toBeNull();
    fireEvent.pointerLeave(anchor());
    rest();
    expect(shownTip()).toBe("Which tools' calls to show");
  });
});
