import { describe, expect, it } from "vitest";
import type { AgentEvent, PastSession, StoredAgent, UsageUpdate } from "../bindings";
import { eventMaker } from "../test/events";
import { agentUsage, figures, usageUpdate } from "../test/usage";
import {
  addPage,
  appendLive,
  bookFromPast,
  covers,
  earlierBefore,
  mergeEvents,
  needsTranscript,
  pagesOf,
  reduceBook,
  setPageStatus,
} from "./review";

const usage = figures(0).usage;

function stored(id: string, parent: string | null, status: StoredAgent["status"] = "completed"): StoredAgent {
  return {
    id,
    parent_id: parent,
    parent_call_id: null,
    depth: parent === null ? 0 : 1,
    description: id,
    subagent_type: null,
    model: "m",
    provider: "anthropic",
    background: false,
    status,
    started_at: 0,
    ended_at: 10,
    turns: 1,
    duration_ms: 10,
    usage,
    files_modified: [],
    result: null,
    error: null,
  };
}

function past(
  events: AgentEvent[],
  agents: StoredAgent[],
  moreBefore = false,
  figuresOf: UsageUpdate = usageUpdate([], figures(0)),
): PastSession {
  return {
    detail: {
      session: {
        id: "s-1",
        workspace: "/w",
        first_prompt: "Do it",
        provider: "anthropic",
        model: "m",
        started_at: 0,
        ended_at: 100,
        status: "completed",
        main_agent_id: "agent-main",
        agent_count: agents.length,
        event_count: events.length,
        usage: figuresOf.session,
      },
      agents,
    },
    events,
    agent: "agent-main",
    more_before: moreBefore,
    usage: figuresOf,
    runs: { kind: "stored" },
  };
}

const seqs = (events: readonly AgentEvent[]) => events.map((e) => e.seq);

