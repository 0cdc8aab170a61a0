import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { sessionStore } from "../store/sessionStore";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { applyEvents, resetStores, sessionInfo } from "../test/stores";
import { DelegateDialog } from "./DelegateDialog";
import { MessageDialog } from "./MessageDialog";

const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: (...a: unknown[]) => sendCommand(...a) },
}));

const types = [
  { name: "tester", description: "Writes and runs tests", model: "claude-haiku", provider: null, source: "project", file: "/w/.claude/agents/tester.md" },
  { name: "general-purpose", description: "dup", model: null, provider: null, source: "built-in", file: null },
];

beforeEach(() => {
  sendCommand.mockReset();
  resetStores({ session: sessionInfo({ agent_types: types }), dialog: { kind: "delegate", parentId: "agent-a" } });
  const e = eventMaker();
  applyEvents([e.started("agent-main", null, "main"), e.started("agent-a", "agent-main", "Write the tests"), e.status("agent-a", "running")]);
});

const input = (id: string) => screen.getByTestId(id) as HTMLInputElement;

describe("DelegateDialog", () => {
  it("shows the parent and offers general-purpose plus the session's agent types", () => {
    render(<DelegateDialog parentId="agent-a" />);
    const form = screen.getByTestId("delegate-form");
    expect(form.textContent).toContain("Write the tests");
    expect(form.textContent).toContain("agent-a");
    const options = Array.from((screen.getByTestId("delegate-type") as HTMLSelectElement).options).map((o) => o.value);
    expect(options).toEqual(["general-purpose", "tester"]);
    fireEvent.change(screen.getByTestId("delegate-type"), { target: { value: "tester" } });
    expect(form.textContent).toContain("Writes and runs tests");
  });

  it("sends the delegate command built from the form and selects the new agent", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "delegated", agent_id: "agent-new" } });
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(screen.getByTestId("delegate-type"), { target: { value: "tester" } });
    fireEvent.change(input("delegate-prompt"), { target: { value: "  Count the text files  " } });
    fireEvent.change(input("delegate-description"), { target: { value: "Count text files" } });
    fireEvent.change(input("delegate-model"), { target: { value: "claude-opus" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("delegate-submit"));
    });
    expect(sendCommand).toHaveBeenCalledWith({
      type: "delegate",
      parent_id: "agent-a",
      prompt: "Count the text files",
      description: "Count text files",
      subagent_type: "tester",
      model: "claude-opus",
      max_turns: null,
    });
    expect(uiStore.get().dialog).toBeNull();
    expect(uiStore.get().selected).toBe("agent-new");
    // The task shows once the backend's user_message for the new agent arrives, not before.
    expect(sessionStore.get().agents["agent-new"]).toBeUndefined();
  });

  it("sends general-purpose as no type and empty optional fields as null", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(input("delegate-prompt"), { target: { value: "Do it" } });
    await act(async () => {
      fireEvent.submit(screen.getByTestId("delegate-form"));
    });
    expect(sendCommand).toHaveBeenCalledWith({
      type: "delegate",
      parent_id: "agent-a",
      prompt: "Do it",
      description: null,
      subagent_type: null,
      model: null,
      max_turns: null,
    });
  });

  it("requires a task and shows the backend's error inline", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    await act(async () => {
      fireEvent.click(screen.getByTestId("delegate-submit"));
    });
    expect(sendCommand).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toContain("Write the task");

    sendCommand.mockResolvedValue({ status: "error", error: { kind: "session", message: "the subagent limit (10) is reached" } });
    fireEvent.change(input("delegate-prompt"), { target: { value: "More work" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("delegate-submit"));
    });
    expect(screen.getByRole("alert").textContent).toContain("the subagent limit (10) is reached");
    expect(uiStore.get().dialog).toEqual({ kind: "delegate", parentId: "agent-a" });
  });
});

describe("MessageDialog", () => {
  it("sends a steering message to that agent (its transcript shows it from the backend's user_message)", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    uiStore.set((s) => ({ ...s, dialog: { kind: "message", agentId: "agent-a" } }));
    render(<MessageDialog agentId="agent-a" />);
    fireEvent.change(screen.getByTestId("message-text"), { target: { value: "Use vitest" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("message-submit"));
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "send_message", agent_id: "agent-a", text: "Use vitest" });
    expect(uiStore.get().dialog).toBeNull();
    expect(sessionStore.get().agents["agent-a"]?.items).toEqual([]);
  });
});
