import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { Profiler } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TIP_DELAY_MS } from "../lib/tooltip";
import { eventMaker } from "../test/events";
import { applyEvents, applyUsage, resetStores, sessionInfo } from "../test/stores";
import { agentUsage, figures, usageUpdate } from "../test/usage";
import { answered, askFor } from "../test/approvals";
import { bookStore } from "../store/review";
import { uiStore } from "../store/ui";
import { withLayout } from "../test/layout";
import { AgentTree } from "./AgentTree";
import { ACP_PROVIDER } from "../bindings";

// The tree is virtualised: a pane 700 px tall shows every row of these small trees.
withLayout({ offsetHeight: 700, offsetWidth: 320, clientHeight: 700 });

const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: (_session: unknown, command: unknown) => sendCommand(command) },
}));

function nodes() {
  return screen.queryAllByTestId("tree-node");
}
function node(id: string) {
  const el = nodes().find((n) => n.dataset.agentId === id);
  if (!el) throw new Error(`no node ${id}`);
  return el;
}
function actions(id: string) {
  return [...node(id).querySelectorAll<HTMLElement>("button[data-testid^=node-]")].map((b) => b.dataset.testid);
}
function selectedId() {
  return nodes().find((n) => n.getAttribute("aria-selected") === "true")?.dataset.agentId;
}

beforeEach(() => {
  sendCommand.mockReset();
  sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
  resetStores({ session: sessionInfo() });
  const e = eventMaker();
  applyEvents([
    e.started("agent-main", null, "main"),
    e.status("agent-main", "running"),
    e.started("agent-a", "agent-main", "Write the tests", { subagent_type: "tester" }),
    e.status("agent-a", "running"),
    e.started("agent-a1", "agent-a", "Deep helper", { depth: 2 }),
    e.status("agent-a1", "completed"),
    e.started("agent-b", "agent-main", "Survey the repository"),
    e.status("agent-b", "waiting_approval"),
    e.usage("agent-a", 1000, 200, null),
    e.usage("agent-a1", 300, 0, null),
  ]);
  // The figures Rust sends for those usage events: own, and the subtree's.
  applyUsage(
    usageUpdate(
      [
        agentUsage("agent-a1", figures(300)),
        agentUsage("agent-a", figures(1200), figures(1500)),
        agentUsage("agent-main", figures(0), figures(1500)),
      ],
      figures(1500),
    ),
  );
});

