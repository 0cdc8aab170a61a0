/** Closing the window while agents work: the shell's question, and each answer sent back. */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { WindowRequest } from "../bindings";
import { App } from "../App";
import { askTrust, trustStore } from "../store/trust";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { appState, applyEvents, resetStores, sessionInfo } from "../test/stores";

const commands = {
  appState: vi.fn(),
  showSession: vi.fn(() => Promise.resolve(null)),
  thisPage: vi.fn(),
  watchWindow: vi.fn(),
  closeWindow: vi.fn(),
  listSessions: vi.fn(),
  describeTask: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
vi.mock("@tauri-apps/api/core", () => ({
  Channel: class {
    onmessage: (m: unknown) => void = () => undefined;
  },
}));

/** The shell's channel, as the window registered it. */
function shell(): { onmessage: (r: WindowRequest) => void } {
  const channel = commands.watchWindow.mock.calls.at(-1)?.[1];
  if (!channel) throw new Error("the window never listened");
  return channel;
}

beforeEach(async () => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.appState.mockResolvedValue(appState());
  commands.thisPage.mockResolvedValue(1);
  commands.watchWindow.mockResolvedValue(null);
  commands.closeWindow.mockResolvedValue(null);
  commands.listSessions.mockResolvedValue({ status: "ok", data: [] });
  commands.describeTask.mockResolvedValue("A label");
  resetStores({ app: null, appLoading: true });
  await act(async () => {
    render(<App />);
  });
});

describe("closing the window while agents work", () => {
  it("asks, and sends the person's answer: keep running, or stop and quit", async () => {
    act(() => shell().onmessage({ kind: "close_asked", sessions_at_work: 2 }));
    const dialog = screen.getByTestId("close-dialog");
    expect(dialog.textContent).toContain("Agents are at work in 2 sessions");
    // Keep running is where the keys are: Enter keeps the agents going.
    expect(document.activeElement).toBe(screen.getByTestId("close-keep"));
    await act(async () => {
      fireEvent.click(screen.getByTestId("close-keep"));
    });
    expect(commands.closeWindow).toHaveBeenLastCalledWith("keep_running");
    expect(screen.queryByTestId("close-dialog")).toBeNull();
    act(() => shell().onmessage({ kind: "close_asked", sessions_at_work: 1 }));
    expect(screen.getByTestId("close-dialog").textContent).toContain("Agents are at work in a session");
    await act(async () => {
      fireEvent.click(screen.getByTestId("close-stop"));
    });
    expect(commands.closeWindow).toHaveBeenLastCalledWith("stop");
  });

  it("keeps the window on Cancel, sending nothing", () => {
    act(() => shell().onmessage({ kind: "close_asked", sessions_at_work: 1 }));
    fireEvent.click(screen.getByTestId("close-cancel"));
    expect(screen.queryByTestId("close-dialog")).toBeNull();
    expect(commands.closeWindow).not.toHaveBeenCalled();
    expect(uiStore.get().closeQuestion).toBeNull();
  });

  it("asks above an open Delegate… form, whose draft is still there after Cancel or Escape", () => {
    const e = eventMaker();
    act(() => {
      uiStore.set((s) => ({ ...s, session: sessionInfo(), dialog: { kind: "delegate", parentId: "agent-main" } }));
      applyEvents([e.started("agent-main", null, "main"), e.status("agent-main", "running")]);
    });
    const prompt = () => screen.getByTestId("delegate-prompt") as HTMLTextAreaElement;
    fireEvent.change(prompt(), { target: { value: "Count the text files, then the lines" } });

    act(() => shell().onmessage({ kind: "close_asked", sessions_at_work: 1 }));
    // The question is the last dialog drawn (on top), and the keys are its own.
    const modals = screen.getAllByRole("dialog");
    expect(modals.at(-1)).toBe(screen.getByTestId("close-dialog"));
    expect(document.activeElement).toBe(screen.getByTestId("close-keep"));
    // Ctrl+H would leave for the history and drop the form: not while a dialog is open.
    fireEvent.keyDown(window, { key: "h", ctrlKey: true });
    expect(uiStore.get().view).toBe("session");
    fireEvent.click(screen.getByTestId("close-cancel"));
    expect(screen.queryByTestId("close-dialog")).toBeNull();
    expect(prompt().value).toBe("Count the text files, then the lines");
    expect(document.activeElement).toBe(prompt());
    expect(uiStore.get().dialog).toEqual({ kind: "delegate", parentId: "agent-main" });

    act(() => shell().onmessage({ kind: "close_asked", sessions_at_work: 1 }));
    fireEvent.keyDown(screen.getByTestId("close-keep"), { key: "Escape" });
    expect(screen.queryByTestId("close-dialog")).toBeNull();
    expect(prompt().value).toBe("Count the text files, then the lines");
    expect(document.activeElement).toBe(prompt());
    expect(commands.closeWindow).not.toHaveBeenCalled();
  });

  it("asks above the question about a workspace's servers, which stays for after", () => {
    act(() => {
      void askTrust({
        workspace: "/w",
        path: "/w/.mcp.json",
        servers: [{ name: "slow-mount", transport: "stdio", command: "/bin/true", args: [], env_names: [], defined_in: ".mcp.json" }],
        hooks: [],
        allows: [],
        trusted: false,
        changed_since_trusted: false,
        sha256: "abc",
      });
    });
    expect(screen.getByTestId("mcp-trust-dialog")).toBeTruthy();
    act(() => shell().onmessage({ kind: "close_asked", sessions_at_work: 1 }));
    expect(screen.getAllByRole("dialog").at(-1)).toBe(screen.getByTestId("close-dialog"));
    expect(document.activeElement).toBe(screen.getByTestId("close-keep"));
    fireEvent.click(screen.getByTestId("close-cancel"));
    expect(screen.getByTestId("mcp-trust-dialog")).toBeTruthy();
    expect(trustStore.get()).not.toBeNull();
    act(() => trustStore.set(() => null));
  });

  it("asks while the page still waits for the backend's first answer", () => {
    act(() => uiStore.set((s) => ({ ...s, app: null, appLoading: true })));
    expect(screen.getByText("Starting Arbor…")).toBeTruthy();
    act(() => shell().onmessage({ kind: "close_asked", sessions_at_work: 2 }));
    const question = screen.getByTestId("close-dialog");
    expect(question.textContent).toContain("Agents are at work in 2 sessions");
    // The answer comes and the screen changes under the question: the same one, not drawn anew.
    act(() => uiStore.set((s) => ({ ...s, app: appState(), appLoading: false })));
    expect(screen.queryByText("Starting Arbor…")).toBeNull();
    expect(screen.getByTestId("close-dialog")).toBe(question);
  });

  it("asks on the screen a page shows when it could not reach the backend, too", () => {
    act(() => uiStore.set((s) => ({ ...s, appError: "the backend did not answer" })));
    expect(screen.getByText("Could not reach Arbor's backend")).toBeTruthy();
    act(() => shell().onmessage({ kind: "close_asked", sessions_at_work: 1 }));
    expect(screen.getByTestId("close-dialog").textContent).toContain("Agents are at work in a session");
  });
});
