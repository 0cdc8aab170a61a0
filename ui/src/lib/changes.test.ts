import { describe, expect, it } from "vitest";
import { ISOLATIONS } from "../bindings";
import { isOneOf } from "./choice";
import type { AgentChange, AgentEvent } from "../bindings";
import { fileChange, worktreeUpdate } from "../test/events";
import {
  changePlace,
  revertable,
  worktreeActionable,
  ambiguousText,
  base64Bytes,
  changeDiff,
  changeLine,
  changesSummary,
  fileChangedOf,
  fileCounts,
  filesChanged,
  groupByAgent,
  isOpenWorktree,
  isolationRequest,
  ISOLATION_LABELS,
  isRevert,
  mergeChanges,
  ofAgents,
  revertedIds,
  revertSummary,
  sideView,
  subtreeIds,
  worktreeFilesSummary,
  worktreeUpdateOf,
  WORKTREE_STATE_LABELS,
} from "./changes";

const at = (seq: number, agent: string, path: string, extra = {}): AgentChange => ({
  seq,
  ts: seq * 10,
  agent_id: agent,
  change: fileChange(path, "a\n", "b\n", extra),
});

describe("changes from events", () => {
  it("takes the change out of its event, absent lists as empty", () => {
    const change = fileChange("src/a.rs", "x\n", "y\n");
    const { ambiguous_with: _a, revert_of: _r, ...bare } = change;
    const ev = { agent_id: "agent-a", session_id: "s-1", seq: 3, ts: 1, type: "file_changed", ...bare } as AgentEvent;
    expect(ev.type === "file_changed" && fileChangedOf(ev)).toEqual({ ...change, ambiguous_with: [], revert_of: [] });
  });

  it("takes the worktree update out of its event, absent lists as empty", () => {
    const { files: _f, conflicts: _c, ...bare } = worktreeUpdate("ready");
    const ev = { agent_id: "agent-a", session_id: "s-1", seq: 3, ts: 1, type: "worktree", ...bare } as AgentEvent;
    expect(ev.type === "worktree" && worktreeUpdateOf(ev)).toEqual(worktreeUpdate("ready"));
  });
});

describe("a session's changes", () => {
  it("merges two lists by seq, once each, and keeps the first list when the second adds nothing", () => {
    const a = [at(2, "x", "a"), at(5, "x", "b")];
    const merged = mergeChanges(a, [at(5, "x", "b"), at(1, "y", "c"), at(9, "y", "d"), at(9, "y", "d")]);
    expect(merged.map((c) => c.seq)).toEqual([1, 2, 5, 9]);
    expect(merged[2]).toBe(a[1]);
    expect(mergeChanges(a, [at(2, "x", "a")])).toBe(a);
  });

  it("counts a file made in a worktree and merged once, adds nothing for a revert, and offers to revert only what can be", () => {
    const wt = worktreeUpdate("merged");
    const inWorktree = (seq: number, path: string): AgentChange => ({
      ...at(seq, "kid", path),
      change: fileChange(path, "a\n", "b\n", { root: wt.path }),
    });
    const merged = (seq: number, path: string): AgentChange => ({
      ...at(seq, "kid", path),
      change: fileChange(path, "a\n", "b\n", { root: wt.parent_root, call_id: null }),
    });
    const reverted = (seq: number, path: string, of: string): AgentChange => ({
      ...at(seq, "kid", path),
      change: fileChange(path, "b\n", "a\n", { root: wt.parent_root, call_id: null, revert_of: [of] }),
    });
    const rows = [inWorktree(1, "a.rs"), inWorktree(2, "b.rs"), merged(3, "a.rs"), merged(4, "b.rs")];
    rows.push(reverted(5, "a.rs", rows[2]!.change.change_id), reverted(6, "b.rs", rows[3]!.change.change_id));
    // Two files over six rows: two files.
    expect(filesChanged(rows)).toBe(2);
    expect(changesSummary(rows).startsWith("2 files changed")).toBe(true);
    // The worktree is gone (merged): its rows cannot be put back; the merged ones can; a revert is not revertable.
    expect(rows.map((r) => revertable(r.change, wt))).toEqual([false, false, true, true, false, false]);
    expect(revertable(rows[0]!.change, worktreeUpdate("ready"))).toBe(true);
  });

  it("groups by agent, picks a subtree's agents in order, counts different files", () => {
    const list = [at(1, "main", "a"), at(2, "kid", "b"), at(3, "main", "a"), at(4, "grandkid", "c"), at(5, "other", "d")];
    expect(Object.fromEntries(Object.entries(groupByAgent(list)).map(([k, v]) => [k, v.map((c) => c.seq)]))).toEqual({
      main: [1, 3],
      kid: [2],
      grandkid: [4],
      other: [5],
    });
    const agents = { main: { children: ["kid"] }, kid: { children: ["grandkid"] }, grandkid: { children: [] }, other: { children: [] } };
    const ids = subtreeIds(agents, "main");
    expect([...ids].sort()).toEqual(["grandkid", "kid", "main"]);
    expect(ofAgents(list, ids).map((c) => c.seq)).toEqual([1, 2, 3, 4]);
    expect(filesChanged(list)).toBe(4);
    expect(fileCounts(list)).toEqual({ main: 1, kid: 1, grandkid: 1, other: 1 });
    expect(changesSummary([at(1, "main", "a"), at(3, "main", "a")])).toBe("1 file changed · +2 −2");
  });

  it("survives a cycle in the tree", () => {
    expect([...subtreeIds({ a: { children: ["b"] }, b: { children: ["a"] } }, "a")].sort()).toEqual(["a", "b"]);
  });

  it("knows a person's revert and what it undid", () => {
    const original = at(1, "x", "a");
    const undo = at(2, "x", "a", { revert_of: [original.change.change_id] });
    expect(isRevert(original.change)).toBe(false);
    expect(isRevert(undo.change)).toBe(true);
    expect([...revertedIds([original, undo])]).toEqual([original.change.change_id]);
  });

  it("says a change in a line and an ambiguous one as maybe others'", () => {
    expect(changeLine(fileChange("src/a.rs", "x", "y", { lines_added: 3, lines_removed: 1 }))).toBe("modified src/a.rs +3 −1");
    expect(ambiguousText(["Write docs"])).toContain("Ambiguous: Write docs was running commands in the same tree");
    expect(ambiguousText(["A", "B", "C"])).toContain("A, B and C were running");
  });
});