describe("AgentTree", () => {
  it("marks an external ACP agent's node, with the command it runs", () => {
    resetStores({ session: sessionInfo() });
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Write the tests"),
      e.started("agent-cc", "agent-main", "Claude writes", {
        subagent_type: "claude",
        provider: ACP_PROVIDER,
        model: "npx @zed-industries/claude-agent-acp",
        external: { command: "npx @zed-industries/claude-agent-acp", sandbox: null },
      }),
      e.started("agent-jail", "agent-main", "Jailed", {
        provider: ACP_PROVIDER,
        model: "gemini --experimental-acp",
        external: {
          command: "gemini --experimental-acp",
          sandbox: { state: "sandboxed", mode: "workspace", mechanism: "bubblewrap 0.8.0", writable: ["/w"], network: true, hidden: [] },
        },
      }),
    ]);
    render(<AgentTree />);
    const badge = within(node("agent-cc")).getByTestId("tree-external");
    expect(badge.textContent).toBe("ACP");
    expect(badge.getAttribute("title")).toContain("npx @zed-industries/claude-agent-acp");
    // Where its own process runs, as Rust described it.
    expect(badge.getAttribute("title")).toContain("outside Arbor's sandbox");
    const jailed = within(node("agent-jail")).getByTestId("tree-external").getAttribute("title") ?? "";
    expect(jailed).toContain("runs in Arbor's sandbox");
    expect(jailed).toContain("network on · writes: /w");
    // Arbor's own agents carry no such mark.
    expect(within(node("agent-a")).queryByTestId("tree-external")).toBeNull();
  });

  it("shows every agent with its status, description and type, nested", () => {
    render(<AgentTree />);
    expect(screen.getByRole("tree")).toBeTruthy();
    expect(nodes().map((n) => [n.dataset.agentId, n.dataset.status, n.getAttribute("aria-level")])).toEqual([
      ["agent-main", "running", "1"],
      ["agent-a", "running", "2"],
      ["agent-a1", "completed", "3"],
      ["agent-b", "waiting_approval", "2"],
    ]);
    expect(node("agent-a").textContent).toContain("Write the tests");
    expect(node("agent-a").textContent).toContain("tester");
    expect(node("agent-a").dataset.parentId).toBe("agent-main");
    expect(node("agent-main").getAttribute("aria-expanded")).toBe("true");
    expect(node("agent-a1").getAttribute("aria-expanded")).toBeNull();
  });

  it("collapses a subtree and shows its totals instead", () => {
    render(<AgentTree />);
    expect(node("agent-a").textContent).toContain("1.2k tok");
    // Nothing used by the main agent itself, and none by an agent without figures.
    expect(node("agent-main").textContent).not.toContain("tok");
    expect(node("agent-b").textContent).not.toContain("tok");
    fireEvent.click(node("agent-a").querySelector("button.twisty")!);
    expect(nodes().map((n) => n.dataset.agentId)).toEqual(["agent-main", "agent-a", "agent-b"]);
    expect(node("agent-a").getAttribute("aria-expanded")).toBe("false");
    expect(node("agent-a").textContent).toContain("Σ 1.5k tok");
    expect(node("agent-a").textContent).toContain("+1 hidden");
  });

  it("shows the figures a frame brings in place of the old ones, the subtree's on a folded node", () => {
    render(<AgentTree />);
    fireEvent.click(node("agent-main").querySelector("button.twisty")!);
    expect(node("agent-main").textContent).toContain("Σ 1.5k tok");
    // agent-a1 used 500 more: Rust sends it and its ancestors again, cumulative.
    act(() =>
      applyUsage(
        usageUpdate(
          [
            agentUsage("agent-a1", figures(800, 0.1)),
            agentUsage("agent-a", figures(1200), figures(2000, 0.1)),
            agentUsage("agent-main", figures(0), figures(2000, 0.1)),
          ],
          figures(2000, 0.1),
        ),
      ),
    );
    // Replaced, not added (1.5k + 2.0k would read 3.5k).
    expect(node("agent-main").textContent).toContain("Σ 2.0k tok · $0.10");
    fireEvent.click(node("agent-main").querySelector("button.twisty")!);
    expect(node("agent-main").textContent).not.toContain("tok");
    expect(node("agent-a").textContent).toContain("1.2k tok");
    expect(node("agent-a1").textContent).toContain("800 tok · $0.10");
  });

  it("moves the selection with the arrow keys and collapses/expands with left/right", () => {
    render(<AgentTree />);
    expect(selectedId()).toBe("agent-main");
    const tree = screen.getByRole("tree");
    act(() => node("agent-main").focus());
    fireEvent.keyDown(document.activeElement!, { key: "ArrowDown" });
    expect(selectedId()).toBe("agent-a");
    expect(document.activeElement).toBe(node("agent-a"));
    fireEvent.keyDown(document.activeElement!, { key: "ArrowLeft" });
    expect(node("agent-a").getAttribute("aria-expanded")).toBe("false");
    expect(nodes()).toHaveLength(3);
    fireEvent.keyDown(document.activeElement!, { key: "ArrowDown" });
    expect(selectedId()).toBe("agent-b");
    fireEvent.keyDown(document.activeElement!, { key: "ArrowUp" });
    fireEvent.keyDown(document.activeElement!, { key: "ArrowRight" });
    expect(node("agent-a").getAttribute("aria-expanded")).toBe("true");
    fireEvent.keyDown(document.activeElement!, { key: "ArrowRight" });
    expect(selectedId()).toBe("agent-a1");
    fireEvent.keyDown(document.activeElement!, { key: "ArrowLeft" });
    expect(selectedId()).toBe("agent-a");
    fireEvent.keyDown(tree, { key: "End" });
    expect(selectedId()).toBe("agent-b");
    // Enter selects the focused row.
    act(() => uiStore.set((s) => ({ ...s, selected: "agent-main" })));
    act(() => node("agent-a1").focus());
    fireEvent.keyDown(node("agent-a1"), { key: "Enter" });
    expect(selectedId()).toBe("agent-a1");
  });

  it("offers Message only to active agents and Stop only to unfinished ones", () => {
    render(<AgentTree />);
    for (const n of nodes()) fireEvent.mouseEnter(n);
    const has = (id: string, testId: string) => node(id).querySelector(`[data-testid="${testId}"]`) !== null;
    expect(has("agent-a", "node-message")).toBe(true);
    expect(has("agent-b", "node-message")).toBe(true);
    expect(has("agent-a1", "node-message")).toBe(false);
    expect(has("agent-a1", "node-stop")).toBe(false);
    expect(has("agent-a1", "node-delegate")).toBe(true);
    expect(has("agent-a", "node-stop")).toBe(true);
    // Icon buttons, each named for assistive technology.
    expect(within(node("agent-a")).getByRole("button", { name: "Stop" }).dataset.testid).toBe("node-stop");
    expect(within(node("agent-a")).getByRole("button", { name: "Delegate…" })).toBeTruthy();
    expect(within(node("agent-a")).getByRole("button", { name: "Message…" })).toBeTruthy();
  });

  it("stops a subtree and opens the dialogs", async () => {
    render(<AgentTree />);
    fireEvent.mouseEnter(node("agent-a"));
    await act(async () => {
      fireEvent.click(node("agent-a").querySelector('[data-testid="node-stop"]')!);
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "cancel", agent_id: "agent-a" });
    fireEvent.mouseEnter(node("agent-b"));
    fireEvent.click(node("agent-b").querySelector('[data-testid="node-delegate"]')!);
    expect(uiStore.get().dialog).toEqual({ kind: "delegate", parentId: "agent-b" });
    fireEvent.click(node("agent-a").querySelector('[data-testid="node-message"]')!);
    expect(uiStore.get().dialog).toEqual({ kind: "message", agentId: "agent-a" });
  });

  it("shows a row's actions only while it is selected, hovered or holds the focus, on its second line", () => {
    render(<AgentTree />);
    // The main agent is the selection until another is chosen.
    expect(actions("agent-main")).toEqual(["node-delegate", "node-message", "node-stop"]);
    expect(actions("agent-a")).toEqual([]);
    expect(actions("agent-b")).toEqual([]);
    expect(node("agent-main").dataset.actions).toBe("shown");
    // Hovered.
    fireEvent.mouseEnter(node("agent-b"));
    expect(actions("agent-b")).toEqual(["node-delegate", "node-message", "node-stop"]);
    fireEvent.mouseLeave(node("agent-b"));
    expect(actions("agent-b")).toEqual([]);
    // Focused (the keyboard), and kept while the focus moves to one of its buttons.
    act(() => node("agent-a1").focus());
    expect(actions("agent-a1")).toEqual(["node-delegate"]);
    act(() => (node("agent-a1").querySelector('[data-testid="node-delegate"]') as HTMLElement).focus());
    expect(actions("agent-a1")).toEqual(["node-delegate"]);
    act(() => node("agent-b").focus());
    expect(actions("agent-a1")).toEqual([]);
    expect(actions("agent-b")).toHaveLength(3);
    // Selected: they move with the selection.
    act(() => (document.activeElement as HTMLElement).blur());
    act(() => uiStore.set((s) => ({ ...s, selected: "agent-a" })));
    expect(actions("agent-a")).toHaveLength(3);
    expect(actions("agent-main")).toEqual([]);
    // In the row's second line, beside the figures: the row keeps its two lines.
    const row = node("agent-a");
    expect(row.querySelectorAll(".node-line")).toHaveLength(2);
    expect(row.querySelector(".node-sub [data-testid=node-actions]")).not.toBeNull();
    // A past session under review: none at all.
    act(() => bookStore.set({ review: {} as never, live: null }));
    expect(actions("agent-a")).toEqual([]);
  });

  it("is a tree for assistive technology: items with their levels, positions and expanded state, one tab stop", () => {
    render(<AgentTree />);
    const tree = screen.getByRole("tree", { name: "Agents" });
    const items = within(tree).getAllByRole("treeitem");
    expect(items.map((n) => n.dataset.agentId)).toEqual(["agent-main", "agent-a", "agent-a1", "agent-b"]);
    // A flat list (the tree is virtualised): each item says where it is in the tree.
    expect(items.map((n) => [n.getAttribute("aria-level"), n.getAttribute("aria-posinset"), n.getAttribute("aria-setsize")])).toEqual([
      ["1", "1", "1"],
      ["2", "1", "2"],
      ["3", "1", "1"],
      ["2", "2", "2"],
    ]);
    expect(within(tree).queryAllByRole("group")).toEqual([]);
    // Expanded, selected, and the one row Tab reaches.
    expect(items.map((n) => n.getAttribute("aria-expanded"))).toEqual(["true", "true", null, null]);
    expect(items.map((n) => n.getAttribute("aria-selected"))).toEqual(["true", "false", "false", "false"]);
    expect(items.map((n) => n.tabIndex)).toEqual([0, -1, -1, -1]);
    // Named by what it is and how it stands.
    expect(node("agent-b").getAttribute("aria-label")).toBe("Survey the repository, waiting for approval");
    // Folded: not expanded, its children gone, its sibling's position unchanged.
    fireEvent.click(within(node("agent-a")).getByRole("button", { name: "Collapse “Write the tests”" }));
    expect(node("agent-a").getAttribute("aria-expanded")).toBe("false");
    expect(nodes().map((n) => n.dataset.agentId)).toEqual(["agent-main", "agent-a", "agent-b"]);
    expect(node("agent-b").getAttribute("aria-posinset")).toBe("2");
  });

  it("moves the focus and the tab stop with Home, End, the arrows, and selects with Enter", () => {
    render(<AgentTree />);
    act(() => node("agent-main").focus());
    fireEvent.keyDown(document.activeElement!, { key: "End" });
    expect(document.activeElement).toBe(node("agent-b"));
    expect(node("agent-b").tabIndex).toBe(0);
    expect(node("agent-main").tabIndex).toBe(-1);
    fireEvent.keyDown(document.activeElement!, { key: "Home" });
    expect(document.activeElement).toBe(node("agent-main"));
    // → on an open parent goes into its first child; ← on a leaf goes up to its parent.
    fireEvent.keyDown(document.activeElement!, { key: "ArrowRight" });
    expect(document.activeElement).toBe(node("agent-a"));
    fireEvent.keyDown(document.activeElement!, { key: "ArrowRight" });
    fireEvent.keyDown(document.activeElement!, { key: "ArrowLeft" });
    expect(document.activeElement).toBe(node("agent-a"));
    fireEvent.keyDown(document.activeElement!, { key: "ArrowLeft" });
    expect(node("agent-a").getAttribute("aria-expanded")).toBe("false");
    fireEvent.keyDown(document.activeElement!, { key: "ArrowLeft" });
    expect(document.activeElement).toBe(node("agent-main"));
    // A modifier leaves the key to others (Ctrl+Home, Alt+arrows).
    fireEvent.keyDown(document.activeElement!, { key: "End", ctrlKey: true });
    expect(document.activeElement).toBe(node("agent-main"));
    act(() => uiStore.set((s) => ({ ...s, selected: "agent-a" })));
    act(() => node("agent-b").focus());
    fireEvent.keyDown(node("agent-b"), { key: "Enter" });
    expect(selectedId()).toBe("agent-b");
  });

  it("says on the last-tool line that a denied write was denied, even once the agent completed", () => {
    const e = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([
      e.started("agent-main", null, "main"),
      e.started("agent-c", "agent-main", "Update the changelog"),
      ...askFor(e.make, "agent-c", "r-1", { args: { file_path: "CHANGELOG.md", content: "x" } }),
      answered(e.make, "agent-c", "r-1", "denied"),
      e.make("agent-c", { type: "tool_output", call_id: "c-r-1", content: "This Write call was denied by the user", is_error: true, decided_by: { kind: "person" } }),
      e.status("agent-c", "completed"),
      e.started("agent-d", "agent-main", "Read the notes"),
      e.make("agent-d", { type: "tool_call", call_id: "d1", tool_name: "Read", tool_args: { file_path: "notes.md" } }),
      e.make("agent-d", { type: "tool_output", call_id: "d1", content: "notes", is_error: false, decided_by: { kind: "policy" } }),
      e.status("agent-d", "completed"),
    ]);
    render(<AgentTree />);
    expect(node("agent-c").querySelector(".status-icon")?.className).toContain("completed");
    const line = within(node("agent-c")).getByTestId("tree-last-tool");
    expect(line.dataset.outcome).toBe("denied");
    expect(line.className).toContain("denied");
    // The refusal leads the line, in the deny colour (its mark's `refused` tone).
    expect(line.textContent).toBe("denied by youWrite CHANGELOG.md");
    expect(within(line).getByTestId("decided-by").className).toContain("refused");
    expect(line.getAttribute("title")).toBe("Write CHANGELOG.md\ndenied by you");
    expect(node("agent-c").getAttribute("aria-label")).toBe("Update the changelog, completed, last tool Write CHANGELOG.md denied");
    // A call that simply ran says nothing more.
    const read = within(node("agent-d")).getByTestId("tree-last-tool");
    expect(read.dataset.outcome).toBe("ran");
    expect(read.textContent).toBe("Read notes.md");
  });

  it("says a call refused without a mark (an old transcript) or one that failed in words", () => {
    const e = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([
      e.started("agent-main", null, "main"),
      ...askFor(e.make, "agent-main", "r-1", { args: { file_path: "a.md", content: "x" } }),
      // Stored before answers named who gave them.
      answered(e.make, "agent-main", "r-1", "denied", { decidedBy: null }),
      e.started("agent-b", "agent-main", "Build"),
      e.make("agent-b", { type: "tool_call", call_id: "b1", tool_name: "Bash", tool_args: { command: "make" } }),
      e.make("agent-b", { type: "tool_output", call_id: "b1", content: "make: *** No targets", is_error: true, decided_by: { kind: "policy" } }),
    ]);
    render(<AgentTree />);
    const main = within(node("agent-main")).getByTestId("tree-last-tool");
    expect(main.textContent).toBe("deniedWrite a.md");
    const build = within(node("agent-b")).getByTestId("tree-last-tool");
    expect(build.dataset.outcome).toBe("failed");
    expect(build.textContent).toBe("failedBash make");
    expect(build.getAttribute("title")).toBe("Bash make\nmake: *** No targets");
  });

  it("puts the timer at the end of the title line, where tree.css keeps its width (tabular figures, a minimum)", () => {
    const e = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([e.started("agent-main", null, "main"), e.status("agent-main", "running"), e.status("agent-main", "completed")]);
    render(<AgentTree />);
    const timer = within(node("agent-main")).getByTestId("tree-elapsed");
    expect(timer.className).toBe("node-elapsed");
    expect(timer.closest(".node-title")).not.toBeNull();
  });

  it("marks an MCP tool as the last tool with a tag and server · tool", () => {
    const e = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "tool_call", call_id: "b1", tool_name: "Bash", tool_args: { command: "ls" } }),
      e.started("agent-m", "agent-main", "Use the server"),
      e.make("agent-m", {
        type: "tool_call",
        call_id: "m1",
        tool_name: "mcp__everything__echo",
        tool_args: { message: "hi" },
        mcp: { server: "everything", tool: "echo" },
      }),
      e.started("agent-o", "agent-main", "An old transcript"),
      // No `mcp`: a built-in, or a call stored before calls named their server; shown as it is.
      e.make("agent-o", { type: "tool_call", call_id: "o1", tool_name: "mcp__a__b", tool_args: { message: "hi" } }),
    ]);
    render(<AgentTree />);
    const last = (id: string) => node(id).querySelector(".node-tool");
    expect(last("agent-m")?.querySelector(".mcp-tag")?.textContent).toBe("MCP");
    expect(last("agent-m")?.textContent).toBe("MCPeverything · echo hi");
    expect(last("agent-main")?.querySelector(".mcp-tag")).toBeNull();
    expect(last("agent-main")?.textContent).toBe("Bash ls");
    expect(last("agent-o")?.querySelector(".mcp-tag")).toBeNull();
    expect(last("agent-o")?.textContent).toBe("mcp__a__b");
  });

  it("shows an agent cut off at the output limit as stopped at a limit, and offers to resume it", async () => {
    const e = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([e.started("agent-main", null, "main"), e.status("agent-main", "running"), e.status("agent-main", "truncated")]);
    render(<AgentTree />);
    const icon = node("agent-main").querySelector(".status-icon");
    expect(icon?.className).toContain("truncated");
    expect(icon?.getAttribute("aria-label")).toBe("cut off");
    expect(node("agent-main").querySelector('[data-testid="node-stop"]')).toBeNull();
    await act(async () => {
      fireEvent.click(node("agent-main").querySelector('[data-testid="node-resume"]')!);
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "resume", agent_id: "agent-main", text: null });
  });

  it("invites a prompt when there is no session", () => {
    resetStores();
    render(<AgentTree />);
    expect(screen.getByText("No session yet")).toBeTruthy();
    expect(nodes()).toHaveLength(0);
  });
});

