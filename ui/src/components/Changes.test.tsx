import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentChange } from "../bindings";
import { openPastSession } from "../ipc/history";
import { fileChangedOf } from "../lib/changes";
import { changesStore } from "../store/changes";
import { select, uiStore } from "../store/ui";
import { eventMaker, fileChange, worktreeUpdate } from "../test/events";
import { pastSession, storedAgent } from "../test/past";
import { applyEvents, resetStores, sessionInfo } from "../test/stores";
import { AgentTree } from "./AgentTree";
import { OutputView } from "./output/OutputView";
import { withLayout } from "../test/layout";

const commands = {
  revertChanges: vi.fn(),
  worktreeAction: vi.fn(),
  sessionChanges: vi.fn(),
  openSession: vi.fn(),
  loadTranscript: vi.fn(),
  sendCommand: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

const main = fileChange("README.md", "old\n", "new\n");
const edit = fileChange("src/a.rs", "fn a() {}\n", "fn a() { 1 }\n", { lines_added: 3, lines_removed: 1 });
const created = fileChange("src/new.rs", null, "fn n() {}\n");
const helper = fileChange("docs/b.md", "b\n", "B\n", { ambiguous_with: ["agent-c"] });
const image = fileChange("logo.png", "x", "y", {
  before: { kind: "binary", base64: "AAECAw==" },
  after: { kind: "not_kept", bytes: 2048, reason: "larger than the bound" },
});

function live() {
  const e = eventMaker();
  applyEvents([
    e.started("agent-main", null, "main"),
    e.started("agent-a", "agent-main", "Write the tests"),
    e.started("agent-b", "agent-a", "Fix the docs"),
    e.started("agent-c", "agent-main", "Run the build"),
    e.changed("agent-main", main),
    e.changed("agent-a", edit),
    e.changed("agent-b", helper),
    e.changed("agent-a", created),
    e.changed("agent-a", image),
  ]);
  return e;
}

function files() {
  return screen.queryAllByTestId("changes-file").map((f) => `${f.dataset.agent}:${f.dataset.path}`);
}
function file(path: string) {
  const el = screen.getAllByTestId("changes-file").find((f) => f.dataset.path === path);
  if (!el) throw new Error(`no file ${path}`);
  return el;
}
function treeNode(id: string) {
  const el = screen.getAllByTestId("tree-node").find((n) => n.dataset.agentId === id);
  if (!el) throw new Error(`no node ${id}`);
  return el;
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  resetStores({ session: sessionInfo() });
});

