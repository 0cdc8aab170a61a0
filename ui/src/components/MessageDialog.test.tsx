import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { applyEvents, resetStores, sessionInfo } from "../test/stores";
import { MessageDialog } from "./MessageDialog";

const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: (_session: unknown, command: unknown) => sendCommand(command) },
}));

const e = eventMaker();

beforeEach(() => {
  sendCommand.mockReset();
  resetStores({ session: sessionInfo(), dialog: { kind: "message", agentId: "agent-main" } });
  applyEvents([e.started("agent-main", null, "main")]);
});

describe("MessageDialog", () => {
  it("asks for a message before sending one", async () => {
    render(<MessageDialog agentId="agent-main" />);
    await act(async () => {
      fireEvent.click(screen.getByTestId("message-submit"));
    });
    expect(screen.getByRole("alert").textContent).toBe("Write a message.");
    expect(sendCommand).not.toHaveBeenCalled();
  });

  it("sends what was typed (Ctrl+Enter), trimmed, and closes", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    render(<MessageDialog agentId="agent-main" />);
    expect(screen.getByRole("dialog").getAttribute("aria-label")).toBe("Message the main agent");
    const field = screen.getByTestId("message-text");
    fireEvent.change(field, { target: { value: "  Stop after the tests " } });
    await act(async () => {
      fireEvent.keyDown(field, { key: "Enter", ctrlKey: true });
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "send_message", agent_id: "agent-main", text: "Stop after the tests" });
    expect(uiStore.get().dialog).toBeNull();
  });
});
