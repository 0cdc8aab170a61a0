import { beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent, StoredAgent } from "../../bindings";
import { answered, askFor, filePreview, ran, rule, spawnPlan } from "../../test/approvals";
import { eventMaker } from "../../test/events";
import { budget, standing } from "../../test/usage";
import { derivedAgents, resetDerivedAgents } from "../../test/agents";
import { withAgents } from "./agents";
import { initialSession, reduceBatch, withQueued, withoutQueued } from "./reducer";
import { isTerminal } from "./status";
import { toolSummary } from "./toolSummary";
import type { OutputItem, SessionState } from "./types";

beforeEach(() => resetDerivedAgents());

/** `events` applied as a frame from Rust brings them: with the agents they changed. */
function run(events: AgentEvent[], state: SessionState = initialSession()): SessionState {
  return withAgents(reduceBatch(state, events), derivedAgents(events));
}

function reduce(state: SessionState, event: AgentEvent): SessionState {
  return run([event], state);
}

/** An agent as the store left it. */
function stored(id: string, status: "interrupted" | "completed", ended: number | null): StoredAgent {
  return {
    id,
    parent_id: null,
    parent_call_id: null,
    depth: 0,
    description: id,
    subagent_type: null,
    model: "m",
    provider: "anthropic",
    background: false,
    status,
    started_at: 0,
    ended_at: ended,
    turns: 1,
    duration_ms: null,
    usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: null },
    files_modified: [],
    result: null,
    error: null,
  };
}

function items(state: SessionState, id: string): OutputItem[] {
  return state.agents[id]?.items ?? [];
}

describe("agent_started and the tree", () => {
  it("records the main agent and nests children under their parents at any depth", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Write the tests", { subagent_type: "tester", parent_call_id: "call-1" }),
      e.started("agent-b", "agent-a", "Nested helper", { depth: 2 }),
      e.started("agent-c", "agent-main", "Second child"),
    ]);
    expect(s.mainId).toBe("agent-main");
    expect(s.sessionId).toBe("s-1");
    expect(s.roots).toEqual(["agent-main"]);
    expect(s.agents["agent-main"]?.children).toEqual(["agent-a", "agent-c"]);
    expect(s.agents["agent-a"]?.children).toEqual(["agent-b"]);
    const a = s.agents["agent-a"];
    expect(a?.subagentType).toBe("tester");
    expect(a?.parentCallId).toBe("call-1");
    expect(a?.depth).toBe(1);
    expect(a?.status).toBe("queued");
    expect(s.agents["agent-b"]?.depth).toBe(2);
  });

  it("orders siblings as their parent called them, whatever order they started in", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.started("agent-third", "agent-main", "Third", { parent_call_id: "c3", call_seq: 14 }),
      e.started("agent-first", "agent-main", "First", { parent_call_id: "c1", call_seq: 10 }),
      e.started("agent-mine", "agent-main", "Delegated by me"),
      e.started("agent-second", "agent-main", "Second", { parent_call_id: "c2", call_seq: 12 }),
    ]);
    expect(s.agents["agent-main"]?.children).toEqual(["agent-first", "agent-second", "agent-third", "agent-mine"]);
  });

  it("attaches a child whose parent is announced later", () => {
    const e = eventMaker();
    const child = e.started("agent-c", "agent-p", "Early child");
    const parentStart = e.started("agent-p", "agent-main", "Late parent");
    const main = e.started("agent-main", null, "main");
    // Out of order on purpose: seq increases in this list, but the tree arrives child-first.
    const s = run([child, parentStart, main]);
    expect(s.roots).toEqual(["agent-main"]);
    expect(s.agents["agent-p"]?.children).toEqual(["agent-c"]);
    expect(s.agents["agent-main"]?.children).toEqual(["agent-p"]);
    expect(s.agents["agent-p"]?.known).toBe(true);
    expect(s.agents["agent-p"]?.description).toBe("Late parent");
  });

  it("does not duplicate a child when agent_started repeats", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Child"),
      e.started("agent-a", "agent-main", "Child again"),
    ]);
    expect(s.agents["agent-main"]?.children).toEqual(["agent-a"]);
    expect(s.agents["agent-a"]?.description).toBe("Child again");
  });

  it("keeps events of an agent seen before its agent_started", () => {
    const e = eventMaker();
    const s = run([e.status("agent-x", "running"), e.started("agent-main", null, "main"), e.started("agent-x", "agent-main", "X")]);
    // Placed in the tree; a status before it was announced changes nothing, in Rust's derivation either.
    expect(s.agents["agent-x"]?.status).toBe("queued");
    expect(s.roots).toEqual(["agent-main"]);
    expect(s.agents["agent-main"]?.children).toEqual(["agent-x"]);
  });

  it("moves an agent announced again under another parent, keeping when it started", () => {
    const e = eventMaker();
    const head = [e.started("agent-main", null, "main"), e.started("agent-b", "agent-main", "B")];
    const first = e.started("agent-a", "agent-main", "A");
    const s = run([...head, first, e.usage("agent-a", 10, 1), e.started("agent-a", "agent-b", "A", { depth: 2 })]);
    expect(s.agents["agent-main"]?.children).toEqual(["agent-b"]);
    expect(s.agents["agent-b"]?.children).toEqual(["agent-a"]);
    expect(s.agents["agent-a"]).toMatchObject({ parentId: "agent-b", depth: 2, startedAt: first.ts });
    expect(s.roots).toEqual(["agent-main"]);
  });
});

