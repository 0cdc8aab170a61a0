import { describe, expect, it } from "vitest";
import type { TreeRow } from "../store/selectors";
import { rowLabel, tabStop, treeKey } from "./tree";

const row = (id: string, level: number, parentId: string | null, hasChildren = false, expanded = false): TreeRow => ({
  id,
  level,
  parentId,
  hasChildren,
  expanded,
  posInSet: 1,
  setSize: 1,
});
const rows = [row("m", 0, null, true, true), row("a", 1, "m", true, false), row("b", 1, "m")];

describe("the tree's shape and keys", () => {
  it("reaches the selected row with Tab, else the first", () => {
    expect(tabStop(rows, "b")).toBe("b");
    expect(tabStop(rows, "hidden")).toBe("m");
    expect(tabStop([], null)).toBeNull();
  });

  it("moves as the WAI-ARIA tree pattern says", () => {
    expect(treeKey("ArrowDown", rows, 0)).toEqual({ kind: "focus", id: "a" });
    expect(treeKey("ArrowDown", rows, 2)).toBeNull();
    expect(treeKey("ArrowUp", rows, -1)).toEqual({ kind: "focus", id: "m" });
    expect(treeKey("End", rows, 0)).toEqual({ kind: "focus", id: "b" });
    expect(treeKey("ArrowRight", rows, 1)).toEqual({ kind: "expand", id: "a" });
    expect(treeKey("ArrowRight", rows, 0)).toEqual({ kind: "focus", id: "a" });
    expect(treeKey("ArrowRight", rows, 2)).toBeNull();
    expect(treeKey("ArrowLeft", rows, 0)).toEqual({ kind: "collapse", id: "m" });
    expect(treeKey("ArrowLeft", rows, 2)).toEqual({ kind: "focus", id: "m" });
    expect(treeKey("Enter", rows, 2)).toEqual({ kind: "select", id: "b" });
    expect(treeKey("x", rows, 0)).toBeNull();
  });

  it("names a row by the agent, its status, what waits and a call that did not run", () => {
    expect(rowLabel({ name: "Docs", status: "running", approvals: 2, tool: { summary: "Read a", outcome: "ran" } })).toBe(
      "Docs, running, 2 approvals waiting",
    );
    expect(rowLabel({ name: "Docs", status: "completed", approvals: 0, tool: { summary: "Write b", outcome: "denied" } })).toBe(
      "Docs, completed, last tool Write b denied",
    );
  });
});
