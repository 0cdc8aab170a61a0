import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { openPastSession } from "../ipc/history";
import { bookStore } from "../store/review";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { withLayout } from "../test/layout";
import { pastSession, storedAgent, summary } from "../test/past";
import { appState, applyEvents, continuedFrom, resetStores, sessionInfo } from "../test/stores";
import { HistoryPanel } from "./HistoryPanel";
import { OutputView } from "./output/OutputView";
import { PromptBox } from "./PromptBox";

const commands = {
  // The generation of the page asking (the shell's, src-tauri/src/bridge.rs).
  thisPage: vi.fn(() => Promise.resolve(7)),
  appState: vi.fn(),
  dismissInterrupted: vi.fn(),
  openSession: vi.fn(),
  resumeSession: vi.fn(),
  loadTranscript: vi.fn(),
  sessionChanges: vi.fn(),
  listSessions: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
vi.mock("@tauri-apps/api/core", () => ({ Channel: class {} }));

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });

const migrate = summary({ id: "s-int", first_prompt: "Migrate the database", status: "interrupted", workspace: "/home/me/code/db" });
const docs = summary({ id: "s-int2", first_prompt: "Write the docs", status: "interrupted" });

function offer(...sessions: ReturnType<typeof summary>[]) {
  resetStores({ app: appState({ interrupted: sessions }) });
}

/** The stored session `s-int`: its main agent and a subagent were running when Arbor closed. */
function stored() {
  const e = eventMaker("s-int");
  return pastSession(
    [
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      e.started("agent-a", "agent-main", "Move the tables"),
      e.status("agent-a", "running"),
    ],
    [storedAgent("agent-main", null, { status: "interrupted" }), storedAgent("agent-a", "agent-main", { status: "interrupted" })],
    { id: "s-int", status: "interrupted", first_prompt: "Migrate the database" },
  );
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.sessionChanges.mockReturnValue(ok([]));
  commands.loadTranscript.mockReturnValue(ok({ events: [], more_before: false }));
  commands.listSessions.mockReturnValue(ok([]));
});

describe("the offer to continue interrupted sessions", () => {
  it("lists them on the start screen, and Continue resumes one live with no prompt", async () => {
    offer(migrate, docs);
    render(<OutputView />);
    const banner = screen.getByTestId("interrupted-banner");
    expect(banner.textContent).toContain("Arbor closed while 2 sessions were running");
    const rows = within(banner).getAllByTestId("interrupted-session");
    expect(rows.map((r) => r.dataset.sessionId)).toEqual(["s-int", "s-int2"]);
    expect(rows[0]?.textContent).toContain("Migrate the database");
    expect(rows[0]?.textContent).toContain("code/db");

    commands.openSession.mockReturnValue(ok(stored()));
    commands.resumeSession.mockReturnValue(ok(continuedFrom(stored())));
    // Rust no longer offers the one continued.
    commands.appState.mockResolvedValue(appState({ interrupted: [docs] }));
    await act(async () => {
      fireEvent.click(within(rows[0]!).getByTestId("interrupted-continue"));
    });
    // The resume path of "Continue this session": no prompt (Rust resumes every interrupted agent).
    expect(commands.openSession).toHaveBeenCalledWith("s-int");
    expect(commands.resumeSession).toHaveBeenCalledWith("s-int", null, 7, expect.anything());
    expect(uiStore.get().session?.session_id).toBe("s-int");
    expect(bookStore.get()).toMatchObject({ review: null, live: { sessionId: "s-int" } });
    expect(commands.appState).toHaveBeenCalledTimes(1);
    expect(uiStore.get().app?.interrupted.map((s) => s.id)).toEqual(["s-int2"]);
  });

  it("says one session in the singular, and Dismiss forgets them all", async () => {
    offer(migrate);
    commands.dismissInterrupted.mockResolvedValue(appState({ interrupted: [] }));
    await act(async () => {
      render(<HistoryPanel />);
    });
    expect(screen.getByTestId("interrupted-banner").textContent).toContain("Arbor closed while 1 session was running");
    await act(async () => {
      fireEvent.click(screen.getByTestId("interrupted-dismiss"));
    });
    expect(commands.dismissInterrupted).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId("interrupted-banner")).toBeNull();
  });

  it("is not offered while a session runs in this window", async () => {
    offer(migrate);
    uiStore.set((s) => ({ ...s, session: sessionInfo() }));
    const e = eventMaker();
    applyEvents([e.started("agent-main", null, "main"), e.status("agent-main", "running")]);
    await act(async () => {
      render(<HistoryPanel />);
    });
    expect(screen.queryByTestId("interrupted-banner")).toBeNull();
    // Once it is over, the offer shows again.
    act(() => applyEvents([e.status("agent-main", "completed")]));
    expect(screen.getByTestId("interrupted-banner")).toBeTruthy();
  });

  it("is the same path as Continue this session on the interrupted session under review", async () => {
    offer(migrate);
    commands.openSession.mockReturnValue(ok(stored()));
    commands.resumeSession.mockReturnValue(ok(continuedFrom(stored())));
    commands.appState.mockResolvedValue(appState({ interrupted: [] }));
    await act(async () => {
      await openPastSession("s-int");
    });
    render(<PromptBox />);
    await act(async () => {
      fireEvent.click(screen.getByTestId("resume-session"));
    });
    expect(commands.resumeSession).toHaveBeenCalledWith("s-int", null, 7, expect.anything());
    expect(commands.appState).toHaveBeenCalledTimes(1);
    expect(uiStore.get().app?.interrupted).toEqual([]);
  });
});