describe("statuses", () => {
  it("takes an agent's status, runs and turns as Rust sends them, never from the events alone", () => {
    const e = eventMaker();
    const events = [e.started("agent-main", null, "main"), e.status("agent-main", "running"), e.usage("agent-main", 1, 1)];
    const bare = reduceBatch(initialSession(), events);
    expect(bare.agents["agent-main"]).toMatchObject({ status: "queued", turns: 0, wallRunStartedAt: null });
    const [main] = derivedAgents(events);
    if (!main) throw new Error("the stand-in derives the main agent");
    const s = withAgents(bare, [{ ...main, status: "waiting_approval" }]);
    expect(s.agents["agent-main"]).toMatchObject({ status: "waiting_approval", turns: 1, wallRunStartedAt: events[1]?.ts });
    // The same figures again: the same state, nothing to render.
    expect(withAgents(s, [{ ...main, status: "waiting_approval" }])).toBe(s);
  });

  it("agent_finished records the result and the final status", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Child"),
      e.status("agent-a", "running"),
      e.make("agent-a", {
        type: "agent_finished",
        status: "failed",
        result: "",
        error: "provider broke",
        turns: 3,
        duration_ms: 1234,
        files_modified: ["a.txt"],
      }),
    ]);
    const a = s.agents["agent-a"];
    expect(a?.status).toBe("failed");
    expect(a?.finished).toMatchObject({ status: "failed", error: "provider broke", turns: 3, durationMs: 1234, filesModified: ["a.txt"] });
    expect(items(s, "agent-a").at(-1)?.kind).toBe("finished");
  });

  it("marks a result that repeats the last response as already shown", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "response", content: "All done." }),
      e.make("agent-main", {
        type: "agent_finished",
        status: "completed",
        result: "All done.",
        error: null,
        turns: 1,
        duration_ms: 10,
        files_modified: [],
      }),
    ]);
    const fin = s.agents["agent-main"]?.finished;
    expect(fin?.resultShown).toBe(true);
  });
});

describe("streamed text", () => {
  it("appends chunks and replaces them with the complete message", () => {
    const e = eventMaker();
    let s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "response_chunk", content: "Hel" }),
      e.make("agent-main", { type: "response_chunk", content: "lo" }),
    ]);
    expect(items(s, "agent-main")).toMatchObject([{ kind: "response", text: "Hello", streaming: true }]);
    s = reduce(s, e.make("agent-main", { type: "response", content: "Hello!" }));
    expect(items(s, "agent-main")).toMatchObject([{ kind: "response", text: "Hello!", streaming: false }]);
    expect(items(s, "agent-main")).toHaveLength(1);
    // The next message starts a new item.
    s = reduce(s, e.make("agent-main", { type: "response_chunk", content: "Next" }));
    expect(items(s, "agent-main")).toHaveLength(2);
  });

  it("keeps thinking and response streams apart when interleaved", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "thoughts_chunk", content: "hmm " }),
      e.make("agent-main", { type: "response_chunk", content: "An" }),
      e.make("agent-main", { type: "thoughts_chunk", content: "ok" }),
      e.make("agent-main", { type: "response_chunk", content: "swer" }),
      e.make("agent-main", { type: "thoughts", content: "hmm ok." }),
      e.make("agent-main", { type: "response", content: "Answer." }),
    ]);
    expect(items(s, "agent-main")).toMatchObject([
      { kind: "thoughts", text: "hmm ok.", streaming: false },
      { kind: "response", text: "Answer.", streaming: false },
    ]);
  });

  it("adds a complete message that had no chunks", () => {
    const e = eventMaker();
    const s = run([e.started("agent-main", null, "main"), e.make("agent-main", { type: "thoughts", content: "whole" })]);
    expect(items(s, "agent-main")).toMatchObject([{ kind: "thoughts", text: "whole", streaming: false }]);
  });

  it("never mutates the previous state", () => {
    const e = eventMaker();
    const before = run([e.started("agent-main", null, "main"), e.make("agent-main", { type: "response_chunk", content: "a" })]);
    const snapshot = JSON.stringify(before);
    const after = run(
      [e.make("agent-main", { type: "response_chunk", content: "b" }), e.make("agent-main", { type: "response_chunk", content: "c" })],
      before,
    );
    expect(JSON.stringify(before)).toBe(snapshot);
    expect(items(after, "agent-main")[0]).toMatchObject({ text: "abc" });
    expect(after.agents["agent-main"]).not.toBe(before.agents["agent-main"]);
  });

  it("leaves untouched agents identical", () => {
    const e = eventMaker();
    const before = run([e.started("agent-main", null, "main"), e.started("agent-a", "agent-main", "A")]);
    const after = reduce(before, e.make("agent-a", { type: "response_chunk", content: "x" }));
    expect(after.agents["agent-main"]).toBe(before.agents["agent-main"]);
    expect(after.agents["agent-a"]).not.toBe(before.agents["agent-a"]);
  });
});

