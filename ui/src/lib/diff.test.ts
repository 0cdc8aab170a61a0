import { describe, expect, it } from "vitest";
import { diffCounts, foldDiff, lineDiff, type DiffLine } from "./diff";

describe("lineDiff", () => {
  it("shows an Edit's removed and added lines around the unchanged ones", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc\nd")).toEqual([
      { kind: "ctx", text: "a" },
      { kind: "del", text: "b" },
      { kind: "add", text: "B" },
      { kind: "ctx", text: "c" },
      { kind: "add", text: "d" },
    ]);
  });

  it("shows a Write of new content as all added", () => {
    expect(lineDiff("", "x\ny\n")).toEqual([
      { kind: "add", text: "x" },
      { kind: "add", text: "y" },
    ]);
  });

  it("shows an overwrite's lost lines as removed", () => {
    const lines = lineDiff("keep\nold one\nold two\n", "keep\nnew\n");
    expect(lines.filter((l) => l.kind === "del").map((l) => l.text)).toEqual(["old one", "old two"]);
    expect(diffCounts(lines)).toEqual({ added: 1, removed: 2 });
  });
});

describe("foldDiff", () => {
  const ctx = (n: number, from = 0): DiffLine[] => Array.from({ length: n }, (_, i) => ({ kind: "ctx", text: `l${from + i}` }));

  it("keeps each change with three lines of context and folds the unchanged stretches between", () => {
    const lines: DiffLine[] = [...ctx(10), { kind: "del", text: "x" }, { kind: "add", text: "y" }, ...ctx(20, 10), { kind: "add", text: "z" }, ...ctx(5, 30)];
    const rows = foldDiff(lines);
    expect(rows.map((r) => (r.kind === "fold" ? `…${r.count}` : r.line.text))).toEqual([
      "…7",
      "l7",
      "l8",
      "l9",
      "x",
      "y",
      "l10",
      "l11",
      "l12",
      "…14",
      "l27",
      "l28",
      "l29",
      "z",
      "l30",
      "l31",
      "l32",
      "…2",
    ]);
  });

  it("folds nothing when nothing changed or all of it did", () => {
    expect(foldDiff(ctx(50)).every((r) => r.kind === "line")).toBe(true);
    expect(foldDiff(lineDiff("", "a\nb\nc\n")).map((r) => r.kind)).toEqual(["line", "line", "line"]);
  });
});
