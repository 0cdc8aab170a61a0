import { describe, expect, it } from "vitest";
import type { AgentChange } from "../bindings";
import { fileChangedOf } from "../lib/changes";
import { eventMaker, fileChange, worktreeUpdate } from "../test/events";
import { pastSession, storedAgent } from "../test/past";
import { addPage, bookFromPast, reduceBook, withChanges, withWorktreeAction } from "./review";
import { initialSession } from "./session/reducer";
import { reduceBatch } from "../test/agents";
import {
  agentChanges,
  agentName,
  agentWorktree,
  changeCount,
  changesFor,
  revertedChanges,
  subtreeChanges,
} from "./selectors";

function tree() {
  const e = eventMaker();
  return {
    e,
    base: [
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Write the tests"),
      e.started("agent-b", "agent-a", "Fix the docs"),
      e.started("agent-c", "agent-main", "Other work"),
    ],
  };
}

describe("file changes in the session state", () => {
  it("records each file_changed in the session's list and as a line in its agent's output", () => {
    const { e, base } = tree();
    const change = fileChange("src/a.rs", "x\n", "y\n");
    const state = reduceBatch(initialSession(), [...base, e.changed("agent-a", change)]);
    expect(state.changes).toEqual([{ seq: 5, ts: 1500, agent_id: "agent-a", change }]);
    expect(state.agents["agent-a"]?.items.at(-1)).toEqual({ kind: "change", key: "e5", change, ts: 1500 });
  });

  it("selects an agent's own changes, its subtree's in order, and counts different files", () => {
    const { e, base } = tree();
    const state = reduceBatch(initialSession(), [
      ...base,
      e.changed("agent-a", fileChange("a.txt", "1", "2")),
      e.changed("agent-b", fileChange("b.txt", null, "new")),
      e.changed("agent-c", fileChange("c.txt", "1", "2")),
      e.changed("agent-a", fileChange("a.txt", "2", "3")),
      e.changed("agent-main", fileChange("m.txt", "1", null)),
    ]);
    const paths = (list: AgentChange[]) => list.map((c) => `${c.agent_id}:${c.change.path}`);
    expect(paths(agentChanges(state, "agent-a"))).toEqual(["agent-a:a.txt", "agent-a:a.txt"]);
    expect(paths(subtreeChanges(state, "agent-a"))).toEqual(["agent-a:a.txt", "agent-b:b.txt", "agent-a:a.txt"]);
    expect(paths(subtreeChanges(state, "agent-main"))).toHaveLength(5);
    expect(changesFor(state, "agent-a", false)).toBe(agentChanges(state, "agent-a"));
    // Memoised: the same list for the same state.
    expect(subtreeChanges(state, "agent-a")).toBe(subtreeChanges(state, "agent-a"));
    expect(changeCount(state, "agent-a")).toBe(1);
    expect(changeCount(state, "agent-main")).toBe(1);
    expect(changeCount(state, "agent-none")).toBe(0);
    expect(agentChanges(state, "agent-none")).toEqual([]);
  });

  it("knows which changes a person's revert undid", () => {
    const { e, base } = tree();
    const original = fileChange("a.txt", "1", "2");
    const state = reduceBatch(initialSession(), [
      ...base,
      e.changed("agent-a", original),
      e.changed("agent-a", fileChange("a.txt", "2", "1", { call_id: null, revert_of: [original.change_id] })),
    ]);
    expect(revertedChanges(state).has(original.change_id)).toBe(true);
    expect(revertedChanges(state).size).toBe(1);
  });

  it("keeps each agent's latest worktree update", () => {
    const { e, base } = tree();
    const state = reduceBatch(initialSession(), [
      ...base,
      e.worktree("agent-a", worktreeUpdate("created")),
      e.worktree("agent-a", worktreeUpdate("ready", { files: [{ path: "a", kind: "modified", lines_added: 1, lines_removed: 0 }] })),
    ]);
    expect(agentWorktree(state, "agent-a")?.update.state).toBe("ready");
    expect(agentWorktree(state, "agent-a")?.seq).toBe(6);
    expect(agentWorktree(state, "agent-b")).toBeNull();
  });

  it("names agents as the tree does", () => {
    const { base } = tree();
    const state = reduceBatch(initialSession(), base);
    expect(agentName(state, "agent-main")).toBe("Main agent");
    expect(agentName(state, "agent-a")).toBe("Write the tests");
    expect(agentName(state, "agent-zz")).toBe("agent-zz");
  });
});

describe("a stored session's changes", () => {
  it("come from session_changes, merged with those its loaded pages hold", () => {
    const e = eventMaker("s-past");
    const started = [e.started("agent-main", null, "main"), e.started("agent-a", "agent-main", "Write")];
    const early = e.changed("agent-a", fileChange("early.txt", "1", "2"));
    const late = e.changed("agent-a", fileChange("late.txt", "1", "2"));
    let book = bookFromPast(pastSession(started, [storedAgent("agent-main", null), storedAgent("agent-a", "agent-main")]));
    expect(reduceBook(book).changes).toEqual([]);
    // A page of agent-a holds the late change only.
    book = addPage(book, "agent-a", { events: [late], more_before: true });
    expect(reduceBook(book).changes.map((c) => c.change.path)).toEqual(["late.txt"]);
    const listed = [early, late].map((ev): AgentChange => {
      if (ev.type !== "file_changed") throw new Error("not a change");
      return { seq: ev.seq, ts: ev.ts, agent_id: ev.agent_id, change: fileChangedOf(ev) };
    });
    book = withChanges(book, [...listed].reverse());
    const state = reduceBook(book);
    expect(state.changes.map((c) => c.change.path)).toEqual(["early.txt", "late.txt"]);
    expect(changeCount(state, "agent-a")).toBe(2);
    // Only the loaded page's change is a line in the output.
    expect(state.agents["agent-a"]?.items.filter((i) => i.kind === "change")).toHaveLength(1);
  });

  it("takes a worktree action's answer until a newer worktree event of the agent", () => {
    const e = eventMaker("s-past");
    const events = [e.started("agent-main", null, "main"), e.started("agent-a", "agent-main", "Write"), e.worktree("agent-a", worktreeUpdate("ready"))];
    let book = bookFromPast(pastSession(events, [storedAgent("agent-main", null), storedAgent("agent-a", "agent-main")]));
    expect(agentWorktree(reduceBook(book), "agent-a")?.update.state).toBe("ready");
    book = withWorktreeAction(book, "agent-a", worktreeUpdate("merged"));
    expect(agentWorktree(reduceBook(book), "agent-a")?.update.state).toBe("merged");
    book = { ...book, events: [...book.events, e.worktree("agent-a", worktreeUpdate("created", { branch: "arbor/again" }))] };
    expect(agentWorktree(reduceBook(book), "agent-a")?.update.branch).toBe("arbor/again");
  });
});
