import { describe, expect, it } from "vitest";
import { OUTCOME_WORDS } from "../lib/tree";
import type { AgentStatus } from "../bindings";
import { eventMaker } from "../test/events";
import {
  agentBudget,
  agentPrompt,
  agentStanding,
  canRaiseBudget,
  canResume,
  exhaustedOwner,
  sessionStanding,
  approvalAgentLabel,
  approvalMcp,
  childrenByCall,
  effectiveSelection,
  filterHidesSeq,
  lastTool,
  pendingApprovals,
  rowForSeq,
  subagentStatusCounts,
  subtreeSizes,
  runOf,
  sessionActive,
  totalElapsedMs,
  treePath,
  visibleItems,
  visibleRows,
} from "./selectors";
import { SHOW_ALL, toggleKind } from "../lib/outputFilter";
import { initialSession } from "./session/reducer";
import { reduce, reduceBatch } from "../test/agents";
import { withUsage } from "./session/usage";
import { agentUsage, budget, figures, standing, usageUpdate } from "../test/usage";
import { answered, askFor, rule as aRule } from "../test/approvals";

function tree() {
  const e = eventMaker();
  const s = reduceBatch(initialSession(), [
    e.started("agent-main", null, "main"),
    e.make("agent-main", {
      type: "tool_call",
      call_id: "call-a",
      tool_name: "Task",
      tool_args: { prompt: "Write tests for x", description: "Write the tests", subagent_type: "tester" },
    }),
    e.started("agent-a", "agent-main", "Write the tests", { parent_call_id: "call-a", subagent_type: "tester" }),
    e.started("agent-a1", "agent-a", "Deep helper", { depth: 2 }),
    e.started("agent-b", "agent-main", "Survey"),
  ]);
  return { e, s };
}

describe("subtree sizes", () => {
  it("counts each agent's descendants", () => {
    const { s } = tree();
    expect(subtreeSizes(s.agents)).toMatchObject({ "agent-main": 3, "agent-a": 1, "agent-a1": 0 });
  });

  it("is memoised on the agents record", () => {
    const { s } = tree();
    expect(subtreeSizes(s.agents)).toBe(subtreeSizes(s.agents));
  });
});

describe("the MCP tool of an approval", () => {
  it("comes from the tool call the request is about", () => {
    const { e, s } = tree();
    const mcp = { server: "everything", tool: "echo" };
    const next = reduceBatch(s, [
      e.make("agent-a", { type: "tool_call", call_id: "m1", tool_name: "mcp__everything__echo", tool_args: {}, mcp }),
      e.make("agent-a", { type: "tool_call", call_id: "w1", tool_name: "Write", tool_args: {} }),
    ]);
    expect(approvalMcp(next, { agentId: "agent-a", callId: "m1" })).toEqual(mcp);
    expect(approvalMcp(next, { agentId: "agent-a", callId: "w1" })).toBeNull();
    // The call not loaded (yet): the request's own name is shown as it is.
    expect(approvalMcp(next, { agentId: "agent-a", callId: "nope" })).toBeNull();
    expect(approvalMcp(next, { agentId: "agent-x", callId: "m1" })).toBeNull();
  });
});

describe("status counts", () => {
  const counted = (agents: Parameters<typeof subagentStatusCounts>[0]) =>
    Object.fromEntries(subagentStatusCounts(agents).map((c) => [c.status, c.n]));

  it("counts subagents only, by status: those at work, completed and failed always", () => {
    const { e, s } = tree();
    const next = reduceBatch(s, [
      e.status("agent-main", "running"),
      e.status("agent-a", "running"),
      e.status("agent-a1", "waiting_approval"),
      e.status("agent-b", "failed"),
    ]);
    expect(counted(next.agents)).toEqual({ queued: 0, running: 1, waiting_approval: 1, completed: 0, failed: 1 });
    // In the order of Rust's statuses.
    expect(subagentStatusCounts(next.agents).map((c) => c.status)).toEqual([
      "queued",
      "running",
      "waiting_approval",
      "completed",
      "failed",
    ]);
  });

  it("counts every other end apart, once some subagent has it", () => {
    const { e, s } = tree();
    const next = reduceBatch(s, [
      e.status("agent-a", "cancelled"),
      e.status("agent-a1", "interrupted"),
      e.status("agent-b", "budget_exhausted"),
    ]);
    expect(counted(next.agents)).toEqual({
      queued: 0,
      running: 0,
      waiting_approval: 0,
      completed: 0,
      failed: 0,
      cancelled: 1,
      interrupted: 1,
      budget_exhausted: 1,
    });
    const later = reduceBatch(next, [e.status("agent-a", "max_turns"), e.status("agent-a1", "truncated")]);
    expect(counted(later.agents)).toMatchObject({ max_turns: 1, truncated: 1, budget_exhausted: 1 });
    expect(counted(later.agents)).not.toHaveProperty("cancelled");
    // The same list while the agents are the same.
    expect(subagentStatusCounts(later.agents)).toBe(subagentStatusCounts(later.agents));
  });
});

