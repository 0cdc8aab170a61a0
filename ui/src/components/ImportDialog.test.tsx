import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ImportReport, SearchHit } from "../bindings";
import { openPastSession } from "../ipc/history";
import { bookStore } from "../store/review";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent, summary } from "../test/past";
import { resetStores } from "../test/stores";
import { AgentTree } from "./AgentTree";
import { HistoryPanel } from "./HistoryPanel";
import { PromptBox } from "./PromptBox";
import { ReviewBanner } from "./ReviewBanner";

const commands = {
  listSessions: vi.fn(),
  importClaudeCode: vi.fn(),
  openSession: vi.fn(),
  loadTranscript: vi.fn(),
  searchTranscripts: vi.fn(),
  sessionChanges: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });
const fail = (kind: string, message: string) => Promise.resolve({ status: "error" as const, error: { kind, message } });

const firstImport: ImportReport = {
  dir: "/home/me/.claude/projects",
  sessions: [
    { session_id: "cc-1", first_prompt: "Fix the flaky test", outcome: "added", subagents: 2, events: 340 },
    { session_id: "cc-2", first_prompt: "Write the README", outcome: "added", subagents: 0, events: 60 },
  ],
  problems: [{ file: "-home-me-pond/cc-1.jsonl", line: 7, message: "not JSON: expected value at column 1" }],
  skipped: { "queue-operation": 4, summary: 1 },
  bytes: 48_000,
  elapsed_ms: 120,
};
const again: ImportReport = {
  ...firstImport,
  sessions: firstImport.sessions.map((s) => ({ ...s, outcome: "unchanged", events: 0 })),
  problems: [],
  skipped: {},
};
const imported = [
  summary({ id: "cc-1", first_prompt: "Fix the flaky test", source: "claude_code" }),
  summary({ id: "cc-2", first_prompt: "Write the README", source: "claude_code" }),
  summary({ id: "s-own", first_prompt: "Arbor's own", source: "arbor" }),
];

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.sessionChanges.mockReturnValue(ok([]));
  resetStores({ view: "history" });
});

async function show() {
  await act(async () => {
    render(<HistoryPanel />);
  });
}

