/**
 * What decided each call, on its output card and its agent's tree line (a
 * person, with the reason; a rule: which, when, by whose answer), the
 * awaiting card's own Approve/Deny, and how requests ended in a reviewed session.
 */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { openPastSession } from "../../ipc/history";
import { select } from "../../store/ui";
import { answered, askFor, ran, rule, spawnPlan } from "../../test/approvals";
import { eventMaker } from "../../test/events";
import { pastSession, storedAgent } from "../../test/past";
import { applyEvents, resetStores, sessionInfo } from "../../test/stores";
import { AgentTree } from "../AgentTree";
import { OutputView } from "./OutputView";
import { withLayout } from "../../test/layout";

const commands = { sendCommand: vi.fn(), openSession: vi.fn(), loadTranscript: vi.fn() };
vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
vi.mock("@tauri-apps/api/core", () => ({ Channel: class {} }));

withLayout({ offsetHeight: 2000, offsetWidth: 800, clientHeight: 2000 });

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });
const subtree = rule("rule-1", { agent_id: "agent-main", request_id: "r1", scope: "subtree" });

function marks() {
  return screen.getAllByTestId("decided-by").map((m) => [m.dataset.kind, m.textContent ?? ""]);
}
function toolCard(text: string) {
  const el = [...screen.getByTestId("output").querySelectorAll<HTMLElement>(".tool")].find((t) => t.textContent?.includes(text));
  if (!el) throw new Error(`no tool card with ${text}`);
  return el;
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.sendCommand.mockResolvedValue(ok({ kind: "done" }));
  resetStores({ session: sessionInfo() });
});

describe("marks of what decided a call", () => {
  it("name the rule (set when, by whose answer) on the card and the tree line, and a person's answer with its reason", () => {
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Write docs"),
      ...askFor(e.make, "agent-main", "r1", { args: { file_path: "first.txt", content: "1" } }),
      answered(e.make, "agent-main", "r1", "approved", { scope: "subtree", rule: subtree }),
      ran(e.make, "agent-main", "c-r1", { kind: "person" }),
      ...askFor(e.make, "agent-main", "r2", { args: { file_path: "second.txt", content: "2" } }),
      answered(e.make, "agent-main", "r2", "denied", { reason: "wrong folder" }),
      // A later call of a subagent the rule covers: it never asked.
      e.make("agent-a", { type: "tool_call", call_id: "w9", tool_name: "Write", tool_args: { file_path: "third.txt", content: "3" } }),
      ran(e.make, "agent-a", "w9", { kind: "rule", rule: subtree }),
    ]);
    render(<OutputView />);
    expect(marks()).toEqual([
      ["person", expect.stringContaining("approved by you")],
      ["person", expect.stringContaining("denied by you: wrong folder")],
    ]);
    expect(within(toolCard("first.txt")).getByTestId("decided-by").textContent).toContain(
      "and set the rule: Write for “main” and all its subagents",
    );

    act(() => select("agent-a"));
    const mark = within(toolCard("third.txt")).getByTestId("decided-by");
    expect(mark.dataset.kind).toBe("rule");
    expect(mark.textContent).toContain("allowed by rule: Write for “main” and all its subagents");
    expect(mark.textContent).toMatch(/set \S+.* by your answer to “main”'s Write/);

    render(<AgentTree />);
    const line = screen.getAllByTestId("tree-node").find((n) => n.dataset.agentId === "agent-a")!;
    expect(within(line).getByTestId("decided-by").dataset.kind).toBe("rule");
    expect(within(line).getByTestId("decided-by").getAttribute("title")).toContain("by your answer to “main”'s Write");
    // On one line, but whole: which rule and whose answer set it.
    expect(within(line).getByTestId("decided-by").textContent).toMatch(/allowed by rule: .* by your answer to “main”'s Write/);
    const main = screen.getAllByTestId("tree-node").find((n) => n.dataset.agentId === "agent-main")!;
    expect(within(main).getByTestId("decided-by").textContent).toContain("denied by you: wrong folder");
  });

  it("mark a pending request answered by another's rule as the rule's", () => {
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      ...askFor(e.make, "agent-main", "r5", { args: { file_path: "x.txt", content: "x" } }),
      answered(e.make, "agent-main", "r5", "approved", { decidedBy: { kind: "rule", rule: subtree } }),
    ]);
    render(<OutputView />);
    expect(marks()).toEqual([["rule", expect.stringContaining("allowed by rule: Write for “main” and all its subagents")]]);
  });
});