describe("tool calls", () => {
  it("collects streamed output and replaces it with the final output", () => {
    const e = eventMaker();
    let s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "tool_call", call_id: "c1", tool_name: "Bash", tool_args: { command: "ls -la" } }),
      e.make("agent-main", { type: "tool_output_chunk", call_id: "c1", content: "a\n" }),
      e.make("agent-main", { type: "tool_output_chunk", call_id: "c1", content: "b\n" }),
    ]);
    expect(items(s, "agent-main")[0]).toMatchObject({ kind: "tool", output: "a\nb\n", done: false });
    expect(s.agents["agent-main"]?.lastTool).toBe("Bash ls -la");
    s = reduce(s, e.make("agent-main", { type: "tool_output", call_id: "c1", content: "a\nb\nexit 0", is_error: false }));
    expect(items(s, "agent-main")[0]).toMatchObject({ output: "a\nb\nexit 0", done: true, isError: false });
    s = reduce(s, e.make("agent-main", { type: "tool_output", call_id: "zz", content: "stray", is_error: true }));
    expect(items(s, "agent-main")).toHaveLength(1);
  });

  it("flags failed calls", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "tool_call", call_id: "c1", tool_name: "Read", tool_args: { file_path: "x" } }),
      e.make("agent-main", { type: "tool_output", call_id: "c1", content: "no such file", is_error: true }),
    ]);
    expect(items(s, "agent-main")[0]).toMatchObject({ isError: true, done: true });
  });

  it("summarises a Task call by its type, not the child's label", () => {
    expect(toolSummary("Task", { description: "Write the tests", prompt: "…", subagent_type: "tester" }, null)).toBe("Task tester");
    expect(toolSummary("Task", { description: "Side task", prompt: "…", fork: true }, null)).toBe("Task fork");
    expect(toolSummary("Read", { file_path: "src/main.rs" }, null)).toBe("Read src/main.rs");
    expect(toolSummary("ListAgents", {}, null)).toBe("ListAgents");
  });
});

describe("approvals", () => {
  it("lists requests until they are resolved, independently", () => {
    const e = eventMaker();
    let s = run([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "A"),
      e.started("agent-b", "agent-main", "B"),
      e.make("agent-a", { type: "tool_call", call_id: "ca", tool_name: "Write", tool_args: { file_path: "a" } }),
      e.approval("agent-a", "r1", "ca", ["main", "A"]),
      e.approval("agent-b", "r2", "cb", ["main", "B"]),
    ]);
    expect(s.pending).toEqual(["r1", "r2"]);
    expect(s.agents["agent-a"]?.pendingApprovals).toBe(1);
    expect(items(s, "agent-a")[0]).toMatchObject({ approval: { requestId: "r1", state: "pending" } });
    s = reduce(s, e.resolved("agent-a", "r1", "denied"));
    expect(s.pending).toEqual(["r2"]);
    expect(s.approvals.r1?.state).toBe("denied");
    expect(s.agents["agent-a"]?.pendingApprovals).toBe(0);
    expect(s.agents["agent-b"]?.pendingApprovals).toBe(1);
    expect(items(s, "agent-a")[0]).toMatchObject({ approval: { state: "denied", scope: "once" } });
    s = reduce(s, e.resolved("agent-b", "r2", "approved"));
    expect(s.pending).toEqual([]);
    expect(s.approvals.r2?.state).toBe("approved");
  });

  it("ignores a repeated request and an unknown resolution", () => {
    const e = eventMaker();
    let s = run([e.started("agent-main", null, "main"), e.approval("agent-main", "r1", "c", ["main"])]);
    s = run([e.approval("agent-main", "r1", "c", ["main"]), e.resolved("agent-main", "nope", "approved")], s);
    expect(s.pending).toEqual(["r1"]);
    expect(s.agents["agent-main"]?.pendingApprovals).toBe(1);
  });

  it("shows a request withdrawn when its agent was stopped, and invents no state of its own", () => {
    const e = eventMaker();
    const finished = () =>
      e.make("agent-main", {
        type: "agent_finished",
        status: "cancelled",
        result: "",
        error: null,
        turns: 1,
        duration_ms: 5,
        files_modified: [],
      });
    let s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "tool_call", call_id: "c", tool_name: "Bash", tool_args: { command: "ls" } }),
      e.approval("agent-main", "r1", "c", ["main"]),
    ]);
    // Until the backend says how it ended, the request waits, whatever its agent does.
    const before = reduce(s, finished());
    expect(before.pending).toEqual(["r1"]);
    expect(before.approvals.r1?.state).toBe("pending");
    s = run([e.resolved("agent-main", "r1", "withdrawn"), finished()], s);
    expect(s.pending).toEqual([]);
    expect(s.approvals.r1).toMatchObject({ state: "withdrawn", scope: "once" });
    expect(s.agents["agent-main"]?.pendingApprovals).toBe(0);
    expect(items(s, "agent-main")[0]).toMatchObject({ approval: { state: "withdrawn" } });
  });
});

