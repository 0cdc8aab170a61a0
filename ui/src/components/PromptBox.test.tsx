import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { flushEvents, sessionStore } from "../store/sessionStore";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent } from "../test/past";
import { frameOf, liveHere, resetStores, sessionInfo } from "../test/stores";
import { bookFromPast, bookStore } from "../store/review";
import { PromptBox } from "./PromptBox";
import { channels } from "../test/channels";

const sendCommand = vi.fn();
const startSession = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: {
    sendCommand: (_session: unknown, command: unknown) => sendCommand(command),
    startSession: (...a: unknown[]) => startSession(...a),
    thisPage: () => Promise.resolve(7),
    // No .mcp.json in the workspace: nothing to ask before starting (McpTrustDialog.test.tsx asks).
    workspaceMcp: () => Promise.resolve(null),
  },
}));
vi.mock("@tauri-apps/api/core", async () => ({ Channel: (await import("../test/channels")).FakeChannel }));

beforeEach(() => {
  sendCommand.mockReset();
  startSession.mockReset();
  channels.length = 0;
});

async function type(text: string) {
  fireEvent.change(screen.getByTestId("prompt-input"), { target: { value: text } });
  await act(async () => {
    fireEvent.click(screen.getByTestId("send"));
  });
}

describe("PromptBox", () => {
  it("starts a session with the chosen workspace, provider and model, and streams its events", async () => {
    resetStores({ workspace: "/home/me/proj", provider: "openai", model: "gpt-test" });
    startSession.mockResolvedValue({ status: "ok", data: sessionInfo() });
    render(<PromptBox />);
    await type("Fix the build");
    expect(startSession).toHaveBeenCalledTimes(1);
    expect(startSession.mock.calls[0]?.[0]).toEqual({
      workspace: "/home/me/proj",
      provider: "openai",
      model: "gpt-test",
      prompt: "Fix the build",
      agent_type: null,
    });
    expect(uiStore.get().session?.session_id).toBe("s-1");
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("");

    // Events on the session's channel reach the store; the prompt comes back as the main agent's user_message.
    const e = eventMaker();
    expect(sessionStore.get().agents["agent-main"]).toBeUndefined();
    act(() => {
      channels[0]?.onmessage(frameOf([e.started("agent-main", null, "main"), e.make("agent-main", { type: "user_message", content: "Fix the build" })]));
      flushEvents();
    });
    expect(sessionStore.get().agents["agent-main"]?.items).toMatchObject([{ kind: "user", text: "Fix the build" }]);
  });

  it("continues the session with the main agent once one exists", async () => {
    resetStores({ session: sessionInfo() });
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    render(<PromptBox />);
    await type("Now add docs");
    expect(startSession).not.toHaveBeenCalled();
    expect(sendCommand).toHaveBeenCalledWith({ type: "send_message", agent_id: null, text: "Now add docs" });
    // No local echo: the message shows when the backend's user_message arrives.
    expect(sessionStore.get().agents["agent-main"]).toBeUndefined();
  });

  it("keeps the text and shows a banner when the backend refuses", async () => {
    resetStores({ workspace: "/nope" });
    startSession.mockResolvedValue({ status: "error", error: { kind: "workspace", message: "the workspace /nope is not a folder" } });
    render(<PromptBox />);
    await type("Anything");
    expect(uiStore.get().errors.map((e) => e.message)).toEqual(["the workspace /nope is not a folder"]);
    expect(uiStore.get().session).toBeNull();
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("Anything");
  });
});

describe("PromptBox under a review", () => {
  it("offers no Continue for a session another Arbor process runs, and says where it runs", () => {
    resetStores();
    const past = pastSession([], [storedAgent("agent-main", null)], { id: "s-other" });
    bookStore.set({ review: bookFromPast({ ...past, runs: { kind: "elsewhere", pid: 4242 } }), live: null });
    render(<PromptBox />);
    expect(screen.queryByTestId("resume-session")).toBeNull();
    expect(screen.getByTestId("runs-elsewhere").textContent).toContain("Running in another Arbor process (pid 4242)");
  });

  it("offers Continue for a stored one, beside the sessions running here; one running here is shown live", () => {
    resetStores();
    liveHere(sessionInfo({ session_id: "s-live" }));
    const past = pastSession([], [storedAgent("agent-main", null)], { id: "s-past" });
    bookStore.set({ review: bookFromPast(past), live: null });
    const { unmount } = render(<PromptBox />);
    expect(screen.getByTestId("resume-session")).toBeTruthy();
    expect(screen.getByTestId("continue-form").textContent).toContain("beside the sessions already running here");
    unmount();
    const live = pastSession([], [storedAgent("agent-main", null)], { id: "s-live" });
    bookStore.set({ review: bookFromPast(live), live: null });
    render(<PromptBox />);
    expect(screen.getByTestId("continue-form").textContent).toContain("It is running here: shows it live");
  });
});