describe("an awaiting call's card", () => {
  it("carries Approve and Deny for just this call", async () => {
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      ...askFor(e.make, "agent-main", "r1", { args: { file_path: "a.txt", content: "a" } }),
      ...askFor(e.make, "agent-main", "r2", { args: { file_path: "b.txt", content: "b" } }),
    ]);
    render(<OutputView />);
    await act(async () => {
      fireEvent.click(within(toolCard("a.txt")).getByTestId("tool-approve"));
    });
    expect(commands.sendCommand).toHaveBeenLastCalledWith("s-1", { type: "resolve_approval", request_id: "r1", approved: true, scope: "once" });
    await act(async () => {
      fireEvent.click(within(toolCard("b.txt")).getByTestId("tool-deny"));
    });
    expect(commands.sendCommand).toHaveBeenLastCalledWith("s-1", { type: "resolve_approval", request_id: "r2", approved: false, scope: "once" });
    expect(screen.queryAllByTestId("approval")).toHaveLength(0);
  });
});

describe("a reviewed session's transcript", () => {
  it("shows how each request ended and by what: a person (reason, spawn edits), a rule, withdrawn, never answered", async () => {
    const e = eventMaker("s-past");
    const events = [
      e.started("agent-main", null, "main"),
      ...askFor(e.make, "agent-main", "r1", { args: { file_path: "one.txt", content: "1" } }),
      answered(e.make, "agent-main", "r1", "denied", { reason: "not there" }),
      ...askFor(e.make, "agent-main", "r2", {
        tool: "Task",
        args: { prompt: "p", description: "Spawned helper" },
        preview: { kind: "spawn", ...spawnPlan() },
      }),
      answered(e.make, "agent-main", "r2", "approved", { edit: { model: "claude-small", tools: ["Read"] } }),
      ...askFor(e.make, "agent-main", "r3", { args: { file_path: "three.txt", content: "3" } }),
      answered(e.make, "agent-main", "r3", "approved", { decidedBy: { kind: "rule", rule: subtree } }),
      ...askFor(e.make, "agent-main", "r4", { tool: "Bash", args: { command: "sleep 100" } }),
      answered(e.make, "agent-main", "r4", "withdrawn"),
      ...askFor(e.make, "agent-main", "r6", { args: { file_path: "six.txt", content: "6" } }),
    ];
    commands.openSession.mockReturnValue(ok(pastSession(events, [storedAgent("agent-main", null, { description: "main" })])));
    await act(async () => {
      await openPastSession("s-past");
    });
    render(<OutputView />);
    expect(within(toolCard("one.txt")).getByTestId("decided-by").textContent).toContain("denied by you: not there");
    const spawn = toolCard("Spawned helper");
    expect(within(spawn).getByTestId("decided-by").textContent).toContain("approved by you");
    expect(within(spawn).getByTestId("spawn-edit").textContent).toContain("model claude-test → claude-small, without Write, Bash");
    expect(within(toolCard("three.txt")).getByTestId("decided-by").textContent).toContain("allowed by rule: Write for “main” and all its subagents");
    expect(toolCard("sleep 100").textContent).toContain("Withdrawn — the agent was stopped");
    expect(within(toolCard("six.txt")).getByTestId("approval-unanswered")).toBeTruthy();
    expect(screen.queryByTestId("tool-approve")).toBeNull();
  });
});
