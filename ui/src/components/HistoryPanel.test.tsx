import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { SESSION_STATUSES, type SearchHit } from "../bindings";
import { bookStore } from "../store/review";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent, summary } from "../test/past";
import { liveHere, resetStores, sessionInfo } from "../test/stores";
import { figures } from "../test/usage";
import { HistoryPanel } from "./HistoryPanel";

const commands = {
  listSessions: vi.fn(),
  searchTranscripts: vi.fn(),
  openSession: vi.fn(),
  loadTranscript: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  resetStores({ view: "history" });
});

async function show() {
  await act(async () => {
    render(<HistoryPanel />);
  });
}

describe("HistoryPanel", () => {
  it("lists stored sessions with date, workspace, prompt, agents, tokens, cost and status", async () => {
    liveHere(sessionInfo({ session_id: "s-live" }));
    commands.listSessions.mockReturnValue(
      ok([
        summary({
          id: "s-live",
          status: "running",
          first_prompt: "Live one",
          usage: figures(1500, 0.12),
        }),
        summary({ id: "s-old", status: "interrupted", first_prompt: "Old\nmultiline prompt", agent_count: 1 }),
      ]),
    );
    await show();
    const rows = screen.getAllByTestId("history-row");
    expect(rows.map((r) => r.dataset.sessionId)).toEqual(["s-live", "s-old"]);
    expect(rows[0]?.textContent).toContain("Live one");
    expect(rows[0]?.textContent).toContain("code/pond");
    expect(rows[0]?.textContent).toContain("2 agents");
    expect(rows[0]?.textContent).toContain("1.5k tok");
    expect(rows[0]?.textContent).toContain("$0.12");
    expect(rows[0]?.textContent).toContain("live");
    expect(rows[1]?.textContent).toContain("Old multiline prompt");
    expect(rows[1]?.textContent).toContain("1 agent");
    expect(rows[1]?.dataset.status).toBe("interrupted");
    expect(within(rows[1]!).getByRole("img").getAttribute("aria-label")).toBe("interrupted");
  });

  it("has designed empty and error states", async () => {
    commands.listSessions.mockReturnValue(ok([]));
    await show();
    expect(screen.getByTestId("history-empty").textContent).toContain("No stored sessions yet");
    // The filter offers every session status the backend has, in its order, each in words.
    const options = [...(screen.getByTestId("history-status") as HTMLSelectElement).options];
    expect(options.map((o) => o.value)).toEqual(["", ...SESSION_STATUSES]);
    expect(options.find((o) => o.value === "truncated")?.textContent).toBe("cut off");
    commands.listSessions.mockReturnValue(Promise.resolve({ status: "error", error: { kind: "store", message: "locked" } }));
    await act(async () => {
      fireEvent.change(screen.getByTestId("history-status"), { target: { value: "failed" } });
    });
    expect(commands.listSessions).toHaveBeenLastCalledWith({ text: null, status: "failed", offset: 0 });
    expect(screen.getByTestId("history-error").textContent).toContain("locked");
    commands.listSessions.mockReturnValue(ok([]));
    await act(async () => {
      fireEvent.click(screen.getByText("Retry"));
    });
    expect(screen.getByTestId("history-empty").textContent).toContain("No session matches");
  });

  it("searches on Enter and renders hits with marks as text, never as HTML", async () => {
    commands.listSessions.mockReturnValue(ok([]));
    const hit: SearchHit = {
      session_id: "s-past",
      session_prompt: "Survey the pond",
      agent_id: "agent-fish",
      agent_path: ["main", "Find the fish"],
      seq: 9,
      ts: Date.now(),
      event_type: "response",
      // Brackets in the text are text: only Rust's hit parts are marked.
      snippet: [
        { text: "a <img src=x onerror=alert(1)> [x] ", hit: false },
        { text: "ZEBRAFISH", hit: true },
        { text: " swims", hit: false },
      ],
    };
    commands.searchTranscripts.mockReturnValue(ok([hit]));
    await show();
    const input = screen.getByTestId("search-input");
    fireEvent.change(input, { target: { value: "ZEBRAFISH" } });
    await act(async () => {
      fireEvent.submit(input.closest("form")!);
    });
    expect(commands.searchTranscripts).toHaveBeenCalledWith("ZEBRAFISH");
    const row = screen.getByTestId("search-hit");
    expect(screen.getByTestId("search-hit-path").textContent).toBe("main › Find the fish");
    expect(row.textContent).toContain("Survey the pond");
    expect(row.textContent).toContain("response");
    expect(row.querySelectorAll("mark")).toHaveLength(1);
    expect(row.querySelector("mark")?.textContent).toBe("ZEBRAFISH");
    expect(row.querySelector("img")).toBeNull();
    expect(row.textContent).toContain("<img src=x onerror=alert(1)>");

    // Clicking it opens the session at that agent.
    const e = eventMaker("s-past");
    const past = pastSession(
      [e.started("agent-main", null, "main"), e.started("agent-fish", "agent-main", "Find the fish")],
      [storedAgent("agent-main", null), storedAgent("agent-fish", "agent-main")],
    );
    commands.openSession.mockReturnValue(ok(past));
    commands.loadTranscript.mockReturnValue(ok({ events: [], more_before: false }));
    await act(async () => {
      fireEvent.click(row);
    });
    expect(commands.openSession).toHaveBeenCalledWith("s-past");
    expect(commands.loadTranscript).toHaveBeenCalledWith("s-past", "agent-fish", null);
    expect(bookStore.get().review?.sessionId).toBe("s-past");
    expect(uiStore.get()).toMatchObject({ view: "session", selected: "agent-fish" });

    // Clear goes back to the list.
    uiStore.set((s) => ({ ...s, view: "history" }));
    fireEvent.click(screen.getByTestId("search-clear"));
    expect(screen.queryByTestId("search-hit")).toBeNull();
    expect(screen.getByTestId("history-empty")).toBeTruthy();
  });

  it("folds one agent's hits that read alike under the first, and opens them on request", async () => {
    commands.listSessions.mockReturnValue(ok([]));
    const hits: SearchHit[] = Array.from({ length: 60 }, (_, i) => ({
      session_id: "s-past",
      session_prompt: "Wait for the build",
      agent_id: "agent-poll",
      agent_path: ["main", "Poll"],
      seq: 100 - i,
      ts: Date.now(),
      event_type: "tool_output",
      snippet: [
        { text: `check ${60 - i}: build `, hit: false },
        { text: "pending", hit: true },
      ],
    }));
    commands.searchTranscripts.mockReturnValue(ok(hits));
    await show();
    const input = screen.getByTestId("search-input");
    fireEvent.change(input, { target: { value: "pending" } });
    await act(async () => {
      fireEvent.submit(input.closest("form")!);
    });
    expect(screen.getAllByTestId("search-hit")).toHaveLength(1);
    const more = screen.getByTestId("search-hit-alike");
    expect(more.textContent).toBe("and 59 more like it from this agent");
    fireEvent.click(more);
    expect(screen.getAllByTestId("search-hit")).toHaveLength(60);
  });

  it("says when nothing matches", async () => {
    commands.listSessions.mockReturnValue(ok([]));
    commands.searchTranscripts.mockReturnValue(ok([]));
    await show();
    fireEvent.change(screen.getByTestId("search-input"), { target: { value: "nothing" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("search-submit"));
    });
    expect(screen.getByTestId("search-empty").textContent).toContain("No transcript mentions “nothing”");
  });
});
