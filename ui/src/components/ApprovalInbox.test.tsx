import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { installEventEffects } from "../ipc/actions";
import { enqueueFrame, flushEvents } from "../store/sessionStore";
import { eventMaker } from "../test/events";
import { applyEvents, resetStores, sessionInfo } from "../test/stores";
import { ApprovalInbox } from "./ApprovalInbox";

const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: (...a: unknown[]) => sendCommand(...a) },
}));

const e = eventMaker();

function cards() {
  return screen.queryAllByTestId("approval");
}
function card(requestId: string) {
  const el = cards().find((c) => c.dataset.requestId === requestId);
  if (!el) throw new Error(`no card ${requestId}`);
  return el;
}

beforeEach(() => {
  sendCommand.mockReset();
  resetStores({ session: sessionInfo() });
  applyEvents([
    e.started("agent-main", null, "main"),
    e.started("agent-g", "agent-main", "Write the greeting"),
    e.started("agent-f", "agent-main", "Write the farewell"),
    e.approval("agent-g", "r-g", "c-g", ["main", "Write the greeting"]),
    e.make("agent-f", {
      type: "approval_request",
      request_id: "r-f",
      call_id: "c-f",
      tool_name: "Bash",
      tool_args: { command: "rm -rf build" },
      agent_path: ["main", "Write the farewell"],
    }),
  ]);
});

describe("ApprovalInbox", () => {
  it("lists every pending request with its agent's description, id and path", () => {
    render(<ApprovalInbox />);
    expect(cards().map((c) => [c.dataset.requestId, c.dataset.agentId])).toEqual([
      ["r-g", "agent-g"],
      ["r-f", "agent-f"],
    ]);
    const label = within(card("r-g")).getByTestId("approval-agent").textContent ?? "";
    expect(label).toContain("Write the greeting");
    expect(label).toContain("agent-g");
    expect(label).toContain("main › Write the greeting");
    // A Write shows its content as a diff; a Bash call shows the command.
    expect(card("r-g").querySelector(".diff-line.add")?.textContent).toContain("hi");
    expect(card("r-f").textContent).toContain("rm -rf build");
  });

  it("answers one request with the chosen scope and leaves the others alone", async () => {
    let answer: (v: unknown) => void = () => undefined;
    sendCommand.mockReturnValue(new Promise((r) => (answer = r)));
    const off = installEventEffects();
    render(<ApprovalInbox />);
    fireEvent.change(within(card("r-g")).getByTestId("approval-scope"), { target: { value: "subtree" } });
    fireEvent.click(within(card("r-g")).getByTestId("approve"));
    expect(sendCommand).toHaveBeenCalledTimes(1);
    expect(sendCommand).toHaveBeenCalledWith({ type: "resolve_approval", request_id: "r-g", approved: true, scope: "subtree" });

    // Sent but not yet resolved: still listed, marked as sending; the other card is untouched.
    expect(cards()).toHaveLength(2);
    expect(card("r-g").textContent).toContain("Sending…");
    expect((within(card("r-g")).getByTestId("approve") as HTMLButtonElement).disabled).toBe(true);
    expect((within(card("r-f")).getByTestId("approve") as HTMLButtonElement).disabled).toBe(false);
    await act(async () => answer({ status: "ok", data: { kind: "done" } }));
    expect(cards()).toHaveLength(2);

    act(() => {
      enqueueFrame({ events: [e.resolved("agent-g", "r-g", "approved")], usage: null });
      flushEvents();
    });
    expect(cards().map((c) => c.dataset.requestId)).toEqual(["r-f"]);
    off();
  });

  it("denies, and re-enables a card whose answer failed", async () => {
    sendCommand.mockResolvedValue({ status: "error", error: { kind: "session", message: "no such request" } });
    render(<ApprovalInbox />);
    await act(async () => {
      fireEvent.click(within(card("r-f")).getByTestId("deny"));
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "resolve_approval", request_id: "r-f", approved: false, scope: "once" });
    expect((within(card("r-f")).getByTestId("deny") as HTMLButtonElement).disabled).toBe(false);
  });

  it("names an MCP tool as the tool call it is about names it, and any other tool as it is", () => {
    const m = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    const request = (callId: string, tool: string) =>
      m.make("agent-main", {
        type: "approval_request",
        request_id: `r-${callId}`,
        call_id: callId,
        tool_name: tool,
        tool_args: { message: "hi" },
        agent_path: ["main"],
      });
    applyEvents([
      m.started("agent-main", null, "main"),
      m.make("agent-main", {
        type: "tool_call",
        call_id: "m1",
        tool_name: "mcp__everything__echo",
        tool_args: { message: "hi" },
        mcp: { server: "everything", tool: "echo" },
      }),
      request("m1", "mcp__everything__echo"),
      // Looks like an MCP name, but its call does not say it is one: shown as it is.
      m.make("agent-main", { type: "tool_call", call_id: "m2", tool_name: "mcp__a__b", tool_args: {} }),
      request("m2", "mcp__a__b"),
    ]);
    render(<ApprovalInbox />);
    expect(within(card("r-m1")).getByTestId("mcp-tool-name").textContent).toBe("everything · echo");
    expect(card("r-m1").querySelector(".mcp-tag")?.textContent).toBe("MCP");
    expect(within(card("r-m2")).queryByTestId("mcp-tool-name")).toBeNull();
    expect(card("r-m2").querySelector(".approval-tool")?.textContent).toContain("mcp__a__b");
    expect(card("r-m2").querySelector(".mcp-tag")).toBeNull();
  });

  it("says so when nothing waits", () => {
    resetStores();
    render(<ApprovalInbox />);
    expect(cards()).toHaveLength(0);
    expect(screen.getByText("Nothing to approve")).toBeTruthy();
  });
});