describe("usage", () => {
  it("sums no tokens (Rust sends the figures)", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "A"),
      e.usage("agent-main", 100, 20, null),
      e.usage("agent-main", 50, 5, 0.01),
      e.usage("agent-a", 10, 1, 0.002),
    ]);
    expect(s.agents["agent-main"]?.turns).toBe(2);
    expect(s.agents["agent-a"]?.turns).toBe(1);
    expect(s.usage).toEqual({ agents: {}, session: null });
  });
});

describe("notifications and ordering", () => {
  it("records a task notification on the parent", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "task_notification", task_id: "agent-a", status: "completed", summary: "wrote 3 files" }),
    ]);
    expect(items(s, "agent-main")).toMatchObject([
      { kind: "notification", taskId: "agent-a", status: "completed", summary: "wrote 3 files" },
    ]);
  });

  it("drops repeated seq numbers and other sessions' events", () => {
    const e = eventMaker();
    const first = e.started("agent-main", null, "main");
    const other = eventMaker("s-2").started("agent-zz", null, "other");
    const s = run([first, first, other]);
    expect(Object.keys(s.agents)).toEqual(["agent-main"]);
    expect(s.eventsApplied).toBe(1);
    expect(reduceBatch(s, [first])).toBe(s);
  });
});

describe("user messages", () => {
  it("shows the main agent's prompt and later messages as the person's items, in order", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "user_message", content: "Fix the bug" }),
      e.make("agent-main", { type: "response", content: "Fixed." }),
      e.make("agent-main", { type: "user_message", content: "Now add a test" }),
    ]);
    expect(items(s, "agent-main")).toMatchObject([
      { kind: "user", text: "Fix the bug" },
      { kind: "response", text: "Fixed." },
      { kind: "user", text: "Now add a test" },
    ]);
    expect(s.agents["agent-main"]?.prompt).toBe("Fix the bug");
  });

  it("takes a subagent's first message as its task, and later ones (steering, resume) as items", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Count files"),
      e.status("agent-a", "queued"),
      e.make("agent-a", { type: "user_message", content: "count the text files" }),
      e.make("agent-a", { type: "response_chunk", content: "Count" }),
      e.make("agent-a", { type: "user_message", content: "only in src/" }),
      e.make("agent-a", { type: "response", content: "3 files" }),
    ]);
    expect(s.agents["agent-a"]?.prompt).toBe("count the text files");
    expect(items(s, "agent-a")).toMatchObject([
      { kind: "response", text: "Count", streaming: true },
      { kind: "user", text: "only in src/" },
      { kind: "response", text: "3 files", streaming: false },
    ]);
    // The main agent's transcript is untouched by its child's messages.
    expect(items(s, "agent-main")).toEqual([]);
  });

  it("keys each message by its event, so a repeated batch adds nothing", () => {
    const e = eventMaker();
    const started = e.started("agent-main", null, "main");
    const msg = e.make("agent-main", { type: "user_message", content: "hi" });
    const s = run([started, msg, msg]);
    // Stored before messages said who wrote them: a person's, as Rust reads it.
    expect(items(s, "agent-main")).toEqual([{ kind: "user", key: `e${msg.seq}`, text: "hi", from: "person", ts: msg.ts }]);
  });
});