describe("the Changes view of a live session", () => {
  it("opens from its tab and lists the agent's files in order, then its subtree's with the toggle", () => {
    live();
    select("agent-a");
    render(<OutputView />);
    expect(screen.queryByTestId("changes-view")).toBeNull();
    expect(screen.getByTestId("changes-tab").textContent).toBe("Changes3");
    fireEvent.click(screen.getByTestId("changes-tab"));
    expect(screen.getByTestId("changes-view")).toBeTruthy();
    expect(files()).toEqual(["agent-a:src/a.rs", "agent-a:src/new.rs", "agent-a:logo.png"]);
    const a = file("src/a.rs");
    expect(a.dataset.kind).toBe("modified");
    expect(a.textContent).toContain("+3 −1");
    expect(a.textContent).toContain("Write the tests");
    expect(file("src/new.rs").dataset.kind).toBe("created");
    fireEvent.click(screen.getByTestId("changes-subtree-toggle"));
    expect(files()).toEqual(["agent-a:src/a.rs", "agent-b:docs/b.md", "agent-a:src/new.rs", "agent-a:logo.png"]);
    expect(file("docs/b.md").textContent).toContain("Fix the docs");
    // Back to the output: the tab is the pane's.
    fireEvent.click(screen.getByTestId("output-tab"));
    expect(screen.queryByTestId("changes-view")).toBeNull();
  });

  it("marks an ambiguous change, naming the other agents, never as certain", () => {
    live();
    select("agent-b");
    uiStore.set((s) => ({ ...s, outputTab: "changes" }));
    render(<OutputView />);
    const marks = screen.getAllByTestId("changes-ambiguous");
    expect(marks).toHaveLength(1);
    expect(marks[0]?.textContent).toContain("Ambiguous: Run the build was running commands in the same tree");
    expect(file("docs/b.md").dataset.ambiguous).toBe("true");
  });

  it("shows a file's diff when opened, and a note for sides that are not text", () => {
    live();
    select("agent-a");
    uiStore.set((s) => ({ ...s, outputTab: "changes" }));
    render(<OutputView />);
    expect(screen.queryByTestId("changes-diff")).toBeNull();
    fireEvent.click(within(file("src/a.rs")).getByRole("button", { expanded: false }));
    const diff = within(file("src/a.rs")).getByTestId("changes-diff");
    const lines = within(diff).getAllByTestId("diff-line").map((l) => `${l.dataset.kind}:${l.textContent}`);
    expect(lines).toEqual(["del:−fn a() {}", "add:+fn a() { 1 }"]);
    fireEvent.click(within(file("src/new.rs")).getByRole("button", { expanded: false }));
    expect(within(file("src/new.rs")).getAllByTestId("diff-line").map((l) => l.dataset.kind)).toEqual(["add"]);
    fireEvent.click(within(file("logo.png")).getByRole("button", { expanded: false }));
    expect(within(file("logo.png")).queryByTestId("changes-diff")).toBeNull();
    const note = within(file("logo.png")).getByTestId("changes-note").textContent;
    expect(note).toContain("Before: binary file (4 B)");
    expect(note).toContain("After: not kept (2.0 KB): larger than the bound");
  });

  it("reverts all of the agent's changes and lists the files reverted", async () => {
    live();
    select("agent-a");
    uiStore.set((s) => ({ ...s, outputTab: "changes" }));
    commands.revertChanges.mockReturnValue(ok({ reverted: ["src/a.rs", "src/new.rs", "logo.png"], conflicts: [] }));
    render(<OutputView />);
    const all = screen.getByTestId("changes-revert-all");
    expect(all.textContent).toBe("Revert all of Write the tests's changes");
    // It asks first, saying what it puts back; Cancel reverts nothing.
    fireEvent.click(all);
    expect(screen.getByTestId("changes-revert-question").textContent).toContain("Put back every file Write the tests changed");
    fireEvent.click(screen.getByTestId("changes-revert-cancel"));
    expect(screen.queryByTestId("changes-revert-question")).toBeNull();
    expect(commands.revertChanges).not.toHaveBeenCalled();
    fireEvent.click(all);
    await act(async () => {
      fireEvent.click(screen.getByTestId("changes-revert-confirm"));
    });
    expect(commands.revertChanges).toHaveBeenCalledWith("s-1", "agent-a", []);
    const result = screen.getByTestId("changes-reverted");
    expect(result.textContent).toContain("Reverted 3 files.");
    expect(result.textContent).toContain("src/new.rs");
    expect(screen.queryByTestId("changes-conflicts")).toBeNull();
  });

  it("reverts one file, and shows each conflict plainly when nothing was reverted", async () => {
    live();
    select("agent-a");
    uiStore.set((s) => ({ ...s, outputTab: "changes" }));
    commands.revertChanges.mockReturnValue(ok({ reverted: [], conflicts: [{ path: "src/a.rs", reason: "changed since by you" }] }));
    render(<OutputView />);
    await act(async () => {
      fireEvent.click(within(file("src/a.rs")).getByTestId("changes-revert-file"));
    });
    expect(commands.revertChanges).toHaveBeenCalledWith("s-1", "agent-a", ["src/a.rs"]);
    const conflicts = screen.getByTestId("changes-conflicts");
    expect(conflicts.getAttribute("role")).toBe("alert");
    expect(conflicts.textContent).toContain("Nothing was reverted");
    expect(conflicts.textContent).toContain("src/a.rs: changed since by you");
    expect(screen.queryByTestId("changes-reverted")).toBeNull();
  });

  it("marks a person's revert, and the change it undid, as they arrive live", () => {
    const e = live();
    select("agent-a");
    uiStore.set((s) => ({ ...s, outputTab: "changes" }));
    render(<OutputView />);
    act(() => {
      applyEvents([e.changed("agent-a", fileChange("src/a.rs", "fn a() { 1 }\n", "fn a() {}\n", { call_id: null, revert_of: [edit.change_id] }))]);
    });
    const rows = screen.getAllByTestId("changes-file").filter((f) => f.dataset.path === "src/a.rs");
    expect(rows.map((r) => [r.dataset.reverted, r.dataset.revert])).toEqual([
      ["true", undefined],
      [undefined, "true"],
    ]);
    expect(rows[1]?.textContent).toContain("reverted by you");
    // Neither offers a revert again.
    expect(rows.every((r) => within(r).queryByTestId("changes-revert-file") === null)).toBe(true);
  });
});