describe("visible rows", () => {
  it("flattens the tree depth-first and hides collapsed subtrees", () => {
    const { s } = tree();
    const all = visibleRows(s, {});
    expect(all.map((r) => [r.id, r.level])).toEqual([
      ["agent-main", 0],
      ["agent-a", 1],
      ["agent-a1", 2],
      ["agent-b", 1],
    ]);
    expect(all[1]).toMatchObject({ hasChildren: true, expanded: true, parentId: "agent-main" });
    const collapsed = visibleRows(s, { "agent-a": true });
    expect(collapsed.map((r) => r.id)).toEqual(["agent-main", "agent-a", "agent-b"]);
    expect(collapsed[1]).toMatchObject({ expanded: false, hasChildren: true });
    // Each row's place among its siblings, for aria-posinset and aria-setsize.
    expect(all.map((r) => [r.id, r.posInSet, r.setSize])).toEqual([
      ["agent-main", 1, 1],
      ["agent-a", 1, 2],
      ["agent-a1", 1, 1],
      ["agent-b", 2, 2],
    ]);
    expect(visibleRows(s, { "agent-main": true }).map((r) => r.id)).toEqual(["agent-main"]);
  });

  it("gives the same rows back while the tree's shape is the same, and new objects only for rows that changed", () => {
    const { e, s } = tree();
    const before = visibleRows(s, {});
    // Streamed text and a status change: every agent record is new, the shape is not.
    const streamed = reduceBatch(s, [e.make("agent-a", { type: "response_chunk", content: "more" }), e.status("agent-b", "running")]);
    expect(streamed.agents).not.toBe(s.agents);
    expect(visibleRows(streamed, {})).toBe(before);
    // A new subagent under agent-b: agent-b's row (now a parent) and the new row are new, the others kept.
    const grown = reduceBatch(streamed, [e.started("agent-b1", "agent-b", "Child of b", { depth: 2 })]);
    const after = visibleRows(grown, {});
    expect(after.map((r) => r.id)).toEqual(["agent-main", "agent-a", "agent-a1", "agent-b", "agent-b1"]);
    expect(after.slice(0, 3)).toEqual(before.slice(0, 3));
    expect(after.slice(0, 3).every((r, i) => r === before[i])).toBe(true);
    expect(after[3]).not.toBe(before[3]);
    expect(after[3]).toMatchObject({ id: "agent-b", hasChildren: true });
  });
});

describe("approvals", () => {
  it("lists pending approvals in order and labels their agent", () => {
    const { e, s } = tree();
    const next = reduceBatch(s, [
      e.approval("agent-a1", "r1", "c1", ["main", "Write the tests", "Deep helper"]),
      e.approval("agent-b", "r2", "c2", ["main", "Survey"]),
    ]);
    const list = pendingApprovals(next);
    expect(list.map((a) => a.requestId)).toEqual(["r1", "r2"]);
    expect(pendingApprovals(next)).toBe(list);
    const first = list[0]!;
    expect(approvalAgentLabel(next.agents[first.agentId], first)).toEqual({
      description: "Deep helper",
      id: "agent-a1",
      path: "main › Write the tests › Deep helper",
    });
    const after = reduce(next, e.resolved("agent-a1", "r1", "approved"));
    expect(pendingApprovals(after).map((a) => a.requestId)).toEqual(["r2"]);
    // The main agent's own request: named once, no path repeating it.
    const own = reduce(after, e.approval("agent-main", "r3", "c3", ["main"]));
    const mine = pendingApprovals(own).find((a) => a.requestId === "r3")!;
    expect(approvalAgentLabel(own.agents["agent-main"], mine)).toEqual({ description: "main", id: "agent-main", path: "" });
  });
});