describe("stored agents", () => {
  it("ends an agent the store marks interrupted, and leaves the others alone", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      e.started("agent-a", "agent-main", "A"),
      e.status("agent-a", "completed"),
    ]);
    expect(s.agents["agent-main"]?.wallRunStartedAt).not.toBeNull();
    const after = withAgents(s, [stored("agent-main", "interrupted", null)]);
    // Its wall time stops counting, as Rust takes a stored agent back.
    expect(after.agents["agent-main"]).toMatchObject({ status: "interrupted", wallRunStartedAt: null });
    expect(after.agents["agent-a"]).toBe(s.agents["agent-a"]);
  });
});

describe("MCP connections", () => {
  it("notes a connection, then marks the same item closed instead of adding a row", () => {
    const e = eventMaker();
    const started = e.started("agent-main", null, "main");
    const connected = e.mcp("agent-main", "everything", "connected", 123);
    let s = run([
      started,
      connected,
      e.make("agent-main", {
        type: "tool_call",
        call_id: "m1",
        tool_name: "mcp__everything__echo",
        tool_args: { message: "hi" },
        mcp: { server: "everything", tool: "echo" },
      }),
      e.make("agent-main", { type: "tool_output", call_id: "m1", content: "Echo: hi", is_error: false }),
    ]);
    expect(s.agents["agent-main"]?.mcp).toEqual({ everything: { state: "connected", pid: 123, error: null } });
    expect(items(s, "agent-main")[0]).toEqual({
      kind: "mcp",
      key: `e${connected.seq}`,
      server: "everything",
      state: "connected",
      pid: 123,
      error: null,
      ts: connected.ts,
    });
    const before = s;
    s = reduce(s, e.mcp("agent-main", "everything", "closed"));
    expect(s.agents["agent-main"]?.mcp.everything).toEqual({ state: "closed", pid: null, error: null });
    expect(items(s, "agent-main")).toHaveLength(2);
    expect(items(s, "agent-main")[0]).toMatchObject({ kind: "mcp", state: "closed", pid: 123 });
    // The earlier state is untouched.
    expect(items(before, "agent-main")[0]).toMatchObject({ state: "connected" });
    expect(items(s, "agent-main")[1]).toBe(items(before, "agent-main")[1]);
  });

  it("adds a visible failure row, which a later close leaves as it is", () => {
    const e = eventMaker();
    let s = run([
      e.started("agent-main", null, "main"),
      e.mcp("agent-main", "broken", "failed", null, "could not be started: `nope`: No such file or directory"),
    ]);
    expect(s.agents["agent-main"]?.mcp.broken).toEqual({
      state: "failed",
      pid: null,
      error: "could not be started: `nope`: No such file or directory",
    });
    expect(items(s, "agent-main")).toMatchObject([{ kind: "mcp", server: "broken", state: "failed" }]);
    s = reduce(s, e.mcp("agent-main", "broken", "closed"));
    expect(items(s, "agent-main")).toMatchObject([{ kind: "mcp", state: "failed", error: expect.stringContaining("nope") }]);
    expect(s.agents["agent-main"]?.mcp.broken?.state).toBe("closed");
  });

  it("adds no row for a close without a connection, and keeps each agent's connections apart", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "A"),
      e.mcp("agent-a", "everything", "connected", 7),
      e.mcp("agent-main", "everything", "closed"),
      e.mcp("agent-a", "everything", "failed", null, "exited or hung up"),
      e.mcp("agent-a", "everything", "connected", 8),
    ]);
    expect(items(s, "agent-main")).toEqual([]);
    expect(s.agents["agent-main"]?.mcp.everything?.state).toBe("closed");
    expect(items(s, "agent-a").map((it) => (it.kind === "mcp" ? [it.state, it.pid] : it.kind))).toEqual([
      ["connected", 7],
      ["failed", null],
      ["connected", 8],
    ]);
    expect(s.agents["agent-a"]?.mcp.everything).toEqual({ state: "connected", pid: 8, error: null });
  });

  it("shows an MCP tool as the server and tool its call names wherever the last tool is summarised", () => {
    const e = eventMaker();
    let s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", {
        type: "tool_call",
        call_id: "m1",
        tool_name: "mcp__everything__echo",
        tool_args: { message: "hi\nthere" },
        mcp: { server: "everything", tool: "echo" },
      }),
    ]);
    expect(s.agents["agent-main"]?.lastTool).toBe("everything · echo hi");
    expect(s.agents["agent-main"]?.lastToolMcp).toBe(true);
    expect(items(s, "agent-main")[0]).toMatchObject({ kind: "tool", mcp: { server: "everything", tool: "echo" } });
    expect(toolSummary("mcp__everything__get-sum", { a: 1, b: 2 }, { server: "everything", tool: "get-sum" })).toBe(
      "everything · get-sum",
    );

    // No `mcp` (a built-in, or a transcript stored before calls named it): the name as it is, never taken apart.
    s = run([e.make("agent-main", { type: "tool_call", call_id: "m2", tool_name: "mcp__a__b", tool_args: { x: "y" } })], s);
    expect(s.agents["agent-main"]?.lastTool).toBe("mcp__a__b");
    expect(s.agents["agent-main"]?.lastToolMcp).toBe(false);
    expect(items(s, "agent-main")[1]).toMatchObject({ kind: "tool", toolName: "mcp__a__b", mcp: null });
  });
});