describe("file changes in an agent's output", () => {
  it("is one compact line per change, ambiguous ones marked; it opens the change in Changes", () => {
    live();
    select("agent-b");
    render(<OutputView />);
    const line = screen.getByTestId("output-change");
    expect(line.textContent).toContain("✎ modified docs/b.md +1 −1");
    expect(within(line).getByTestId("output-change-ambiguous").textContent).toBe("ambiguous: maybe Run the build");
    fireEvent.click(within(line).getByTitle("Show in Changes"));
    expect(screen.getByTestId("changes-view")).toBeTruthy();
    expect(within(file("docs/b.md")).getByTestId("changes-diff")).toBeTruthy();
    expect(changesStore.get().expanded[helper.change_id]).toBe(true);
  });
});

describe("the tree's change count", () => {
  it("counts the files each agent changed and opens its Changes", () => {
    live();
    render(
      <>
        <AgentTree />
        <OutputView />
      </>,
    );
    const count = within(treeNode("agent-a")).getByTestId("tree-changes-count");
    expect(count.textContent).toBe("±3");
    expect(count.getAttribute("title")).toBe("3 files changed");
    expect(within(treeNode("agent-c")).queryByTestId("tree-changes-count")).toBeNull();
    fireEvent.click(count);
    expect(uiStore.get().selected).toBe("agent-a");
    expect(screen.getByTestId("changes-view")).toBeTruthy();
    expect(files()).toHaveLength(3);
  });
});