describe("agent output", () => {
  it("hides subagents' thinking unless asked, never the main agent's", () => {
    const { e, s } = tree();
    const next = reduceBatch(s, [
      e.make("agent-a", { type: "thoughts", content: "thinking" }),
      e.make("agent-a", { type: "response", content: "answer" }),
      e.make("agent-main", { type: "thoughts", content: "main thinking" }),
    ]);
    expect(visibleItems(next, "agent-a", false).map((i) => i.kind)).toEqual(["response"]);
    expect(visibleItems(next, "agent-a", true).map((i) => i.kind)).toEqual(["thoughts", "response"]);
    expect(visibleItems(next, "agent-main", false).map((i) => i.kind)).toEqual(["tool", "thoughts"]);
    expect(visibleItems(next, "agent-a", false)).toBe(visibleItems(next, "agent-a", false));
    expect(visibleItems(next, "nobody", false)).toEqual([]);
  });

  it("finds a subagent's task from its parent's Task call, and the child of a call", () => {
    const { s } = tree();
    expect(agentPrompt(s, "agent-a")).toBe("Write tests for x");
    expect(agentPrompt(s, "agent-b")).toBeNull();
    expect(childrenByCall(s.agents)["call-a"]).toBe("agent-a");
    expect(treePath(s, "agent-a1")).toEqual(["main", "Write the tests", "Deep helper"]);
  });

  it("selects the main agent when nothing (or a vanished agent) is selected", () => {
    const { s } = tree();
    expect(effectiveSelection(s, null)).toBe("agent-main");
    expect(effectiveSelection(s, "agent-b")).toBe("agent-b");
    expect(effectiveSelection(s, "agent-gone")).toBe("agent-main");
    expect(effectiveSelection(initialSession(), null)).toBeNull();
  });
});

describe("resume and search-hit rows", () => {
  it("offers Resume to agents that ended without finishing", () => {
    expect(["cancelled", "failed", "interrupted", "max_turns", "truncated"].every((s) => canResume(s as AgentStatus))).toBe(true);
    expect(["completed", "running", "queued", "waiting_approval"].some((s) => canResume(s as AgentStatus))).toBe(false);
    // One its budget stopped carries on by raising the budget: a plain new run would stop again.
    expect(canResume("budget_exhausted")).toBe(false);
    expect(canRaiseBudget("budget_exhausted")).toBe(true);
    expect(["cancelled", "failed", "completed", "running"].some((s) => canRaiseBudget(s as AgentStatus))).toBe(false);
  });

  it("finds the row holding an event: the last row starting at or before it", () => {
    const keys = ["earlier", "task", "e4", "e9", "e15"];
    expect(rowForSeq(keys, 4)).toBe(2);
    expect(rowForSeq(keys, 12)).toBe(3);
    expect(rowForSeq(keys, 99)).toBe(4);
    expect(rowForSeq(keys, 2)).toBe(-1);
    expect(rowForSeq([], 2)).toBe(-1);
  });
});

describe("budgets", () => {
  it("reads each agent's standing as Rust sent it, the session's being the main agent's", () => {
    const { e, s } = tree();
    expect(sessionStanding(s)).toBeNull();
    const main = standing({ max_tokens: 10_000 }, { tokens: 4200 }, 0.42, "tokens");
    const next = withUsage(s, [usageUpdate([agentUsage("agent-main", figures(0), figures(4200), main)], figures(4200))]);
    expect(sessionStanding(next)).toBe(main);
    expect(agentStanding(next, "agent-a")).toBeNull();
    // The budget: its budget_set's, else the one its standing is of.
    expect(agentBudget(next, "agent-main")).toEqual(budget({ max_tokens: 10_000 }));
    const change = e.make("agent-main", { type: "budget_set", budget: budget({ max_cost_usd: 3 }), origin: "person", carved: [] });
    const set = reduce(next, change);
    expect(agentBudget(set, "agent-main")).toEqual(budget({ max_cost_usd: 3 }));
    expect(agentBudget(set, "agent-b")).toBeNull();
  });

  it("finds whose budget ran out: the agent's own, or the nearest above it", () => {
    const { s } = tree();
    const out = standing({ max_tokens: 100 }, { tokens: 120 }, 1.2, "tokens", "tokens");
    const ok = standing({ max_tokens: 1000 }, { tokens: 10 }, 0.01, "tokens");
    const withMain = withUsage(s, [
      usageUpdate(
        [agentUsage("agent-main", figures(0), figures(120), out), agentUsage("agent-a", figures(0), figures(10), ok)],
        figures(120),
      ),
    ]);
    expect(exhaustedOwner(withMain, "agent-a1")).toBe("agent-main");
    expect(exhaustedOwner(withMain, "agent-main")).toBe("agent-main");
    const own = withUsage(withMain, [usageUpdate([agentUsage("agent-a", figures(0), figures(10), out)], figures(120))]);
    expect(exhaustedOwner(own, "agent-a1")).toBe("agent-a");
    expect(exhaustedOwner(s, "agent-a1")).toBeNull();
  });
});