describe("approval previews, stale files, decisions and rules", () => {
  it("keeps a request's preview, and marks it stale while it waits (not once answered)", () => {
    const e = eventMaker();
    const preview = filePreview("notes.md", "old\n", "new\n");
    let s = run([e.started("agent-main", null, "main"), ...askFor(e.make, "agent-main", "r1", { preview })]);
    expect(s.approvals.r1).toMatchObject({ preview, stale: null, decidedBy: null });
    s = reduce(s, e.make("agent-main", { type: "approval_stale", request_id: "r1", message: "The file changed on disk." }));
    expect(s.approvals.r1?.stale).toBe("The file changed on disk.");
    s = run([answered(e.make, "agent-main", "r1", "approved"), e.make("agent-main", { type: "approval_stale", request_id: "r1", message: "was deleted" })], s);
    expect(s.approvals.r1?.stale).toBe("The file changed on disk.");
    expect(s.approvals.r1?.state).toBe("approved");
  });

  it("records who answered, the reason, the rule an answer set and a spawn's edit, on the request and its call", () => {
    const e = eventMaker();
    const set = rule("rule-1", { request_id: "r1", scope: "session" });
    const s = run([
      e.started("agent-main", null, "main"),
      ...askFor(e.make, "agent-main", "r1"),
      ...askFor(e.make, "agent-main", "r2", { tool: "Task", preview: { kind: "spawn", ...spawnPlan() } }),
      ...askFor(e.make, "agent-main", "r3"),
      answered(e.make, "agent-main", "r1", "approved", { scope: "session", rule: set }),
      answered(e.make, "agent-main", "r2", "approved", { edit: { model: "claude-small" } }),
      answered(e.make, "agent-main", "r3", "denied", { reason: "not that file" }),
    ]);
    expect(s.approvals.r1).toMatchObject({ state: "approved", scope: "session", decidedBy: { kind: "person" }, rule: set });
    expect(s.approvals.r2?.edit).toEqual({ model: "claude-small" });
    expect(s.approvals.r3).toMatchObject({ state: "denied", reason: "not that file" });
    const call = items(s, "agent-main").find((i) => i.kind === "tool" && i.callId === "c-r3");
    expect(call).toMatchObject({ decidedBy: { kind: "person" }, approval: { state: "denied" } });
  });

  it("marks a call a rule decided, from its answer and from its output; the tree's agent knows its latest call", () => {
    const e = eventMaker();
    const r = rule("rule-1");
    const s = run([
      e.started("agent-main", null, "main"),
      ...askFor(e.make, "agent-main", "r1"),
      answered(e.make, "agent-main", "r1", "approved", { decidedBy: { kind: "rule", rule: r } }),
      e.make("agent-main", { type: "tool_call", call_id: "c-9", tool_name: "Write", tool_args: { file_path: "b" } }),
      ran(e.make, "agent-main", "c-9", { kind: "rule", rule: r }),
    ]);
    const calls = items(s, "agent-main").filter((i) => i.kind === "tool");
    expect(calls.map((c) => (c.kind === "tool" ? c.decidedBy : null))).toEqual([
      { kind: "rule", rule: r },
      { kind: "rule", rule: r },
    ]);
    expect(s.agents["agent-main"]?.lastToolCall).toBe("c-9");
  });

  it("drops a revoked rule from the rules in force and remembers when it went", () => {
    const e = eventMaker();
    const base: SessionState = { ...run([e.started("agent-main", null, "main")]), rules: [rule("rule-1"), rule("rule-2")] };
    const revoked = e.make("agent-main", { type: "rule_revoked", rule_id: "rule-1" });
    const s = reduce(base, revoked);
    expect(s.rules.map((r) => r.rule_id)).toEqual(["rule-2"]);
    expect(s.revokedRules).toEqual({ "rule-1": revoked.ts });
    expect(base.rules).toHaveLength(2);
  });
});