describe("what a diff shows of a change", () => {
  it("compares texts, an absent side as empty", () => {
    expect(changeDiff(fileChange("n.txt", null, "hi\n"))).toEqual({ kind: "diff", before: "", after: "hi\n" });
    expect(changeDiff(fileChange("d.txt", "bye\n", null))).toEqual({ kind: "diff", before: "bye\n", after: "" });
  });

  it("notes a binary or unkept side instead of a diff", () => {
    const change = fileChange("img.png", "x", "y", {
      before: { kind: "binary", base64: "AAECAw==" },
      after: { kind: "not_kept", bytes: 3 * 1024 * 1024, reason: "larger than the bound" },
    });
    expect(sideView(change.before)).toEqual({ kind: "note", note: "binary file (4 B), no text to compare" });
    expect(changeDiff(change)).toEqual({
      kind: "notes",
      notes: ["Before: binary file (4 B), no text to compare.", "After: not kept (3.0 MB): larger than the bound."],
    });
    expect(base64Bytes("AAEC")).toBe(3);
    expect(base64Bytes("AA==")).toBe(1);
  });
});

describe("a revert's answer", () => {
  it("is every file reverted, or nothing when any conflicts", () => {
    expect(revertSummary({ reverted: ["a", "b"], conflicts: [] })).toEqual({ ok: true, text: "Reverted 2 files." });
    expect(revertSummary({ reverted: [], conflicts: [] })).toEqual({ ok: true, text: "Nothing to revert." });
    const r = revertSummary({ reverted: [], conflicts: [{ path: "a", reason: "changed since" }] });
    expect(r.ok).toBe(false);
    expect(r.text).toMatch(/^Nothing was reverted: 1 file /);
  });
});

describe("worktrees and isolation", () => {
  it("has words for every state and opens only Rust's open states", () => {
    expect(Object.keys(WORKTREE_STATE_LABELS).sort()).toEqual(
      ["conflicted", "created", "discarded", "kept", "merged", "ready", "removed"],
    );
    expect(isOpenWorktree("ready")).toBe(true);
    expect(isOpenWorktree("conflicted")).toBe(true);
    expect(isOpenWorktree("merged")).toBe(false);
    expect(isOpenWorktree("created")).toBe(false);
  });

  it("sums a branch's files", () => {
    expect(
      worktreeFilesSummary([
        { path: "a", kind: "modified", lines_added: 3, lines_removed: 1 },
        { path: "b", kind: "created", lines_added: 9, lines_removed: 0 },
      ]),
    ).toBe("2 files, +12 −1");
    expect(worktreeFilesSummary([])).toBe("0 files, +0 −0");
  });

  it("sends the shared tree as null", () => {
    expect(isolationRequest("shared")).toBeNull();
    expect(isolationRequest("worktree")).toBe("worktree");
    expect(isOneOf(ISOLATIONS, "worktree")).toBe(true);
    expect(isOneOf(ISOLATIONS, "elsewhere")).toBe(false);
    expect(ISOLATION_LABELS.shared).toBe("Shared tree");
  });
});

describe("where a worktree agent's change was made", () => {
  const wt = worktreeUpdate("merged", { path: "/w/.git/arbor/worktrees/s/a", parent_root: "/w" });
  it("tells its worktree from the parent's tree it was merged into", () => {
    expect(changePlace(fileChange("d.md", null, "x", { root: "/w/.git/arbor/worktrees/s/a" }), wt)).toBe("worktree");
    expect(changePlace(fileChange("d.md", null, "x", { root: "/w", call_id: null }), wt)).toBe("merged");
    expect(changePlace(fileChange("d.md", "x", null, { root: "/w", call_id: null, revert_of: ["c1"] }), wt)).toBeNull();
    expect(changePlace(fileChange("d.md", null, "x", { root: "/w" }), null)).toBeNull();
  });
});

describe("when a worktree can be acted on", () => {
  it("is when it waits for a decision, or its agent ended without finishing it", () => {
    expect(worktreeActionable("ready", true)).toBe(true);
    expect(worktreeActionable("conflicted", true)).toBe(true);
    expect(worktreeActionable("created", false)).toBe(false);
    expect(worktreeActionable("created", true)).toBe(true);
    expect(worktreeActionable("merged", true)).toBe(false);
  });
});