describe("runs: wall time, turns and which run a result ended", () => {
  /** A main agent that ran, finished, was resumed and finished again; each run's times as given. */
  function twoRuns() {
    const e = eventMaker();
    const at = <T extends { ts: number }>(ev: T, ts: number): T => ({ ...ev, ts });
    const finished = (ts: number, turns: number, ms: number) =>
      at(
        e.make("agent-main", {
          type: "agent_finished",
          status: "completed",
          result: "done",
          error: null,
          turns,
          duration_ms: ms,
          files_modified: [],
        }),
        ts,
      );
    const first = [
      at(e.started("agent-main", null, "main"), 0),
      at(e.status("agent-main", "running"), 1_000),
      at(e.usage("agent-main", 10, 1), 5_000),
      at(e.status("agent-main", "completed"), 11_000),
      finished(11_000, 1, 10_000),
    ];
    const resumed = [at(e.status("agent-main", "queued"), 20_000), at(e.status("agent-main", "running"), 21_000)];
    const second = [
      at(e.usage("agent-main", 10, 1), 30_000),
      at(e.usage("agent-main", 10, 1), 40_000),
      at(e.status("agent-main", "completed"), 51_000),
      finished(51_000, 2, 30_000),
    ];
    return { first, resumed, second };
  }

  it("adds up every run's wall time, the current one's so far; nothing before the first run", () => {
    const { first, resumed, second } = twoRuns();
    const started = reduceBatch(initialSession(), first.slice(0, 1));
    expect(totalElapsedMs(started.agents["agent-main"]!, 99_000)).toBeNull();
    let s = reduceBatch(initialSession(), first);
    expect(totalElapsedMs(s.agents["agent-main"]!, 99_000)).toBe(10_000);
    s = reduceBatch(s, resumed);
    // Running again: the first run's 10 s and this one's 4 s so far (not the time queued).
    expect(totalElapsedMs(s.agents["agent-main"]!, 25_000)).toBe(14_000);
    expect(sessionActive(s)).toBe(true);
    s = reduceBatch(s, second);
    expect(totalElapsedMs(s.agents["agent-main"]!, 99_000)).toBe(40_000);
    expect(s.agents["agent-main"]?.turns).toBe(3);
    expect(sessionActive(s)).toBe(false);
  });

  it("places a result among the agent's runs, a run under way counted too", () => {
    const { first, resumed, second } = twoRuns();
    const k1 = `e${first[4]!.seq}`;
    const k2 = `e${second[3]!.seq}`;
    let s = reduceBatch(initialSession(), first);
    expect(runOf(s, "agent-main", k1)).toEqual({ index: 1, total: 1, latest: true });
    s = reduceBatch(s, resumed);
    expect(runOf(s, "agent-main", k1)).toEqual({ index: 1, total: 2, latest: false });
    // The same answer for the same state (components read it through useSyncExternalStore).
    expect(runOf(s, "agent-main", k1)).toBe(runOf(s, "agent-main", k1));
    s = reduceBatch(s, second);
    expect(runOf(s, "agent-main", k1)).toEqual({ index: 1, total: 2, latest: false });
    expect(runOf(s, "agent-main", k2)).toEqual({ index: 2, total: 2, latest: true });
    expect(runOf(s, "agent-main", "e9999")).toBeNull();
    expect(runOf(s, "agent-gone", k1)).toBeNull();
  });

  it("says when the output filter hides the row of an event", () => {
    const { first } = twoRuns();
    const s = reduceBatch(initialSession(), first);
    const items = s.agents["agent-main"]?.items ?? [];
    const seq = first[4]!.seq;
    expect(filterHidesSeq(items, SHOW_ALL, seq)).toBe(false);
    // A completed result is context: no filter hides it.
    expect(filterHidesSeq(items, toggleKind(SHOW_ALL, "errors"), seq)).toBe(false);
  });
});