describe("budgets", () => {
  const finished = (e: ReturnType<typeof eventMaker>, id: string, status: "completed" | "budget_exhausted", error: string | null = null) =>
    e.make(id, { type: "agent_finished", status, result: "", error, turns: 1, duration_ms: 10, files_modified: [] });

  it("keeps an agent's budget as its latest budget_set gives it, with where it came from", () => {
    const e = eventMaker();
    let s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "budget_set", budget: budget({ max_tokens: 10_000 }), origin: "session", carved: [] }),
      e.started("agent-a", "agent-main", "A"),
    ]);
    expect(s.agents["agent-main"]).toMatchObject({ budget: budget({ max_tokens: 10_000 }), budgetOrigin: "session", budgetCarved: [] });
    expect(s.agents["agent-a"]).toMatchObject({ budget: null, budgetOrigin: null });
    const raised = budget({ max_tokens: 20_000, max_cost_usd: 1 });
    s = reduce(s, e.make("agent-a", { type: "budget_set", budget: raised, origin: "delegation", carved: ["tokens"] }));
    expect(s.agents["agent-a"]).toMatchObject({ budget: raised, budgetOrigin: "delegation", budgetCarved: ["tokens"] });
    // Nothing in the output for a budget_set.
    expect(items(s, "agent-a")).toEqual([]);
  });

  it("adds a budget warning to its agent's output, with Rust's standing", () => {
    const e = eventMaker();
    const warned = standing({ max_tokens: 10_000 }, { tokens: 8000 }, 0.8, "tokens");
    const start = e.started("agent-main", null, "main");
    const ev = e.make("agent-main", { type: "budget_warning", kind: "tokens", standing: warned });
    const s = run([start, ev]);
    expect(items(s, "agent-main")).toEqual([{ kind: "budget", key: `e${ev.seq}`, limit: "tokens", standing: warned, ts: ev.ts }]);
    // The same event again adds nothing.
    expect(reduce(s, ev)).toBe(s);
  });

  it("ends an agent its budget stopped, with Rust's reason as its error", () => {
    const e = eventMaker();
    const why = "the tokens budget of agent-main ran out: 10,200 of 10,000 tokens used";
    const s = run([
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      e.status("agent-main", "budget_exhausted"),
      finished(e, "agent-main", "budget_exhausted", why),
    ]);
    const main = s.agents["agent-main"];
    expect(main?.status).toBe("budget_exhausted");
    expect(isTerminal("budget_exhausted")).toBe(true);
    expect(main?.finished).toMatchObject({ status: "budget_exhausted", error: why });
    expect(main?.wallRunStartedAt).toBeNull();
  });

});

describe("imported_entry", () => {
  it("keeps a row of an imported transcript in order, as Rust stored it, without ending the open response", () => {
    const e = eventMaker();
    const start = e.started("agent-main", null, "main");
    const prompt = e.make("agent-main", { type: "user_message", content: "Fix the build" });
    const chunk = e.make("agent-main", { type: "response_chunk", content: "Looking" });
    const entry = e.make("agent-main", {
      type: "imported_entry",
      kind: "attachment: environment",
      content: "Working directory: /home/me/pond\nPlatform: linux",
    });
    const s = run([start, prompt, chunk, entry, e.make("agent-main", { type: "response_chunk", content: " now" })]);
    expect(items(s, "agent-main").map((it) => it.kind)).toEqual(["user", "response", "imported"]);
    expect(items(s, "agent-main")[2]).toEqual({
      kind: "imported",
      key: `e${entry.seq}`,
      entry: "attachment: environment",
      content: "Working directory: /home/me/pond\nPlatform: linux",
      ts: entry.ts,
    });
    // The streamed response goes on in its own item: the entry is beside it, not in it.
    expect(items(s, "agent-main")[1]).toMatchObject({ kind: "response", text: "Looking now" });
    // Applied once: the same event again (a merged page) adds nothing.
    expect(reduce(s, entry)).toBe(s);
  });
});

