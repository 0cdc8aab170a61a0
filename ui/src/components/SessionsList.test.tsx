/**
 * Several live sessions in one window: each fed by its own frames, listed
 * above the tree (waiting first, with the count), switched with a click that
 * brings each back as it was left, and one inbox across them whose cards name
 * their session and whose answers go to it. A session finished out of sight
 * is marked new; closing one at work asks first.
 */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../App";
import { sessionRows } from "../lib/sessions";
import { openSession, sessionOpened } from "../ipc/sessions";
import { bookFromPast, bookStore, reduceBook } from "../store/review";
import { enqueueFrame, flushEvents, liveStore, liveViews, sessionStore, showPastSession } from "../store/sessionStore";
import { pastSession, storedAgent } from "../test/past";
import { uiStore } from "../store/ui";
import { answered, askFor } from "../test/approvals";
import { eventMaker } from "../test/events";
import { appState, frameOf, resetStores, sessionInfo } from "../test/stores";
import { answerAsIdle, windowCommands } from "../test/windowCommands";

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });
const commands = windowCommands();
vi.mock("../bindings", async (importOriginal) => ({
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

/** A live session of the window, started with `prompt`, its main agent asking for `requests`. */
function session(id: string, prompt: string, requests: string[], workspace = `/work/${id}`) {
  const e = eventMaker(id);
  let key = "";
  act(() => {
    key = openSession();
  });
  const info = sessionInfo({ session_id: id, workspace, main_agent_id: `${id}-main` });
  act(() => {
    sessionOpened(key, info);
    enqueueFrame(
      frameOf([
          e.started(`${id}-main`, null, "main"),
          e.make(`${id}-main`, { type: "user_message", content: prompt }),
          ...requests.flatMap((r) => askFor(e.make, `${id}-main`, r)),
        ]),
      key,
    );
    flushEvents();
  });
  return { key, e };
}

const rows = () => screen.queryAllByTestId("session-row");

beforeEach(async () => {
  answerAsIdle(commands);
  resetStores({ app: null, appLoading: true });
  await act(async () => {
    render(<App />);
  });
});

describe("several live sessions in one window", () => {
  it("lists them waiting first, and one inbox answers each in its own session, naming it", async () => {
    const docs = session("s-docs", "Update the docs", ["r-docs"]);
    const tests = session("s-tests", "Fix the flaky tests", ["r-t1", "r-t2"]);
    expect(liveStore.get().current).toBe(tests.key);
    // The list: both wait; the one with more requests first, with its count.
    expect(rows().map((r) => r.dataset.group)).toEqual(["waiting", "waiting"]);
    expect(rows()[0]?.textContent).toContain("Fix the flaky tests");
    expect(within(rows()[0] as HTMLElement).getByTestId("session-pending").textContent).toBe("2");
    expect(rows()[1]?.textContent).toContain("s-docs");
    // One inbox: three cards, each naming its session; the window title counts all.
    const cards = screen.getAllByTestId("approval");
    expect(cards).toHaveLength(3);
    expect(cards.map((c) => within(c).getByTestId("approval-session").textContent)).toEqual([
      "live “Update the docs”",
      "live “Fix the flaky tests”",
      "live “Fix the flaky tests”",
    ]);
    expect(document.title).toContain("3");
    // The docs' card, answered while the tests are shown, goes to the docs' session.
    await act(async () => {
      fireEvent.click(within(cards[0] as HTMLElement).getByTestId("approve"));
    });
    expect(commands.sendCommand).toHaveBeenCalledWith("s-docs", expect.objectContaining({ type: "resolve_approval", request_id: "r-docs" }));
    expect(sessionStore.get().sessionId).toBe("s-tests");
    // Its resolution arrives on its own channel; the shown session is untouched.
    act(() => {
      enqueueFrame(
        frameOf([answered(docs.e.make, "s-docs-main", "r-docs", "approved")]),
        docs.key,
      );
      flushEvents();
    });
    expect(screen.getAllByTestId("approval")).toHaveLength(2);
    expect(rows().map((r) => r.dataset.group)).toEqual(["waiting", "working"]);
    // A request of the session out of sight is notified, naming it, though the window has the focus.
    const focused = vi.spyOn(document, "hasFocus").mockReturnValue(true);
    sendNotification.mockReset();
    await act(async () => {
      enqueueFrame(frameOf(askFor(docs.e.make, "s-docs-main", "r-docs-2")), docs.key);
      flushEvents();
    });
    await vi.waitFor(() => expect(sendNotification).toHaveBeenCalledTimes(1));
    expect(sendNotification.mock.calls[0]?.[0]).toMatchObject({ body: expect.stringContaining("in “Update the docs”") });
    // One in the session on display is not: the person sees its card come. (Notifications go
    // out in order, so the next one from the docs' session is the second, not the third.)
    await act(async () => {
      enqueueFrame(frameOf(askFor(tests.e.make, "s-tests-main", "r-t3")), tests.key);
      flushEvents();
      enqueueFrame(frameOf(askFor(docs.e.make, "s-docs-main", "r-docs-3")), docs.key);
      flushEvents();
    });
    await vi.waitFor(() => expect(sendNotification.mock.calls.length).toBeGreaterThanOrEqual(2));
    expect(sendNotification).toHaveBeenCalledTimes(2);
    expect(sendNotification.mock.calls[1]?.[0]).toMatchObject({ body: expect.stringContaining("in “Update the docs”") });
    focused.mockRestore();
  });

  it("switches with a click, each coming back as it was left, and New session leaves both running", () => {
    const first = session("s-one", "First task", []);
    act(() => uiStore.set((s) => ({ ...s, selected: "s-one-main", outputTab: "changes" })));
    session("s-two", "Second task", []);
    expect(uiStore.get().selected).toBeNull();
    const firstRow = rows().find((r) => r.dataset.key === first.key) as HTMLElement;
    act(() => fireEvent.click(firstRow.querySelector(".session-open") as HTMLElement));
    expect(sessionStore.get().sessionId).toBe("s-one");
    expect(uiStore.get()).toMatchObject({ selected: "s-one-main", outputTab: "changes" });
    expect(uiStore.get().session?.session_id).toBe("s-one");
    act(() => fireEvent.click(screen.getByTestId("new-session")));
    expect(sessionStore.get().roots).toEqual([]);
    expect(liveViews.get()).toHaveLength(2);
    expect(rows()).toHaveLength(2);
    expect(commands.closeSession).not.toHaveBeenCalled();
  });

  it("keeps each session's tree and output mounted out of view, untouched by its events until it is shown again", async () => {
    const first = session("s-one", "First task", []);
    session("s-two", "Second task", []);
    const node = () => document.querySelector<HTMLElement>('[data-testid=tree-node][data-agent-id="s-one-main"]');
    const left = node();
    expect(left).not.toBeNull();
    // Out of view: hidden from screen readers, and focus that enters it is sent on past it.
    const pane = left?.closest<HTMLElement>("[data-pane]");
    expect(pane?.dataset.pane).toBe("hidden");
    expect(pane?.getAttribute("aria-hidden")).toBe("true");
    act(() => left?.focus());
    expect(pane?.contains(document.activeElement)).toBe(false);
    expect(document.querySelectorAll("[data-pane=shown] [data-testid=tree-node]")).toHaveLength(1);
    expect(document.querySelector<HTMLElement>("[data-pane=shown] [data-testid=tree-node]")?.dataset.agentId).toBe("s-two-main");
    // Its session goes on meanwhile; the hidden tree renders none of it.
    const before = left?.dataset.status;
    act(() => {
      enqueueFrame(
        frameOf([
          first.e.make("s-one-main", { type: "agent_finished", status: "completed", result: "done", error: null, turns: 1, duration_ms: 5, files_modified: [] }),
        ]),
        first.key,
      );
      flushEvents();
    });
    expect(node()?.dataset.status).toBe(before);
    // Shown again: the very rows it left (nothing mounted anew), brought up to date.
    const firstRow = rows().find((r) => r.dataset.key === first.key) as HTMLElement;
    act(() => fireEvent.click(firstRow.querySelector(".session-open") as HTMLElement));
    expect(node()).toBe(left);
    expect(left?.closest<HTMLElement>("[data-pane]")?.dataset.pane).toBe("shown");
    expect(node()?.dataset.status).toBe("completed");
    expect(pane?.hasAttribute("aria-hidden")).toBe(false);
    act(() => left?.focus());
    expect(pane?.contains(document.activeElement)).toBe(true);
    expect(document.querySelector<HTMLElement>('[data-testid=tree-node][data-agent-id="s-two-main"]')?.closest<HTMLElement>("[data-pane]")?.dataset.pane).toBe(
      "hidden",
    );
  });

  it("leaves a review for the session clicked, the current one included, as it was left", () => {
    const first = session("s-one", "First task", []);
    const second = session("s-two", "Second task", []);
    act(() => uiStore.set((s) => ({ ...s, selected: "s-two-main", outputTab: "changes" })));
    // A past session under review: the list still shows both live ones.
    const past = pastSession([], [storedAgent("agent-old", null)], { id: "s-past" });
    act(() => {
      const book = bookFromPast(past);
      showPastSession(reduceBook(book));
      bookStore.set((b) => ({ ...b, review: book }));
      uiStore.set((s) => ({ ...s, selected: "agent-old", outputTab: "output" }));
    });
    expect(rows()).toHaveLength(2);
    const current = rows().find((r) => r.dataset.key === second.key) as HTMLElement;
    act(() => fireEvent.click(current.querySelector(".session-open") as HTMLElement));
    expect(bookStore.get().review).toBeNull();
    expect(sessionStore.get().sessionId).toBe("s-two");
    expect(uiStore.get()).toMatchObject({ selected: "s-two-main", outputTab: "changes" });
    // And from another review to the other one.
    act(() => {
      const book = bookFromPast(past);
      showPastSession(reduceBook(book));
      bookStore.set((b) => ({ ...b, review: book }));
    });
    const other = rows().find((r) => r.dataset.key === first.key) as HTMLElement;
    act(() => fireEvent.click(other.querySelector(".session-open") as HTMLElement));
    expect(bookStore.get().review).toBeNull();
    expect(sessionStore.get().sessionId).toBe("s-one");
  });

  it("marks a session that finished out of sight, and asks before closing one at work", async () => {
    // The window last looked at them before the events' clock (1 s after the epoch) ran on.
    vi.spyOn(Date, "now").mockReturnValue(500);
    const done = session("s-done", "Quick one", []);
    const busy = session("s-busy", "Long one", []);
    act(() => {
      enqueueFrame(
        frameOf([
            done.e.status("s-done-main", "running"),
            done.e.make("s-done-main", { type: "agent_finished", status: "completed", result: "done", error: null, turns: 1, duration_ms: 5, files_modified: [] }),
          ]),
        done.key,
      );
      enqueueFrame(
        frameOf([busy.e.make("s-busy-main", { type: "agent_status", status: "running" })]),
        busy.key,
      );
      flushEvents();
    });
    const finished = sessionRows(liveViews.get()).find((r) => r.key === done.key);
    expect(finished).toMatchObject({ group: "finished", unseen: true });
    const busyRow = rows().find((r) => r.dataset.key === busy.key) as HTMLElement;
    fireEvent.click(within(busyRow).getByTestId("session-close"));
    expect(commands.closeSession).not.toHaveBeenCalled();
    commands.closeSession.mockReturnValue(ok(appState()));
    await act(async () => {
      fireEvent.click(within(busyRow).getByTestId("session-close-confirm"));
    });
    expect(commands.closeSession).toHaveBeenCalledWith("s-busy");
    expect(liveViews.get().map((v) => v.state.sessionId)).toEqual(["s-done"]);
    // The closed one was shown: the window is on a fresh page, the other listed.
    expect(sessionStore.get().roots).toEqual([]);
    expect(rows()).toHaveLength(1);
    vi.restoreAllMocks();
  });
});