describe("the last tool of an agent", () => {
  it("says a write a person denied was denied, with the reason, even after the agent completed", () => {
    const { e, s } = tree();
    const asked = reduceBatch(s, askFor(e.make, "agent-a", "r-1", { args: { file_path: "CHANGELOG.md", content: "x" } }));
    expect(lastTool(asked, "agent-a")).toEqual({
      summary: "Write CHANGELOG.md",
      mcp: false,
      outcome: "waiting",
      note: "waiting for your approval",
    });
    const denied = reduceBatch(asked, [
      answered(e.make, "agent-a", "r-1", "denied", { reason: "keep it short" }),
      e.make("agent-a", { type: "tool_output", call_id: "c-r-1", content: "This Write call was denied", is_error: true, decided_by: { kind: "person" } }),
      e.status("agent-a", "completed"),
    ]);
    expect(lastTool(denied, "agent-a")).toMatchObject({ outcome: "denied", note: "denied by you: keep it short" });
    // The same object while nothing it reads changed.
    expect(lastTool(denied, "agent-a")).toBe(lastTool(reduceBatch(denied, [e.status("agent-b", "running")]), "agent-a"));
  });

  it("tells a rule's refusal, a withdrawn request, an error and a call that ran apart", () => {
    const { e, s } = tree();
    const refused = aRule("rule-1", { approved: false });
    const next = reduceBatch(s, [
      // A standing rule refused it without asking: only the tool_output says so.
      e.make("agent-a", { type: "tool_call", call_id: "w1", tool_name: "Write", tool_args: { file_path: "a.md" } }),
      e.make("agent-a", { type: "tool_output", call_id: "w1", content: "refused", is_error: true, decided_by: { kind: "rule", rule: refused } }),
      ...askFor(e.make, "agent-a1", "r-2"),
      answered(e.make, "agent-a1", "r-2", "withdrawn"),
      e.make("agent-b", { type: "tool_call", call_id: "b1", tool_name: "Bash", tool_args: { command: "make" } }),
      e.make("agent-b", { type: "tool_output", call_id: "b1", content: "make: *** No rule\nmore", is_error: true, decided_by: { kind: "policy" } }),
      e.make("agent-main", { type: "tool_call", call_id: "m1", tool_name: "Read", tool_args: { file_path: "x" } }),
    ]);
    expect(lastTool(next, "agent-a")).toMatchObject({ outcome: "denied", note: "refused by a standing rule" });
    expect(lastTool(next, "agent-a1")?.outcome).toBe("not_run");
    expect(lastTool(next, "agent-b")).toMatchObject({ summary: "Bash make", outcome: "failed", note: "make: *** No rule" });
    expect(lastTool(next, "agent-main")).toMatchObject({ outcome: "running", note: null });
    const done = reduceBatch(next, [
      e.make("agent-main", { type: "tool_output", call_id: "m1", content: "ok", is_error: false, decided_by: { kind: "policy" } }),
    ]);
    expect(lastTool(done, "agent-main")).toMatchObject({ summary: "Read x", outcome: "ran", note: null });
    expect(lastTool(done, "agent-x")).toBeNull();
  });

  it("shows how a parent ended, not a failed call it went past (its child was stopped, then it completed)", () => {
    const { e, s } = tree();
    const stopped = reduceBatch(s, [
      e.make("agent-main", { type: "tool_call", call_id: "t1", tool_name: "Task", tool_args: { description: "Survey" } }),
      e.make("agent-main", { type: "tool_output", call_id: "t1", content: "Subagent error: stopped by the user", is_error: true, decided_by: { kind: "policy" } }),
    ]);
    expect(lastTool(stopped, "agent-main")).toMatchObject({ outcome: "failed", note: "Subagent error: stopped by the user" });
    const completed = reduceBatch(stopped, [e.status("agent-main", "completed")]);
    expect(lastTool(completed, "agent-main")).toMatchObject({
      outcome: "overcome",
      note: "failed, then it went on: Subagent error: stopped by the user",
    });
    // Its row reads as it ended: no "failed" beside the ✓.
    expect(OUTCOME_WORDS.overcome).toBeNull();
  });
});