describe("a large tree", () => {
  let e = eventMaker();
  beforeEach(() => {
    resetStores({ session: sessionInfo() });
    e = eventMaker();
    const events = [e.started("agent-main", null, "main"), e.status("agent-main", "running")];
    for (let i = 0; i < 200; i++) {
      events.push(e.started(`agent-${i}`, "agent-main", `Reader ${i}`), e.status(`agent-${i}`, "running"));
    }
    applyEvents(events);
  });

  it("puts only the rows in view (and a few beyond) in the page, each where the whole tree would have it", () => {
    render(<AgentTree />);
    const shown = nodes();
    // 700 px of 44 px rows, and the overscan: a small part of the 201.
    expect(shown.length).toBeGreaterThan(10);
    expect(shown.length).toBeLessThan(40);
    expect(shown.map((n) => n.dataset.agentId).slice(0, 3)).toEqual(["agent-main", "agent-0", "agent-1"]);
    // The tree is as tall as all its rows, for the scroll bar.
    expect(screen.getByRole("tree").style.height).toBe(`${201 * 44 + 8}px`);
    expect(node("agent-1").style.transform).toBe(`translateY(${4 + 2 * 44}px)`);
    expect(node("agent-1").getAttribute("aria-posinset")).toBe("2");
    expect(node("agent-1").getAttribute("aria-setsize")).toBe("200");
  });

  it("brings a row moved to by a key into the page and focuses it; the tab stop is always there", () => {
    render(<AgentTree />);
    act(() => node("agent-main").focus());
    fireEvent.keyDown(document.activeElement!, { key: "End" });
    expect((document.activeElement as HTMLElement).dataset.agentId).toBe("agent-199");
    expect(selectedId()).toBe("agent-199");
    expect(node("agent-199").tabIndex).toBe(0);
    fireEvent.keyDown(document.activeElement!, { key: "ArrowUp" });
    expect((document.activeElement as HTMLElement).dataset.agentId).toBe("agent-198");
    // Selected far down while the view is at the top: still in the page, the one row Tab reaches.
    act(() => uiStore.set((s) => ({ ...s, selected: "agent-150" })));
    expect(node("agent-150").tabIndex).toBe(0);
  });

  it("has its tab stop in the page even before the pane is laid out (no height yet)", () => {
    const height = vi.spyOn(HTMLElement.prototype, "offsetHeight", "get").mockReturnValue(0);
    const client = vi.spyOn(HTMLElement.prototype, "clientHeight", "get").mockReturnValue(0);
    try {
      act(() => uiStore.set((s) => ({ ...s, selected: "agent-120" })));
      render(<AgentTree />);
      expect(nodes().map((n) => n.dataset.agentId)).toEqual(["agent-120"]);
      expect(node("agent-120").tabIndex).toBe(0);
      expect(node("agent-120").style.transform).toBe(`translateY(${4 + 121 * 44}px)`);
    } finally {
      height.mockRestore();
      client.mockRestore();
    }
  });

  it("scrolls a row moved to by a key into view above the worktree panel, which never hides the whole view", () => {
    const { container } = render(<AgentTree />);
    // jsdom does not scroll: the pane remembers what it is told.
    let top = 0;
    Object.defineProperty(container, "scrollTop", { configurable: true, get: () => top, set: (v: number) => (top = v) });
    act(() => node("agent-main").focus());
    fireEvent.keyDown(document.activeElement!, { key: "End" });
    // Row 200 (the 201st) whole at the bottom of the 700 px view.
    const bottom = 4 + 201 * 44;
    expect(top).toBe(bottom - 700);
    fireEvent.keyDown(document.activeElement!, { key: "Home" });
    expect(top).toBe(0);
    // A worktree panel at the pane's bottom (jsdom gives it the pane's 700 px): a row's height is left.
    const panel = document.createElement("section");
    panel.className = "tree-foot";
    container.append(panel);
    fireEvent.keyDown(document.activeElement!, { key: "End" });
    expect(top).toBe(bottom - 44);
    expect((document.activeElement as HTMLElement).dataset.agentId).toBe("agent-199");
  });

  it("keeps a row holding the focus in the page when it scrolls out of view, though it is not selected", () => {
    render(<AgentTree />);
    const twisty = within(node("agent-main")).getByRole("button", { name: "Collapse “main”" });
    act(() => twisty.focus());
    expect(selectedId()).toBe("agent-main");
    // Select a row far down: the tab stop moves there, the focus stays on main's twisty.
    act(() => uiStore.set((s) => ({ ...s, selected: "agent-150" })));
    const pane = screen.getByRole("tree").parentElement!;
    act(() => {
      pane.scrollTop = 6000;
      fireEvent.scroll(pane);
    });
    expect(document.activeElement).toBe(twisty);
    expect(node("agent-main").contains(document.activeElement)).toBe(true);
  });

  it("commits nothing for a streamed event of an agent it does not show, and only that row for one it shows", () => {
    const commits = vi.fn();
    render(
      <Profiler id="tree" onRender={commits}>
        <AgentTree />
      </Profiler>,
    );
    commits.mockClear();
    act(() => applyEvents([e.make("agent-190", { type: "response_chunk", content: "…" }), e.status("agent-190", "completed")]));
    expect(commits).not.toHaveBeenCalled();
    act(() => applyEvents([e.status("agent-1", "completed")]));
    expect(commits).toHaveBeenCalledTimes(1);
    expect(node("agent-1").dataset.status).toBe("completed");
  });
});

