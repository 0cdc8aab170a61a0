import { describe, expect, it } from "vitest";
import type { Range, VirtualItem } from "@tanstack/react-virtual";
import { OVERSCAN_PX, OVERSCAN_ROWS, nearRows } from "./overscan";

/** Rows of these heights, one under another from 0. */
function rows(heights: number[]): VirtualItem[] {
  let start = 0;
  return heights.map((size, index) => {
    const item = { key: index, index, start, end: start + size, size, lane: 0 };
    start += size;
    return item;
  });
}

const range = (startIndex: number, endIndex: number, count: number): Range => ({ startIndex, endIndex, count, overscan: 0 });

describe("nearRows", () => {
  it("mounts OVERSCAN_ROWS short rows each way past the view", () => {
    const items = rows(Array(40).fill(40));
    expect(nearRows(range(20, 25, 40), items)).toEqual(Array.from({ length: 6 + OVERSCAN_ROWS * 2 }, (_, i) => 20 - OVERSCAN_ROWS + i));
  });

  it("mounts only the tall rows near the view: one a Task card's height away, not six", () => {
    const items = rows(Array(30).fill(900));
    // One row in view, in the middle: the rows either side end or start at the view's edge.
    expect(nearRows(range(15, 15, 30), items)).toEqual([14, 15, 16]);
  });

  it("stops where a row starts OVERSCAN_PX or more from the view", () => {
    const items = rows([100, OVERSCAN_PX, 100, 100, OVERSCAN_PX - 1, 100]);
    // In view: row 2 and 3. Above, row 1 ends at the view; row 0 ends OVERSCAN_PX above it. Below, row 4 starts
    // at the view, row 5 starts OVERSCAN_PX - 1 below it.
    expect(nearRows(range(2, 3, 6), items)).toEqual([1, 2, 3, 4, 5]);
  });

  it("keeps to the list's ends, and mounts nothing of an empty one", () => {
    const items = rows([50, 50, 50]);
    expect(nearRows(range(0, 2, 3), items)).toEqual([0, 1, 2]);
    expect(nearRows(range(0, -1, 0), [])).toEqual([]);
  });
});
