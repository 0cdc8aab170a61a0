/**
 * A session switch renders only what changed (issue 25: switching in 50 ms).
 * Every live session's panes stay mounted; showing one again renders none of
 * its tree rows and none of its output when its session did nothing while it
 * was out of view, and only the rows its session changed when it did. Hiding
 * a pane renders none of it either, and reads none of its selectors. Counted
 * by the calls of what a tree row (`rowLabel`) and an output (`filterItems`)
 * compute on each render, and of one selector each row reads (`agentStanding`).
 */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../App";
import { openSession, sessionOpened } from "../ipc/sessions";
import { CATCH_UP_QUIET_MS } from "../store/sessionScope";
import { enqueueFrame, flushEvents } from "../store/sessionStore";
import { eventMaker } from "../test/events";
import { withLayout } from "../test/layout";
import { frameOf, resetStores, sessionInfo } from "../test/stores";
import { answerAsIdle, windowCommands } from "../test/windowCommands";

const calls = { rows: 0, outputs: 0, standings: 0 };
vi.mock("../lib/tree", async (importOriginal) => {
  const m = await importOriginal<typeof import("../lib/tree")>();
  return { ...m, rowLabel: (...a: Parameters<typeof m.rowLabel>) => ((calls.rows += 1), m.rowLabel(...a)) };
});
vi.mock("../store/selectors", async (importOriginal) => {
  const m = await importOriginal<typeof import("../store/selectors")>();
  return { ...m, agentStanding: (...a: Parameters<typeof m.agentStanding>) => ((calls.standings += 1), m.agentStanding(...a)) };
});
vi.mock("../lib/outputFilter", async (importOriginal) => {
  const m = await importOriginal<typeof import("../lib/outputFilter")>();
  return { ...m, filterItems: (...a: Parameters<typeof m.filterItems>) => ((calls.outputs += 1), m.filterItems(...a)) };
});

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

const commands = windowCommands();
vi.mock("../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] ?? (() => new Promise(() => undefined)) }),
}));
vi.mock("@tauri-apps/api/core", () => ({ Channel: class {} }));

/** A live session of the window: its main agent and three subagents at work, each having said something. */
function session(id: string, prompt: string) {
  const e = eventMaker(id);
  let key = "";
  act(() => {
    key = openSession();
  });
  act(() => {
    sessionOpened(key, sessionInfo({ session_id: id, workspace: `/work/${id}`, main_agent_id: `${id}-main` }));
    const kids = [1, 2, 3].map((n) => `${id}-kid-${n}`);
    enqueueFrame(
      frameOf([
        e.started(`${id}-main`, null, "main"),
        e.make(`${id}-main`, { type: "user_message", content: prompt }),
        e.make(`${id}-main`, { type: "response_chunk", content: "Delegating." }),
        ...kids.flatMap((k) => [e.started(k, `${id}-main`, `task ${k}`), e.make(k, { type: "response_chunk", content: "Working" })]),
      ]),
      key,
    );
    flushEvents();
  });
  return { key, e };
}

const show = (key: string) =>
  act(() => {
    const row = screen.getAllByTestId("session-row").find((r) => r.dataset.key === key);
    fireEvent.click(row?.querySelector(".session-open") as HTMLElement);
  });

const reset = () => {
  calls.rows = 0;
  calls.outputs = 0;
  calls.standings = 0;
};

afterEach(() => {
  vi.useRealTimers();
});

beforeEach(async () => {
  answerAsIdle(commands);
  resetStores({ app: null, appLoading: true });
  await act(async () => {
    render(<App />);
  });
});

describe("switching sessions", () => {
  it("shows and hides a pane that nothing changed without rendering its rows or its output", () => {
    const one = session("s-one", "First task");
    const two = session("s-two", "Second task");
    // Each shown once, so that each has rendered its rows and its main agent's output.
    show(one.key);
    show(two.key);
    expect(document.querySelectorAll("[data-pane=shown] [data-testid=tree-node]")).toHaveLength(4);
    reset();
    show(one.key);
    expect(document.querySelector<HTMLElement>("[data-pane=shown] [data-testid=tree-node]")?.dataset.agentId).toBe("s-one-main");
    expect(calls).toMatchObject({ rows: 0, outputs: 0 });
    show(two.key);
    expect(calls).toMatchObject({ rows: 0, outputs: 0 });
  });

  it("reads the selectors of the pane it shows once, and those of the pane it hides not at all", () => {
    const one = session("s-one", "First task");
    const two = session("s-two", "Second task");
    show(one.key);
    show(two.key);
    reset();
    // The pane shown reads each budget standing once (its four rows', its output's budget line);
    // the pane hidden reads none.
    show(one.key);
    expect(calls.standings).toBe(5);
  });

  it("renders only the rows its session changed while it was out of view", () => {
    const one = session("s-one", "First task");
    const two = session("s-two", "Second task");
    show(one.key);
    show(two.key);
    // Out of view, one of the first session's subagents finishes.
    act(() => {
      enqueueFrame(frameOf([one.e.status("s-one-kid-2", "completed")]), one.key);
      flushEvents();
    });
    reset();
    show(one.key);
    const row = document.querySelector<HTMLElement>('[data-pane=shown] [data-testid=tree-node][data-agent-id="s-one-kid-2"]');
    expect(row?.dataset.status).toBe("completed");
    expect(calls.rows).toBe(1);
    // The main agent's output shows nothing of it.
    expect(calls.outputs).toBe(0);
  });

  it("brings a pane whose session went quiet out of view up to date before it is shown, and not one still at work", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const one = session("s-one", "First task");
    const two = session("s-two", "Second task");
    show(one.key);
    show(two.key);
    const row = (id: string) => document.querySelector<HTMLElement>(`[data-testid=tree-node][data-agent-id="${id}"]`);
    const finish = (id: string) =>
      act(() => {
        enqueueFrame(frameOf([one.e.status(id, "completed")]), one.key);
        flushEvents();
      });
    const before = row("s-one-kid-2")?.dataset.status;
    expect(before).not.toBe("completed");
    // At work: a batch every half second keeps its pane as it was.
    for (let i = 0; i < 4; i++) {
      act(() => {
        enqueueFrame(frameOf([one.e.make("s-one-kid-1", { type: "response_chunk", content: " more" })]), one.key);
        flushEvents();
        vi.advanceTimersByTime(CATCH_UP_QUIET_MS / 2);
      });
    }
    finish("s-one-kid-2");
    act(() => vi.advanceTimersByTime(CATCH_UP_QUIET_MS / 2));
    expect(row("s-one-kid-2")?.dataset.status).toBe(before);
    // Quiet for a second: brought up to date out of view.
    act(() => vi.advanceTimersByTime(CATCH_UP_QUIET_MS));
    expect(row("s-one-kid-2")?.closest<HTMLElement>("[data-pane]")?.dataset.pane).toBe("hidden");
    expect(row("s-one-kid-2")?.dataset.status).toBe("completed");
    // So showing it renders nothing.
    reset();
    show(one.key);
    expect(calls).toMatchObject({ rows: 0, outputs: 0 });
  });
});