describe("a tool call as the model writes it", () => {
  const chunk = (e: ReturnType<typeof eventMaker>, callId: string, tool: string, content: string) =>
    e.make("agent-main", { type: "tool_input_chunk", call_id: callId, tool_name: tool, content });

  it("shows the call from its first piece, its arguments growing, then completes it in place", () => {
    const e = eventMaker();
    let s = run([e.started("agent-main", null, "main"), e.status("agent-main", "running")]);
    s = run([chunk(e, "t1", "Task", ""), chunk(e, "t1", "Task", '{"description": "Split the wo')], s);
    let it = items(s, "agent-main")[0];
    expect(it).toMatchObject({ kind: "tool", toolName: "Task", input: "writing", args: { description: "Split the wo" } });
    s = run([chunk(e, "t1", "Task", 'rk", "prompt": "Read the'), chunk(e, "t1", "Task", ' files and')], s);
    it = items(s, "agent-main")[0];
    expect(it).toMatchObject({ input: "writing", args: { description: "Split the work", prompt: "Read the files and" } });
    const key = it?.key;
    s = run(
      [
        e.make("agent-main", {
          type: "tool_call",
          call_id: "t1",
          tool_name: "Task",
          tool_args: { description: "Split the work", prompt: "Read the files and report" },
          mcp: null,
        }),
      ],
      s,
    );
    const all = items(s, "agent-main");
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ key, input: "complete", streamedInput: "", args: { prompt: "Read the files and report" } });
    expect(s.agents["agent-main"]?.lastTool).toBe(toolSummary("Task", { description: "Split the work" }, null));
  });

  it("keeps the response's text above its calls when the complete text arrives after them", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "response_chunk", content: "I'll split " }),
      e.make("agent-main", { type: "response_chunk", content: "this." }),
      chunk(e, "t1", "Task", '{"description": "A"}'),
      e.make("agent-main", { type: "response", content: "I'll split this." }),
      e.make("agent-main", { type: "tool_call", call_id: "t1", tool_name: "Task", tool_args: { description: "A" }, mcp: null }),
    ]);
    expect(items(s, "agent-main").map((i) => i.kind)).toEqual(["response", "tool"]);
    expect(items(s, "agent-main")[0]).toMatchObject({ text: "I'll split this.", streaming: false });
  });

  it("keeps parallel calls apart and marks one whose response broke off as never run", () => {
    const e = eventMaker();
    let s = run([e.started("agent-main", null, "main"), e.status("agent-main", "running")]);
    s = run([chunk(e, "w1", "Write", '{"file_path": "a.txt", "content": "one\\ntw'), chunk(e, "w2", "Write", '{"file_pa')], s);
    expect(items(s, "agent-main").map((i) => (i.kind === "tool" ? [i.callId, i.args] : null))).toEqual([
      ["w1", { file_path: "a.txt", content: "one\ntw" }],
      ["w2", {}],
    ]);
    s = run(
      [
        e.make("agent-main", {
          type: "agent_finished",
          status: "failed",
          result: "",
          error: "stream broke",
          turns: 1,
          duration_ms: 10,
          files_modified: [],
        }),
      ],
      s,
    );
    expect(items(s, "agent-main").filter((i) => i.kind === "tool").map((i) => (i.kind === "tool" ? i.input : null))).toEqual([
      "cut",
      "cut",
    ]);
  });
});

describe("messages: who wrote them, and queued until taken", () => {
  const said = (e: ReturnType<typeof eventMaker>, id: string, content: string, from: "person" | "parent" | "arbor") =>
    e.make(id, { type: "user_message", content, from });

  it("keeps a sent message queued until the agent takes it, then shows it where it was read", () => {
    const e = eventMaker();
    let s = run([e.started("agent-main", null, "main"), said(e, "agent-main", "go", "person"), e.status("agent-main", "running")]);
    s = withQueued(s, "agent-main", "also check the docs");
    s = run([e.make("agent-main", { type: "response_chunk", content: "Working on it" })], s);
    expect(s.queued.map((q) => q.text)).toEqual(["also check the docs"]);
    s = run([said(e, "agent-main", "also check the docs", "person")], s);
    expect(s.queued).toEqual([]);
    const last = items(s, "agent-main").at(-1);
    expect(last).toMatchObject({ kind: "user", text: "also check the docs", from: "person" });
  });

  it("drops what an agent never took when it ends, and a message whose sending failed", () => {
    const e = eventMaker();
    let s = run([e.started("agent-main", null, "main")]);
    s = withQueued(withQueued(s, "agent-main", "a"), "agent-main", "b");
    s = withoutQueued(s, "agent-main", "a");
    expect(s.queued.map((q) => q.text)).toEqual(["b"]);
    s = run(
      [
        e.make("agent-main", {
          type: "agent_finished",
          status: "cancelled",
          result: "",
          error: null,
          turns: 0,
          duration_ms: 1,
          files_modified: [],
        }),
      ],
      s,
    );
    expect(s.queued).toEqual([]);
  });

  it("says Arbor wrote a resume's request to carry on", () => {
    const e = eventMaker();
    const s = run([e.started("agent-main", null, "main"), said(e, "agent-main", "go", "person"), said(e, "agent-main", "Continue the task where you left off.", "arbor")]);
    expect(items(s, "agent-main").map((i) => (i.kind === "user" ? i.from : null))).toEqual(["person", "arbor"]);
  });
});

describe("a stored session whose agent died mid-call", () => {
  it("shows the call it was writing as never run", () => {
    const e = eventMaker();
    const s = run([
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      e.make("agent-main", { type: "tool_input_chunk", call_id: "w1", tool_name: "Write", content: '{"file_path": "a' }),
    ]);
    const after = withAgents(s, [stored("agent-main", "interrupted", null)]);
    expect(items(after, "agent-main")[0]).toMatchObject({ kind: "tool", input: "cut" });
  });
});
