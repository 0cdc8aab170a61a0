/** The inbox: cards with exact scope options, answers (with a reason), the keyboard, and "approve all" from one agent. */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { installEventEffects } from "../ipc/actions";
import { patchUi } from "../store/ui";
import { answered, askFor } from "../test/approvals";
import { eventMaker } from "../test/events";
import { applyEvents, arriveFrame, resetStores, sessionInfo } from "../test/stores";
import { ApprovalInbox } from "./ApprovalInbox";

const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: (_session: unknown, command: unknown) => sendCommand(command) },
}));

const done = { status: "ok", data: { kind: "done" } };
let e = eventMaker();

function cards() {
  return screen.queryAllByTestId("approval");
}
function card(requestId: string) {
  const el = cards().find((c) => c.dataset.requestId === requestId);
  if (!el) throw new Error(`no card ${requestId}`);
  return el;
}
function option(requestId: string, scope: string) {
  const el = within(card(requestId))
    .getAllByTestId("scope-option")
    .find((o) => o.dataset.scope === scope);
  if (!el) throw new Error(`no option ${scope}`);
  return el;
}
const key = (el: Element, k: string, extra: Partial<KeyboardEventInit> = {}) =>
  act(() => {
    fireEvent.keyDown(el, { key: k, ...extra });
  });
const resolve = (requestId: string, agent = "agent-g") =>
  arriveFrame([answered(e.make, agent, requestId, "approved")]);

beforeEach(() => {
  sendCommand.mockReset();
  sendCommand.mockResolvedValue(done);
  e = eventMaker();
  resetStores({ session: sessionInfo() });
  applyEvents([
    e.started("agent-main", null, "main"),
    e.started("agent-g", "agent-main", "Write the greeting"),
    e.started("agent-f", "agent-main", "Write the farewell"),
    ...askFor(e.make, "agent-g", "r-g", { path: ["main", "Write the greeting"] }),
    ...askFor(e.make, "agent-f", "r-f", {
      tool: "Bash",
      args: { command: "rm -rf build" },
      path: ["main", "Write the farewell"],
    }),
  ]);
});

