/**
 * Which rows a virtual list of rows of any height mounts beyond those in
 * view: a few each way, but only those near the view. A row count alone
 * (the virtualizer's `overscan`) mounted six of an agent's Task cards each
 * way, each a 4,000-character result: some 5,000 px of text created and laid
 * out on every session switch, out of sight (docs/speed.md).
 */
import { defaultRangeExtractor, type Range, type VirtualItem } from "@tanstack/react-virtual";

/** Rows mounted past the visible ones, each way, at most. */
export const OVERSCAN_ROWS = 6;
/** How far from the view (px) a row may start or end and still be mounted. */
export const OVERSCAN_PX = 800;

/**
 * The indexes to mount: the visible range, and up to OVERSCAN_ROWS rows each
 * way whose edge nearest the view is within OVERSCAN_PX of it. `items` are the
 * rows' positions (measured, or estimated until measured). The virtualizer
 * asks again only when the visible range or the row count changes: rows
 * measured since keep the margin worked out before, until the next scroll.
 * Only the margin: the visible rows are always mounted.
 */
export function nearRows(range: Range, items: readonly VirtualItem[]): number[] {
  const { startIndex, endIndex, count } = range;
  if (count === 0 || endIndex < startIndex) return [];
  const top = items[startIndex]?.start ?? 0;
  const bottom = items[endIndex]?.end ?? top;
  let first = startIndex;
  while (first > 0 && startIndex - first < OVERSCAN_ROWS && top - (items[first - 1]?.end ?? top) < OVERSCAN_PX) first--;
  let last = endIndex;
  while (last < count - 1 && last - endIndex < OVERSCAN_ROWS && (items[last + 1]?.start ?? bottom) - bottom < OVERSCAN_PX) last++;
  return defaultRangeExtractor({ ...range, startIndex: first, endIndex: last, overscan: 0 });
}
