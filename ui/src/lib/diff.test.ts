import { describe, expect, it } from "vitest";
import { lineDiff } from "./DiffView";

describe("lineDiff", () => {
  it("shows an Edit's removed and added lines around the unchanged ones", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc\nd")).toEqual([
      { kind: "same", text: "a" },
      { kind: "del", text: "b" },
      { kind: "add", text: "B" },
      { kind: "same", text: "c" },
      { kind: "add", text: "d" },
    ]);
  });

  it("shows a Write of new content as all added", () => {
    expect(lineDiff("", "x\ny\n")).toEqual([
      { kind: "add", text: "x" },
      { kind: "add", text: "y" },
    ]);
  });
});