describe("the row actions' tooltips", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The tooltip describing a button (it floats in document.body: the row clips what leaves it). */
  function tipOf(button: HTMLElement): HTMLElement {
    const tip = document.getElementById(button.getAttribute("aria-describedby") ?? "");
    if (!tip) throw new Error(`no tooltip for ${button.dataset.testid}`);
    return tip;
  }
  function hover(button: HTMLElement) {
    fireEvent.pointerEnter(button.closest(".tip-anchor") as HTMLElement);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
  }
  const shownTips = () => [...document.querySelectorAll<HTMLElement>("[role=tooltip]")].filter((t) => !t.hidden).map((t) => t.textContent);
  const button = (testId: string) => node("agent-main").querySelector<HTMLElement>(`[data-testid="${testId}"]`);

  function runningMain() {
    const e = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([e.started("agent-main", null, "main"), e.status("agent-main", "running")]);
    return e;
  }

  it("describe each button in lib/tooltip's tooltip, not a native title, over the page rather than in the row", () => {
    runningMain();
    render(<AgentTree />);
    const buttons = [...node("agent-main").querySelectorAll<HTMLElement>("button[data-testid^=node-]")];
    expect(buttons.map((b) => b.dataset.testid)).toEqual(["node-delegate", "node-message", "node-stop"]);
    for (const b of buttons) {
      expect(b.getAttribute("title")).toBeNull();
      expect(tipOf(b).hidden).toBe(true);
    }
    // Named for assistive technology; the tooltip describes.
    expect(buttons.map((b) => b.getAttribute("aria-label"))).toEqual(["Delegate…", "Message…", "Stop"]);
    expect(button("node-delegate")?.getAttribute("aria-keyshortcuts")).toBe("Shift+D");
    expect(tipOf(button("node-stop")!).textContent).toBe("Stop this agent and its subagents");

    hover(button("node-stop")!);
    expect(shownTips()).toEqual(["Stop this agent and its subagents"]);
    const tip = tipOf(button("node-stop")!);
    expect(node("agent-main").contains(tip)).toBe(false);
    expect(tip.style.position).toBe("fixed");
    // A press: it did what the tooltip said; the tooltip goes.
    fireEvent.pointerDown(button("node-stop")!);
    expect(shownTips()).toEqual([]);
  });

  it("go with Stop when Resume takes its place, and Resume's waits to be hovered anew", () => {
    const e = runningMain();
    render(<AgentTree />);
    const stop = button("node-stop")!;
    const stopTip = tipOf(stop);
    hover(stop);
    expect(stopTip.hidden).toBe(false);

    act(() => applyEvents([e.status("agent-main", "cancelled")]));
    expect(button("node-stop")).toBeNull();
    const resume = button("node-resume")!;
    expect(resume).not.toBe(stop);
    // Stop's tooltip left the page with its button; Resume's is there, hidden.
    expect(stopTip.isConnected).toBe(false);
    expect(shownTips()).toEqual([]);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS * 2));
    expect(shownTips()).toEqual([]);

    hover(resume);
    expect(shownTips()).toEqual([tipOf(resume).textContent]);
    expect(tipOf(resume).textContent).toMatch(/^Resume: /);
  });

  it("go with Stop when Raise budget… takes its place, even while the pointer was about to show it", () => {
    const e = runningMain();
    render(<AgentTree />);
    // The pointer came to rest on Stop; the agent's budget runs out before its tooltip shows.
    fireEvent.pointerEnter(button("node-stop")!.closest(".tip-anchor") as HTMLElement);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS / 2));
    act(() => applyEvents([e.status("agent-main", "budget_exhausted")]));
    expect(button("node-stop")).toBeNull();
    expect(button("node-raise-budget")?.getAttribute("aria-label")).toBe("Raise budget…");
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS * 2));
    expect(shownTips()).toEqual([]);
  });
});