describe("ApprovalInbox", () => {
  it("lists every pending request with its agent's description, id and path, under the keys hint", () => {
    render(<ApprovalInbox />);
    expect(cards().map((c) => [c.dataset.requestId, c.dataset.agentId])).toEqual([
      ["r-g", "agent-g"],
      ["r-f", "agent-f"],
    ]);
    const label = within(card("r-g")).getByTestId("approval-agent").textContent ?? "";
    expect(label).toContain("Write the greeting");
    expect(label).toContain("agent-g");
    expect(label).toContain("main › Write the greeting");
    // Without a preview (a request stored before previews), the arguments as before.
    expect(card("r-g").querySelector(".diff-line.add")?.textContent).toContain("hi");
    expect(card("r-f").textContent).toContain("rm -rf build");
    const hint = screen.getByTestId("keys-hint").textContent ?? "";
    for (const k of ["j/k", "a", "d", "r", "1–4", "A"]) expect(hint).toContain(k);
    expect(card("r-g").tabIndex).toBe(0);
  });

  it("says what each scope option covers, by name, for approving and denying alike", () => {
    render(<ApprovalInbox />);
    expect(within(card("r-g")).getAllByTestId("scope-option").map((o) => [o.dataset.scope, o.textContent?.replace(/\d$/, "")])).toEqual([
      ["once", "Just this call"],
      ["agent", "Write for “Write the greeting”"],
      ["subtree", "Write for “Write the greeting” and all its subagents"],
      ["session", "Write anywhere in this session"],
    ]);
    expect(option("r-f", "agent").textContent).toContain("Bash for “Write the farewell”");
    expect(option("r-g", "once").getAttribute("aria-checked")).toBe("true");
  });

  it("answers one request with the chosen scope and leaves the others alone", async () => {
    let reply: (v: unknown) => void = () => undefined;
    sendCommand.mockReturnValue(new Promise((r) => (reply = r)));
    const off = installEventEffects();
    render(<ApprovalInbox />);
    fireEvent.click(option("r-g", "subtree"));
    expect(option("r-g", "subtree").getAttribute("aria-checked")).toBe("true");
    fireEvent.click(within(card("r-g")).getByTestId("approve"));
    expect(sendCommand).toHaveBeenCalledTimes(1);
    expect(sendCommand).toHaveBeenCalledWith({ type: "resolve_approval", request_id: "r-g", approved: true, scope: "subtree" });

    // Sent but not yet resolved: still listed, marked as sending; the other card is untouched.
    expect(cards()).toHaveLength(2);
    expect(card("r-g").textContent).toContain("Sending…");
    expect((within(card("r-g")).getByTestId("approve") as HTMLButtonElement).disabled).toBe(true);
    expect((within(card("r-f")).getByTestId("approve") as HTMLButtonElement).disabled).toBe(false);
    await act(async () => reply(done));
    expect(cards()).toHaveLength(2);
    resolve("r-g");
    expect(cards().map((c) => c.dataset.requestId)).toEqual(["r-f"]);
    off();
  });

  it("denies for a wider scope too, and re-enables a card whose answer failed", async () => {
    sendCommand.mockResolvedValue({ status: "error", error: { kind: "session", message: "no such request" } });
    render(<ApprovalInbox />);
    fireEvent.click(option("r-f", "session"));
    await act(async () => {
      fireEvent.click(within(card("r-f")).getByTestId("deny"));
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "resolve_approval", request_id: "r-f", approved: false, scope: "session" });
    expect((within(card("r-f")).getByTestId("deny") as HTMLButtonElement).disabled).toBe(false);
  });

  it("denies with a reason the agent receives: the field, Enter, or its button", async () => {
    render(<ApprovalInbox />);
    fireEvent.click(within(card("r-f")).getByTestId("deny-with-reason"));
    const field = within(card("r-f")).getByTestId("deny-reason");
    expect(document.activeElement).toBe(field);
    fireEvent.change(field, { target: { value: "use make clean" } });
    await act(async () => {
      fireEvent.keyDown(field, { key: "Enter" });
    });
    expect(sendCommand).toHaveBeenLastCalledWith({
      type: "resolve_approval",
      request_id: "r-f",
      approved: false,
      scope: "once",
      reason: "use make clean",
    });
    fireEvent.click(within(card("r-g")).getByTestId("deny-with-reason"));
    fireEvent.change(within(card("r-g")).getByTestId("deny-reason"), { target: { value: "not now" } });
    await act(async () => {
      fireEvent.click(within(card("r-g")).getByTestId("deny-reason-send"));
    });
    expect(sendCommand).toHaveBeenLastCalledWith(expect.objectContaining({ request_id: "r-g", approved: false, reason: "not now" }));
  });

  it("answers the focused card from the keyboard: a, d, 1–4 then a, r then Enter; j/k move", async () => {
    render(<ApprovalInbox />);
    card("r-g").focus();
    await key(card("r-g"), "j");
    expect(document.activeElement).toBe(card("r-f"));
    await key(card("r-f"), "k");
    expect(document.activeElement).toBe(card("r-g"));
    await key(card("r-g"), "ArrowDown");
    expect(document.activeElement).toBe(card("r-f"));

    await key(card("r-g"), "3");
    expect(option("r-g", "subtree").getAttribute("aria-checked")).toBe("true");
    await key(card("r-g"), "a");
    expect(sendCommand).toHaveBeenLastCalledWith({ type: "resolve_approval", request_id: "r-g", approved: true, scope: "subtree" });

    await key(card("r-f"), "d");
    expect(sendCommand).toHaveBeenLastCalledWith({ type: "resolve_approval", request_id: "r-f", approved: false, scope: "once" });
    expect(sendCommand).toHaveBeenCalledTimes(2);
  });

  it("reaches the first card with j from a button or from nowhere, never from a text field", async () => {
    render(
      <>
        <button type="button" data-testid="elsewhere-button">Send</button>
        <textarea data-testid="elsewhere-text" />
        <ApprovalInbox />
      </>,
    );
    const text = screen.getByTestId("elsewhere-text");
    text.focus();
    fireEvent.keyDown(text, { key: "j" });
    expect(document.activeElement).toBe(text);
    const button = screen.getByTestId("elsewhere-button");
    button.focus();
    fireEvent.keyDown(button, { key: "j" });
    expect(document.activeElement).toBe(card("r-g"));
    (document.activeElement as HTMLElement).blur();
    fireEvent.keyDown(document.body, { key: "k" });
    expect(document.activeElement).toBe(card("r-g"));
  });

  it("answers the first card, marked, with a or d pressed from outside the inbox (never from a text field)", async () => {
    render(
      <>
        <button type="button" data-testid="elsewhere-button">Send</button>
        <textarea data-testid="elsewhere-text" />
        <ApprovalInbox />
      </>,
    );
    expect(screen.getByTestId("keys-hint").textContent).toContain("on the marked card");
    const text = screen.getByTestId("elsewhere-text");
    text.focus();
    fireEvent.keyDown(text, { key: "a" });
    expect(sendCommand).not.toHaveBeenCalled();
    screen.getByTestId("elsewhere-button").focus();
    await act(async () => {
      fireEvent.keyDown(screen.getByTestId("elsewhere-button"), { key: "a" });
    });
    expect(sendCommand).toHaveBeenLastCalledWith({ type: "resolve_approval", request_id: "r-g", approved: true, scope: "once" });
    expect(document.activeElement).toBe(card("r-g"));
    (document.activeElement as HTMLElement).blur();
    // Its answer is on its way: the next key goes to the next card.
    await act(async () => {
      fireEvent.keyDown(document.body, { key: "d" });
    });
    expect(sendCommand).toHaveBeenLastCalledWith({ type: "resolve_approval", request_id: "r-f", approved: false, scope: "once" });
  });

  it("opens the reason field with r, and sends it with Enter", async () => {
    render(<ApprovalInbox />);
    card("r-f").focus();
    await key(card("r-f"), "r");
    const field = within(card("r-f")).getByTestId("deny-reason");
    expect(document.activeElement).toBe(field);
    fireEvent.change(field, { target: { value: "no" } });
    await key(field, "Enter");
    expect(sendCommand).toHaveBeenCalledWith({ type: "resolve_approval", request_id: "r-f", approved: false, scope: "once", reason: "no" });
  });

  it("ignores the keys while typing in a field or with a dialog open", async () => {
    render(<ApprovalInbox />);
    fireEvent.click(within(card("r-f")).getByTestId("deny-with-reason"));
    const field = within(card("r-f")).getByTestId("deny-reason");
    for (const k of ["a", "d", "A", "2", "j"]) await key(field, k);
    expect(sendCommand).not.toHaveBeenCalled();
    expect(option("r-f", "once").getAttribute("aria-checked")).toBe("true");

    act(() => patchUi({ dialog: { kind: "message", agentId: "agent-g" } }));
    card("r-g").focus();
    await key(card("r-g"), "a");
    await key(card("r-g"), "3");
    expect(sendCommand).not.toHaveBeenCalled();
    expect(option("r-g", "subtree").getAttribute("aria-checked")).toBe("false");
  });

  it("approves all of one agent's requests, each once, from the button or with A", async () => {
    applyEvents([
      ...askFor(e.make, "agent-g", "r-g2", { path: ["main", "Write the greeting"] }),
      ...askFor(e.make, "agent-g", "r-g3", { tool: "Edit", args: { file_path: "a", old_string: "x", new_string: "y" }, path: ["main", "Write the greeting"] }),
    ]);
    render(<ApprovalInbox />);
    const all = within(card("r-g")).getByTestId("approve-all");
    expect(all.textContent).toContain("Approve all 3 from “Write the greeting”");
    expect(within(card("r-g3")).getByTestId("approve-all").textContent).toContain("Approve all 3");
    // One request waits for the farewell: nothing to approve "all" of.
    expect(within(card("r-f")).queryByTestId("approve-all")).toBeNull();
    await act(async () => {
      fireEvent.click(all);
    });
    expect(sendCommand.mock.calls.map((c) => c[0])).toEqual(
      ["r-g", "r-g2", "r-g3"].map((id) => ({ type: "resolve_approval", request_id: id, approved: true, scope: "once" })),
    );

    sendCommand.mockClear();
    resolve("r-g");
    resolve("r-g2");
    resolve("r-g3");
    applyEvents([
      ...askFor(e.make, "agent-f", "r-f2", { tool: "Bash", args: { command: "ls" }, path: ["main", "Write the farewell"] }),
    ]);
    card("r-f").focus();
    await key(card("r-f"), "A", { shiftKey: true });
    expect(sendCommand.mock.calls.map((c) => (c[0] as { request_id: string }).request_id)).toEqual(["r-f", "r-f2"]);
  });

  it("hands the focus to the next card when the focused one is answered", async () => {
    render(<ApprovalInbox />);
    card("r-g").focus();
    fireEvent.focus(card("r-g"));
    await key(card("r-g"), "a");
    resolve("r-g");
    expect(document.activeElement).toBe(card("r-f"));
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
    expect(option("r-m1", "session").textContent).toContain("everything · echo anywhere in this session");
    expect(within(card("r-m2")).queryByTestId("mcp-tool-name")).toBeNull();
    expect(card("r-m2").querySelector(".approval-tool")?.textContent).toContain("mcp__a__b");
    expect(card("r-m2").querySelector(".mcp-tag")).toBeNull();
  });

  it("says so when nothing waits", () => {
    resetStores();
    render(<ApprovalInbox />);
    expect(cards()).toHaveLength(0);
    expect(screen.getByText("Nothing to approve")).toBeTruthy();
    expect(screen.queryByTestId("keys-hint")).toBeNull();
  });
});
