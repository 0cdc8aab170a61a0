import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { eventMaker } from "../test/events";
import { applyEvents, applyUsage, resetStores, sessionInfo } from "../test/stores";
import { agentUsage, figures, usageUpdate } from "../test/usage";
import { uiStore } from "../store/ui";
import { AgentTree } from "./AgentTree";

const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: (...a: unknown[]) => sendCommand(...a) },
}));

function nodes() {
  return screen.queryAllByTestId("tree-node");
}
function node(id: string) {
  const el = nodes().find((n) => n.dataset.agentId === id);
  if (!el) throw new Error(`no node ${id}`);
  return el;
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
    const has = (id: string, testId: string) => node(id).querySelector(`[data-testid="${testId}"]`) !== null;
    expect(has("agent-a", "node-message")).toBe(true);
    expect(has("agent-b", "node-message")).toBe(true);
    expect(has("agent-a1", "node-message")).toBe(false);
    expect(has("agent-a1", "node-stop")).toBe(false);
    expect(has("agent-a1", "node-delegate")).toBe(true);
    expect(has("agent-a", "node-stop")).toBe(true);
  });

  it("stops a subtree and opens the dialogs", async () => {
    render(<AgentTree />);
    await act(async () => {
      fireEvent.click(node("agent-a").querySelector('[data-testid="node-stop"]')!);
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "cancel", agent_id: "agent-a" });
    fireEvent.click(node("agent-b").querySelector('[data-testid="node-delegate"]')!);
    expect(uiStore.get().dialog).toEqual({ kind: "delegate", parentId: "agent-b" });
    fireEvent.click(node("agent-a").querySelector('[data-testid="node-message"]')!);
    expect(uiStore.get().dialog).toEqual({ kind: "message", agentId: "agent-a" });
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