describe("importing Claude Code sessions", () => {
  it("imports the folder given (empty: Claude Code's own), reports what it did, and lists the sessions", async () => {
    commands.listSessions.mockReturnValue(ok([]));
    await show();
    fireEvent.click(screen.getByTestId("import-open"));
    const dialog = screen.getByTestId("import-dialog");
    expect(dialog.getAttribute("aria-label")).toBe("Import Claude Code sessions");
    const dir = within(dialog).getByTestId<HTMLInputElement>("import-dir");
    expect(dir.placeholder).toContain("~/.claude/projects");

    // A folder that is not there: Rust's words, in the dialog.
    commands.importClaudeCode.mockReturnValue(fail("import", "no such folder: /nope"));
    fireEvent.change(dir, { target: { value: " /nope " } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId("import-run"));
    });
    expect(commands.importClaudeCode).toHaveBeenLastCalledWith("/nope");
    expect(within(dialog).getByTestId("import-error").textContent).toBe("no such folder: /nope");

    // Empty: Claude Code's default folder (null).
    commands.importClaudeCode.mockReturnValue(ok(firstImport));
    commands.listSessions.mockReturnValue(ok(imported));
    fireEvent.change(dir, { target: { value: "" } });
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId("import-run"));
    });
    expect(commands.importClaudeCode).toHaveBeenLastCalledWith(null);
    expect(screen.queryByTestId("import-error")).toBeNull();
    expect(within(dialog).getByTestId("import-summary").textContent).toBe("2 added, 0 unchanged");
    expect(within(dialog).getByTestId("import-figures").textContent).toBe(
      "400 events stored · 2 subagents · 47 KB read in 120 ms",
    );
    expect(within(dialog).getByTestId("import-problems").textContent).toBe(
      "-home-me-pond/cc-1.jsonl:7: not JSON: expected value at column 1",
    );
    expect(within(dialog).getByTestId("import-skipped").textContent).toBe(
      "Not kept (Claude Code's own bookkeeping): 4 queue-operation, 1 summary",
    );
    const links = within(dialog).getAllByTestId("import-session");
    expect(links.map((l) => l.dataset.sessionId)).toEqual(["cc-1", "cc-2"]);
    expect(links[0]?.textContent).toContain("Fix the flaky test");
    expect(links[0]?.textContent).toContain("+2 subagents · 340 events");

    // The history list reloaded: the imported sessions are there, badged.
    const rows = screen.getAllByTestId("history-row");
    expect(rows.map((r) => r.dataset.sessionId)).toEqual(["cc-1", "cc-2", "s-own"]);
    expect(within(rows[0]!).getByTestId("history-source").textContent).toBe("Claude Code");
    expect(within(rows[2]!).queryByTestId("history-source")).toBeNull();

    // Again: nothing new.
    commands.importClaudeCode.mockReturnValue(ok(again));
    await act(async () => {
      fireEvent.click(within(dialog).getByTestId("import-run"));
    });
    expect(within(dialog).getByTestId("import-summary").textContent).toBe("0 added, 2 unchanged");
    expect(within(dialog).queryByTestId("import-problems")).toBeNull();
    expect(within(dialog).queryByTestId("import-skipped")).toBeNull();

    // A session of the report opens for review, and the dialog closes.
    const e = eventMaker("cc-2");
    commands.openSession.mockReturnValue(
      ok(pastSession([e.started("agent-main", null, "main")], [storedAgent("agent-main", null)], { id: "cc-2", source: "claude_code" })),
    );
    await act(async () => {
      fireEvent.click(within(dialog).getAllByTestId("import-session")[1]!);
    });
    expect(commands.openSession).toHaveBeenCalledWith("cc-2");
    expect(bookStore.get().review?.sessionId).toBe("cc-2");
    expect(uiStore.get()).toMatchObject({ view: "session", dialog: null });
  });

  it("badges a search hit in an imported session", async () => {
    commands.listSessions.mockReturnValue(ok(imported));
    const hit = (session: string, source: SearchHit["source"]): SearchHit => ({
      session_id: session,
      source,
      session_prompt: "p",
      agent_id: "agent-main",
      agent_path: ["main"],
      seq: 3,
      ts: Date.now(),
      event_type: "imported_entry",
      snippet: [{ text: "flaky", hit: true }],
    });
    commands.searchTranscripts.mockReturnValue(ok([hit("cc-1", "claude_code"), hit("s-own", "arbor")]));
    await show();
    fireEvent.change(screen.getByTestId("search-input"), { target: { value: "flaky" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("search-submit"));
    });
    const hits = screen.getAllByTestId("search-hit");
    expect(within(hits[0]!).getByTestId("hit-source").textContent).toBe("Claude Code");
    expect(hits[0]?.textContent).toContain("imported entry");
    expect(within(hits[1]!).queryByTestId("hit-source")).toBeNull();
  });

  it("reviews an imported session read-only: badged, and nothing offers to continue or change it", async () => {
    const e = eventMaker("cc-1");
    commands.openSession.mockReturnValue(
      ok(
        pastSession(
          [e.started("agent-main", null, "main"), e.status("agent-main", "failed")],
          [storedAgent("agent-main", null, { status: "failed" })],
          { id: "cc-1", source: "claude_code", status: "failed" },
        ),
      ),
    );
    await act(async () => {
      await openPastSession("cc-1");
    });
    render(
      <>
        <ReviewBanner />
        <AgentTree />
        <PromptBox />
      </>,
    );
    expect(screen.getByTestId("review-source").textContent).toBe("Claude Code");
    expect(screen.getByTestId("review-banner").textContent).toContain("Imported session");
    expect(screen.getByTestId("imported-note").textContent).toContain("Imported from Claude Code: read-only");
    for (const id of ["resume-session", "prompt-input", "node-delegate", "node-message", "node-resume", "node-raise-budget"]) {
      expect(screen.queryByTestId(id)).toBeNull();
    }
  });
});