describe("mergeEvents", () => {
  it("merges by seq and keeps one event per seq", () => {
    const e = eventMaker();
    const all = Array.from({ length: 8 }, (_, i) => e.make("agent-main", { type: "response", content: `r${i}` }));
    const pick = (...i: number[]) => i.map((k) => all[k]!);
    expect(seqs(mergeEvents(pick(0, 2, 4, 6), pick(1, 2, 3, 7)))).toEqual([1, 2, 3, 4, 5, 7, 8]);
    expect(seqs(mergeEvents([], pick(5, 1, 3)))).toEqual([2, 4, 6]);
    expect(seqs(mergeEvents(pick(0, 1), []))).toEqual([1, 2]);
    // The copy already held wins.
    const dup = { ...all[2]!, content: "other" } as AgentEvent;
    const merged = mergeEvents(pick(2), [dup]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toBe(all[2]);
  });
});

describe("a past session's book", () => {
  function scenario() {
    const e = eventMaker();
    const skeleton1 = [e.started("agent-main", null, "main"), e.status("agent-main", "running")];
    const mainOld = e.make("agent-main", { type: "user_message", content: "Do it" });
    const skeleton2 = [e.started("agent-a", "agent-main", "Child A"), e.status("agent-a", "running")];
    const aTask = e.make("agent-a", { type: "user_message", content: "the task of A" });
    const aOld = e.make("agent-a", { type: "response", content: "A early" });
    const aNew = e.make("agent-a", { type: "response", content: "A late" });
    const skeleton3 = [
      e.make("agent-a", {
        type: "agent_finished",
        status: "completed",
        result: "A late",
        error: null,
        turns: 1,
        duration_ms: 5,
        files_modified: [],
      }),
    ];
    const mainNew = e.make("agent-main", { type: "response", content: "All done" });
    return { e, skeleton: [...skeleton1, ...skeleton2, ...skeleton3], mainOld, mainNew, aTask, aOld, aNew };
  }

  it("opens with the tree and the main agent's newest page, and loads a child's page when asked", () => {
    const sc = scenario();
    const first = [...sc.skeleton, sc.mainNew].sort((x, y) => x.seq - y.seq);
    let book = bookFromPast(past(first, [stored("agent-main", null), stored("agent-a", "agent-main")], true));
    expect(pagesOf(book, "agent-main")).toMatchObject({ status: "loaded", moreBefore: true, oldest: sc.mainNew.seq });
    expect(earlierBefore(book, "agent-main")).toBe(sc.mainNew.seq);
    expect(needsTranscript(book, "agent-a")).toBe(true);
    expect(needsTranscript(book, "agent-main")).toBe(false);
    expect(needsTranscript(book, "agent-unknown")).toBe(false);

    let s = reduceBook(book);
    expect(s.agents["agent-a"]?.status).toBe("completed");
    expect(s.agents["agent-main"]?.items.map((i) => i.kind)).toEqual(["response"]);
    expect(s.agents["agent-a"]?.items.map((i) => i.kind)).toEqual(["finished"]);

    // The child's newest page arrives: its task and responses fall in seq order, before its result.
    book = setPageStatus(book, "agent-a", "loading");
    expect(needsTranscript(book, "agent-a")).toBe(false);
    book = addPage(book, "agent-a", { events: [sc.aOld, sc.aNew], more_before: true });
    expect(pagesOf(book, "agent-a")).toMatchObject({ status: "loaded", moreBefore: true, oldest: sc.aOld.seq });
    s = reduceBook(book);
    expect(s.agents["agent-a"]?.items.map((i) => (i.kind === "response" ? i.text : i.kind))).toEqual([
      "A early",
      "A late",
      "finished",
    ]);
    expect(s.agents["agent-a"]?.finished?.resultShown).toBe(true);

    // "Load earlier": the older page (overlapping by one) merges without repeats.
    book = addPage(book, "agent-a", { events: [sc.aTask, sc.aOld], more_before: false });
    expect(pagesOf(book, "agent-a")).toMatchObject({ moreBefore: false, oldest: sc.aTask.seq });
    expect(earlierBefore(book, "agent-a")).toBeNull();
    s = reduceBook(book);
    expect(s.agents["agent-a"]?.prompt).toBe("the task of A");
    expect(s.agents["agent-a"]?.items).toHaveLength(3);
    expect(seqs(book.events)).toEqual([...new Set(seqs(book.events))].sort((a, b) => a - b));

    // The main agent's earlier page.
    book = addPage(book, "agent-main", { events: [sc.mainOld], more_before: false });
    s = reduceBook(book);
    expect(s.agents["agent-main"]?.items.map((i) => i.kind)).toEqual(["user", "response"]);
  });

  it("a newer page does not change how far back an agent is loaded", () => {
    const sc = scenario();
    let book = bookFromPast(past(sc.skeleton, [stored("agent-main", null), stored("agent-a", "agent-main")]));
    book = addPage(book, "agent-a", { events: [sc.aOld], more_before: true });
    book = addPage(book, "agent-a", { events: [sc.aNew], more_before: true });
    expect(pagesOf(book, "agent-a")).toMatchObject({ oldest: sc.aOld.seq, moreBefore: true });
    expect(covers(book, "agent-a", sc.aNew.seq)).toBe(true);
    expect(covers(book, "agent-a", sc.aTask.seq)).toBe(false);
  });

  it("keeps what is loaded when a page fails", () => {
    const sc = scenario();
    let book = bookFromPast(past(sc.skeleton, [stored("agent-main", null), stored("agent-a", "agent-main")]));
    book = setPageStatus(book, "agent-a", "loading");
    book = setPageStatus(book, "agent-a", "error", "database is locked");
    expect(pagesOf(book, "agent-a")).toMatchObject({ status: "error", error: "database is locked" });
    book = addPage(book, "agent-a", { events: [sc.aNew], more_before: true });
    book = setPageStatus(book, "agent-a", "error", "again");
    expect(pagesOf(book, "agent-a")).toMatchObject({ status: "loaded", error: "again", oldest: sc.aNew.seq });
  });

  it("takes MCP status lines as transcript events of a stored agent and shows them as its output", () => {
    const e = eventMaker();
    const skeleton = [e.started("agent-main", null, "main")];
    const connected = e.mcp("agent-main", "everything", "connected", 99);
    const call = e.make("agent-main", {
      type: "tool_call",
      call_id: "m1",
      tool_name: "mcp__everything__echo",
      tool_args: {},
      mcp: { server: "everything", tool: "echo" },
    });
    const failed = e.mcp("agent-main", "broken", "failed", null, "exited or hung up");
    const closed = e.mcp("agent-main", "everything", "closed");
    const book = bookFromPast(past([...skeleton, connected, call, failed, closed], [stored("agent-main", null)]));
    expect(pagesOf(book, "agent-main").oldest).toBe(connected.seq);
    expect(reduceBook(book).agents["agent-main"]?.items).toMatchObject([
      { kind: "mcp", server: "everything", state: "closed", pid: 99 },
      { kind: "tool", toolName: "mcp__everything__echo", mcp: { server: "everything", tool: "echo" } },
      { kind: "mcp", server: "broken", state: "failed", error: "exited or hung up" },
    ]);
  });

  it("shows the stored status of an agent whose process died, until live events after a resume", () => {
    const e = eventMaker();
    const events = [e.started("agent-main", null, "main"), e.status("agent-main", "running")];
    const book = bookFromPast(past(events, [stored("agent-main", null, "interrupted")]));
    expect(reduceBook(book).agents["agent-main"]?.status).toBe("interrupted");

    // The frame carries the agent as Rust derived it after the live events.
    const resumed = stored("agent-main", null, "running");
    appendLive(book, [e.make("agent-main", { type: "user_message", content: "go on" }), e.status("agent-main", "running")], reduceBook(book), [resumed]);
    expect(book.agents).toEqual([resumed]);
    const s = reduceBook(book);
    expect(s.agents["agent-main"]?.status).toBe("running");
    expect(s.agents["agent-main"]?.items).toMatchObject([{ kind: "user", text: "go on" }]);
    // Other sessions' events are not recorded.
    appendLive(book, [eventMaker("s-other").status("agent-x", "running")], reduceBook(book), [stored("agent-x", null, "running")]);
    expect(book.events).toHaveLength(4);
    expect(book.agents).toEqual([resumed]);
  });

  it("keeps the stored usage figures through every rebuild, then the live session's latest", () => {
    const e = eventMaker();
    const events = [e.started("agent-main", null, "main"), e.started("agent-a", "agent-main", "A")];
    const stored1 = usageUpdate(
      [agentUsage("agent-main", figures(100, 0.5), figures(130, 0.75)), agentUsage("agent-a", figures(30, 0.25))],
      figures(130, 0.75),
    );
    let book = bookFromPast(past(events, [stored("agent-main", null), stored("agent-a", "agent-main")], false, stored1));
    const s = reduceBook(book);
    expect(s.usage.agents["agent-main"]).toEqual(stored1.agents[0]);
    expect(s.usage.agents["agent-a"]?.own.tokens).toBe(30);
    expect(s.usage.session).toEqual(figures(130, 0.75));
    // A page arriving rebuilds the state: the figures stay.
    book = addPage(book, "agent-a", { events: [e.make("agent-a", { type: "response", content: "hi" })], more_before: false });
    expect(reduceBook(book).usage).toBe(s.usage);

    // Resumed: the live state's figures (a frame replaced agent-a's) become the book's.
    const liveState = {
      ...reduceBook(book),
      usage: { agents: { ...s.usage.agents, "agent-a": agentUsage("agent-a", figures(40)) }, session: figures(140) },
    };
    appendLive(book, [e.status("agent-a", "running")], liveState, [stored("agent-a", "agent-main", "running")]);
    expect(book.usage).toBe(liveState.usage);
    expect(reduceBook(book).usage.agents["agent-a"]?.own.tokens).toBe(40);
    // Another session's state leaves them alone.
    appendLive(book, [e.status("agent-a", "completed")], { ...liveState, sessionId: "s-other", usage: { agents: {}, session: null } }, []);
    expect(book.usage).toBe(liveState.usage);
  });
});
