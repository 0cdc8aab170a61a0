/**
 * The live session's approvals are never hidden: answerable while a past
 * session is reviewed, in history, in settings, with the tree folded; counted
 * in the window title, on the History button and in the status bar; and a
 * notification's card brought into view when the window is focused again.
 */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../App";
import { takeNotified } from "../ipc/notify";
import { patchUi, setCollapsed, uiStore } from "../store/ui";
import { answered, askFor } from "../test/approvals";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent } from "../test/past";
import { appState, arriveFrame, resetStores, sessionInfo } from "../test/stores";
import { answerAsIdle, windowCommands } from "../test/windowCommands";

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });
const commands = windowCommands();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
vi.mock("@tauri-apps/api/core", () => ({ Channel: class {} }));
const sendNotification = vi.fn();
vi.mock("@tauri-apps/plugin-notification", () => ({
  isPermissionGranted: () => Promise.resolve(true),
  requestPermission: () => Promise.resolve("granted"),
  sendNotification: (...a: unknown[]) => sendNotification(...a),
}));

const app = appState({
  providers: [
    {
      kind: "anthropic",
      label: "Anthropic",
      key_source: "environment",
      key_var: "K",
      base_url: "u",
      default_model: "claude-test",
      ready: true,
      problem: null,
    },
  ],
});
let e = eventMaker();
const path = ["main", "Update changelog"];
const cards = () => screen.queryAllByTestId("approval");
const frame = (events: ReturnType<typeof e.make>[]) => arriveFrame(events);

beforeEach(async () => {
  answerAsIdle(commands, app);
  sendNotification.mockReset();
  e = eventMaker();
  resetStores({ app: null, appLoading: true });
  await act(async () => {
    render(<App />);
  });
  act(() => patchUi({ session: sessionInfo() }));
  frame([
    e.started("agent-main", null, "main"),
    e.make("agent-main", { type: "user_message", content: "Ship the release" }),
    e.started("agent-u", "agent-main", "Update changelog"),
    ...askFor(e.make, "agent-u", "r1", { path }),
    ...askFor(e.make, "agent-u", "r2", { path, args: { file_path: "NEWS.md", content: "n" } }),
    ...askFor(e.make, "agent-main", "r3", { tool: "Bash", args: { command: "git tag v1" } }),
  ]);
});
afterEach(() => {
  document.title = "Arbor";
});

async function review() {
  const p = eventMaker("s-past");
  const past = pastSession(
    [p.started("agent-old", null, "main"), ...askFor(p.make, "agent-old", "old-1", { args: { file_path: "old.txt", content: "o" } })],
    [storedAgent("agent-old", null, { status: "interrupted" })],
  );
  commands.openSession.mockReturnValue(ok(past));
  commands.loadTranscript.mockReturnValue(ok({ events: [], more_before: false }));
  const { openPastSession } = await import("../ipc/history");
  await act(async () => {
    await openPastSession("s-past");
  });
}

describe("the live session's approvals", () => {
  it("are counted in the window title, on the History button and in the status bar", () => {
    expect(document.title).toBe("(3) Arbor");
    expect(screen.getByTestId("history-approvals").textContent).toBe("3");
    expect(screen.getByTestId("count-approvals").textContent).toMatch(/^3 approvals pending/);
    frame([answered(e.make, "agent-main", "r3", "approved")]);
    expect(document.title).toBe("(2) Arbor");
    expect(screen.getByTestId("history-approvals").textContent).toBe("2");
  });

  it("stay listed and answerable while a past session is reviewed, each saying which session it is from", async () => {
    await review();
    expect(screen.getByTestId("review-banner")).toBeTruthy();
    expect(cards().map((c) => c.dataset.requestId)).toEqual(["r1", "r2", "r3"]);
    for (const c of cards()) expect(within(c).getByTestId("approval-session").textContent).toContain("“Ship the release”");
    expect(screen.getByTestId("count-approvals").textContent).toMatch(/^3 approvals pending/);
    expect(document.title).toBe("(3) Arbor");
    await act(async () => {
      fireEvent.click(within(cards()[0]!).getByTestId("approve"));
    });
    expect(commands.sendCommand).toHaveBeenCalledWith("s-1", { type: "resolve_approval", request_id: "r1", approved: true, scope: "once" });
    // Answered while out of sight: the live session moves on, the review stays.
    frame([answered(e.make, "agent-u", "r1", "approved")]);
    expect(cards().map((c) => c.dataset.requestId)).toEqual(["r2", "r3"]);
    expect(screen.getByTestId("review-banner")).toBeTruthy();
    // Its agent is shown in the live session.
    act(() => fireEvent.click(within(cards()[0]!).getByTestId("approval-agent")));
    expect(screen.queryByTestId("review-banner")).toBeNull();
    expect(uiStore.get().selected).toBe("agent-u");
  });

  it("stay listed and answerable in history, in settings and with the tree folded", async () => {
    act(() => setCollapsed("agent-main", true));
    expect(cards()).toHaveLength(3);
    act(() => fireEvent.click(screen.getByTestId("history-button")));
    expect(screen.getByTestId("history-panel")).toBeTruthy();
    expect(cards()).toHaveLength(3);
    await act(async () => {
      fireEvent.click(within(cards()[2]!).getByTestId("deny"));
    });
    expect(commands.sendCommand).toHaveBeenCalledWith("s-1", { type: "resolve_approval", request_id: "r3", approved: false, scope: "once" });

    await act(async () => {
      fireEvent.click(screen.getByTestId("open-settings"));
    });
    expect(screen.getByRole("heading", { name: "Settings" })).toBeTruthy();
    expect(cards()).toHaveLength(3);
    expect(screen.getByTestId("active-rules")).toBeTruthy();
  });

  it("bring a notified request's card into view and focus when the window is focused again", async () => {
    vi.spyOn(document, "hasFocus").mockReturnValue(false);
    const scrollIntoView = vi.fn();
    const original = Object.getOwnPropertyDescriptor(Element.prototype, "scrollIntoView");
    Element.prototype.scrollIntoView = scrollIntoView;
    // What earlier frames of this test notified is not this test's.
    takeNotified();
    frame([...askFor(e.make, "agent-u", "r9", { path })]);
    await vi.waitFor(() => expect(sendNotification).toHaveBeenCalledWith({ title: "Arbor: approval needed", body: expect.stringContaining("Update changelog") }));
    expect(document.activeElement).toBe(document.body);
    act(() => {
      window.dispatchEvent(new Event("focus"));
    });
    const card = cards().find((c) => c.dataset.requestId === "r9");
    expect(document.activeElement).toBe(card);
    expect(scrollIntoView).toHaveBeenCalled();
    vi.restoreAllMocks();
    if (original) Object.defineProperty(Element.prototype, "scrollIntoView", original);
    else delete (Element.prototype as Partial<Element>).scrollIntoView;
  });
});