describe("an agent's worktree in the tree", () => {
  const ready = worktreeUpdate("ready", {
    files: [
      { path: "src/a.rs", kind: "modified", lines_added: 3, lines_removed: 1 },
      { path: "src/b.rs", kind: "created", lines_added: 9, lines_removed: 0 },
    ],
  });

  function withWorktree(update = ready) {
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Write the tests"),
      e.worktree("agent-a", worktreeUpdate("created")),
      e.worktree("agent-a", update),
    ]);
    return e;
  }

  it("says a worktree waits for a decision whichever row is selected, and a click goes to it", () => {
    withWorktree();
    render(<AgentTree />);
    act(() => select("agent-main"));
    const line = screen.getByTestId("worktree-waiting");
    expect(line.textContent).toContain("Write the tests");
    expect(line.textContent).toContain("Merge, Keep or Discard");
    fireEvent.click(line);
    expect(uiStore.get().selected).toBe("agent-a");
    // Selected, its whole panel shows instead of its line.
    expect(screen.queryByTestId("worktree-waiting")).toBeNull();
    expect(screen.getByTestId("worktree-merge")).toBeTruthy();
  });

  it("badges its state, and offers its files and actions on the selected row only", () => {
    withWorktree();
    render(<AgentTree />);
    const badge = within(treeNode("agent-a")).getByTestId("worktree-badge");
    expect(badge.dataset.state).toBe("ready");
    expect(badge.textContent).toContain("ready to merge");
    expect(screen.queryByTestId("worktree-files")).toBeNull();
    act(() => select("agent-a"));
    // Under the tree, not in the row: selecting a row never changes its height.
    const panel = screen.getByRole("region", { name: "Worktree of “Write the tests”" });
    expect(within(treeNode("agent-a")).queryByTestId("worktree-files")).toBeNull();
    expect(within(panel).getByTestId("worktree-files").textContent).toBe("2 files, +12 −1 on arbor/agent-a");
    for (const id of ["worktree-merge", "worktree-keep", "worktree-discard"]) expect(screen.getByTestId(id)).toBeTruthy();
  });

  it("merges and keeps through worktree_action with the session's id", async () => {
    withWorktree();
    select("agent-a");
    commands.worktreeAction.mockReturnValue(ok(worktreeUpdate("merged")));
    render(<AgentTree />);
    // Merge asks first: it changes the parent's tree.
    fireEvent.click(screen.getByTestId("worktree-merge"));
    expect(commands.worktreeAction).not.toHaveBeenCalled();
    expect(screen.getByTestId("worktree-merge-question").textContent).toContain("all of it, or nothing");
    await act(async () => {
      fireEvent.click(screen.getByTestId("worktree-merge-confirm"));
    });
    expect(commands.worktreeAction).toHaveBeenCalledWith("s-1", "agent-a", "merge");
    await act(async () => {
      fireEvent.click(screen.getByTestId("worktree-keep"));
    });
    expect(commands.worktreeAction).toHaveBeenLastCalledWith("s-1", "agent-a", "keep");
  });

  it("asks before Discard, which deletes the work", async () => {
    withWorktree();
    select("agent-a");
    commands.worktreeAction.mockReturnValue(ok(worktreeUpdate("discarded")));
    render(<AgentTree />);
    fireEvent.click(screen.getByTestId("worktree-discard"));
    expect(commands.worktreeAction).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("worktree-discard-cancel"));
    fireEvent.click(screen.getByTestId("worktree-discard"));
    await act(async () => {
      fireEvent.click(screen.getByTestId("worktree-discard-confirm"));
    });
    expect(commands.worktreeAction).toHaveBeenCalledWith("s-1", "agent-a", "discard");
  });

  it("lists a refused merge's conflicts file by file: the parent's tree was not changed", () => {
    withWorktree(worktreeUpdate("conflicted", { files: ready.files, conflicts: [{ path: "src/a.rs", reason: "the parent changed it too" }] }));
    select("agent-a");
    render(<AgentTree />);
    const conflicts = screen.getByTestId("worktree-conflicts");
    expect(conflicts.textContent).toContain("Nothing was applied to the parent's tree");
    expect(conflicts.textContent).toContain("src/a.rs: the parent changed it too");
    expect(screen.getByTestId("worktree-merge")).toBeTruthy();
  });

  it("offers no actions once merged", () => {
    const e = withWorktree();
    select("agent-a");
    render(<AgentTree />);
    act(() => {
      applyEvents([e.worktree("agent-a", worktreeUpdate("merged", { files: ready.files }))]);
    });
    expect(screen.getByTestId("worktree-badge").dataset.state).toBe("merged");
    expect(screen.queryByTestId("worktree-merge")).toBeNull();
  });

  it("shows a failed action's error", async () => {
    withWorktree();
    select("agent-a");
    commands.worktreeAction.mockReturnValue(Promise.resolve({ status: "error", error: { kind: "session", message: "git is gone" } }));
    render(<AgentTree />);
    await act(async () => {
      fireEvent.click(screen.getByTestId("worktree-keep"));
    });
    expect(within(screen.getByTestId("worktree-panel")).getByRole("alert").textContent).toBe("git is gone");
  });
});

