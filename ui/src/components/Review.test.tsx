import { act, fireEvent, render, screen } from "@testing-library/react";
import type { UsageUpdate } from "../bindings";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { openPastSession } from "../ipc/history";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent } from "../test/past";
import { applyEvents, resetStores, sessionInfo } from "../test/stores";
import { agentUsage, figures, usageUpdate } from "../test/usage";
import { AgentTree } from "./AgentTree";
import { ApprovalInbox } from "./ApprovalInbox";
import { ErrorBanners } from "./ErrorBanners";
import { OutputView } from "./output/OutputView";
import { PromptBox } from "./PromptBox";
import { ReviewBanner } from "./ReviewBanner";
import { StatusBar } from "./StatusBar";
import { withLayout } from "../test/layout";

const commands = {
  thisPage: vi.fn(() => Promise.resolve(7)),
  openSession: vi.fn(), loadTranscript: vi.fn(), resumeSession: vi.fn(), sendCommand: vi.fn() };
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
vi.mock("@tauri-apps/api/core", () => ({ Channel: class {} }));

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  resetStores();
});

async function review(usage?: UsageUpdate) {
  const e = eventMaker("s-past");
  const events = [
    e.started("agent-main", null, "main"),
    e.status("agent-main", "running"),
    e.started("agent-a", "agent-main", "Write the tests"),
    e.status("agent-a", "running"),
    e.approval("agent-a", "r1", "c1", ["main", "Write the tests"]),
    e.make("agent-main", { type: "response", content: "Newest main text" }),
  ];
  const agents = [
    storedAgent("agent-main", null, { status: "interrupted" }),
    storedAgent("agent-a", "agent-main", { status: "interrupted", description: "Write the tests" }),
  ];
  commands.openSession.mockReturnValue(ok(pastSession(events, agents, { status: "interrupted" }, true, usage)));
  await act(async () => {
    await openPastSession("s-past");
  });
}

describe("a past session under review", () => {
  it("is read-only: no node actions, no approval answers; the banner says so", async () => {
    await review();
    render(
      <>
        <ReviewBanner />
        <AgentTree />
        <ApprovalInbox />
      </>,
    );
    expect(screen.getByTestId("review-banner").textContent).toContain("Past session · Mar 14, 2025 10:00 · read-only");
    expect(screen.getByTestId("close-review")).toBeTruthy();
    expect(screen.queryByTestId("back-to-live")).toBeNull();
    const statuses = screen.getAllByTestId("tree-node").map((n) => n.dataset.status);
    expect(statuses).toEqual(["interrupted", "interrupted"]);
    for (const id of ["node-delegate", "node-message", "node-stop", "node-resume", "approve", "deny"]) {
      expect(screen.queryByTestId(id)).toBeNull();
    }
    // The inbox is the live session's (none here): the reviewed session's open request is not in it.
    expect(screen.queryAllByTestId("approval")).toHaveLength(0);
    expect(screen.getByText("Nothing to approve")).toBeTruthy();
  });

  it("shows the stored usage figures in the tree, the output head and the status bar", async () => {
    await review(
      usageUpdate(
        [agentUsage("agent-main", figures(1000, 0.5), figures(4000, 1.25)), agentUsage("agent-a", figures(3000, 0.75))],
        figures(4000, 1.25),
      ),
    );
    render(
      <>
        <AgentTree />
        <OutputView />
        <StatusBar />
      </>,
    );
    const row = (id: string) => screen.getAllByTestId("tree-node").find((n) => n.dataset.agentId === id);
    expect(row("agent-main")?.textContent).toContain("1.0k tok · $0.50");
    expect(row("agent-a")?.textContent).toContain("3.0k tok · $0.75");
    expect(screen.getByTestId("output").querySelector(".output-header")?.textContent).toContain("1.0k tokens · $0.50");
    expect(screen.getByTestId("total-tokens").textContent).toContain("4000 tokens");
    expect(screen.getByTestId("total-tokens").textContent).toContain("$1.25");
    // Folded, the main agent shows its whole subtree's, as Rust summed it.
    fireEvent.click(row("agent-main")!.querySelector("button.twisty")!);
    expect(row("agent-main")?.textContent).toContain("Σ 4.0k tok · $1.25");
  });

  it("offers Load earlier and Export in the output, and Continue this session in the prompt", async () => {
    await review();
    commands.resumeSession.mockReturnValue(ok({ info: sessionInfo({ session_id: "s-past" }), through: 6 }));
    render(
      <>
        <OutputView />
        <PromptBox />
      </>,
    );
    expect(screen.getByTestId("output").textContent).toContain("Newest main text");
    expect(screen.getByTestId("load-earlier")).toBeTruthy();
    fireEvent.click(screen.getByTestId("export-menu"));
    expect(screen.getAllByRole("menuitem").map((m) => m.textContent)).toEqual([
      "Session as Markdown",
      "Session as JSON",
      "This agent as Markdown",
      "This agent as JSON",
    ]);
    expect(screen.queryByTestId("send")).toBeNull();
    await act(async () => {
      fireEvent.click(screen.getByTestId("resume-session"));
    });
    expect(commands.resumeSession).toHaveBeenCalledWith("s-past", null, 7, expect.anything());
    expect(uiStore.get().session?.session_id).toBe("s-past");
    expect(screen.getByTestId("send")).toBeTruthy();
  });
});

describe("a live session", () => {
  it("offers Resume on agents that ended without finishing, and sends it", async () => {
    resetStores({ session: sessionInfo() });
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      e.started("agent-a", "agent-main", "A"),
      e.status("agent-a", "cancelled"),
      e.started("agent-b", "agent-main", "B"),
      e.status("agent-b", "completed"),
    ]);
    commands.sendCommand.mockReturnValue(ok({ kind: "done" }));
    render(<AgentTree />);
    // Every row's actions, as hovering each shows them.
    for (const row of screen.getAllByTestId("tree-node")) fireEvent.mouseEnter(row);
    const resume = screen.getAllByTestId("node-resume");
    expect(resume).toHaveLength(1);
    expect(resume[0]?.closest("[data-agent-id]")?.getAttribute("data-agent-id")).toBe("agent-a");
    await act(async () => {
      fireEvent.click(resume[0]!);
    });
    expect(commands.sendCommand).toHaveBeenCalledWith("s-1", { type: "resume", agent_id: "agent-a", text: null });
  });

  it("shows the transcript store's problem until dismissed", () => {
    resetStores({
      app: {
        taken: 1,
        settings: {},
        settings_problem: null,
        providers: [],
        keyring: { available: true, problem: null },
        sessions: [],
        default_workspace: "/",
        tools: [],
        transcripts: { path: "/d/arbor.db", problem: "transcripts are not being saved: /d/arbor.db is locked" },
        sandbox: { mechanism: "bubblewrap 0.8.0", problem: null },
        interrupted: [],
        claude_code_dir: null,
      },
    });
    render(<ErrorBanners />);
    expect(screen.getByTestId("transcripts-problem").textContent).toContain("/d/arbor.db is locked");
    fireEvent.click(screen.getByLabelText("Dismiss"));
    expect(screen.queryByTestId("transcripts-problem")).toBeNull();
  });
});