describe("a past session's changes", () => {
  async function review() {
    const e = eventMaker("s-past");
    const events = [
      e.started("agent-main", null, "main"),
      e.started("agent-a", "agent-main", "Write the tests"),
      e.worktree("agent-a", worktreeUpdate("ready", { files: [{ path: "x", kind: "created", lines_added: 1, lines_removed: 0 }] })),
    ];
    const stored = [e.changed("agent-a", edit), e.changed("agent-a", created)].map((ev): AgentChange => {
      if (ev.type !== "file_changed") throw new Error("not a change");
      return { seq: ev.seq, ts: ev.ts, agent_id: ev.agent_id, change: fileChangedOf(ev) };
    });
    commands.openSession.mockReturnValue(ok(pastSession(events, [storedAgent("agent-main", null), storedAgent("agent-a", "agent-main")])));
    commands.sessionChanges.mockReturnValue(ok(stored));
    await act(async () => {
      await openPastSession("s-past");
    });
    return stored;
  }

  it("loads them with session_changes when the session is opened, and reloads them after a revert", async () => {
    const stored = await review();
    expect(commands.sessionChanges).toHaveBeenCalledWith("s-past", null);
    act(() => {
      select("agent-a");
      uiStore.set((s) => ({ ...s, outputTab: "changes" }));
    });
    render(
      <>
        <AgentTree />
        <OutputView />
      </>,
    );
    expect(files()).toEqual(["agent-a:src/a.rs", "agent-a:src/new.rs"]);
    expect(within(treeNode("agent-a")).getByTestId("tree-changes-count").textContent).toBe("±2");
    const undo: AgentChange = {
      seq: 40,
      ts: 9000,
      agent_id: "agent-a",
      change: fileChange("src/new.rs", "fn n() {}\n", null, { revert_of: [created.change_id], call_id: null }),
    };
    commands.revertChanges.mockReturnValue(ok({ reverted: ["src/new.rs"], conflicts: [] }));
    commands.sessionChanges.mockReturnValue(ok([...stored, undo]));
    await act(async () => {
      fireEvent.click(within(file("src/new.rs")).getByTestId("changes-revert-file"));
    });
    expect(commands.revertChanges).toHaveBeenCalledWith("s-past", "agent-a", ["src/new.rs"]);
    expect(commands.sessionChanges).toHaveBeenCalledTimes(2);
    expect(screen.getByTestId("changes-reverted").textContent).toContain("src/new.rs");
    expect(files()).toEqual(["agent-a:src/a.rs", "agent-a:src/new.rs", "agent-a:src/new.rs"]);
  });

  it("acts on a worktree left by the past run, and shows the answer", async () => {
    await review();
    act(() => select("agent-a"));
    commands.worktreeAction.mockReturnValue(ok(worktreeUpdate("kept")));
    render(<AgentTree />);
    await act(async () => {
      fireEvent.click(screen.getByTestId("worktree-keep"));
    });
    expect(commands.worktreeAction).toHaveBeenCalledWith("s-past", "agent-a", "keep");
    expect(screen.getByTestId("worktree-badge").dataset.state).toBe("kept");
    expect(screen.queryByTestId("worktree-panel")).toBeNull();
  });

  it("says so when the changes could not be loaded", async () => {
    commands.openSession.mockReturnValue(ok(pastSession([eventMaker("s-past").started("agent-main", null, "main")], [storedAgent("agent-main", null)])));
    commands.sessionChanges.mockReturnValue(Promise.resolve({ status: "error", error: { kind: "store", message: "the store is locked" } }));
    await act(async () => {
      await openPastSession("s-past");
    });
    uiStore.set((s) => ({ ...s, outputTab: "changes" }));
    render(<OutputView />);
    expect(screen.getByTestId("changes-view").textContent).toContain("Could not load the session's changes: the store is locked");
  });
});
