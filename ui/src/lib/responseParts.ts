/**
 * A response in the output list as rows of its own: its Markdown blocks
 * (lib/markdownBlocks.ts) grouped into parts of about PART_LINES source
 * lines, each part one virtual row. A 1,500-line answer is then ~100 rows of
 * which only those on screen are in the DOM, and a streamed append changes
 * only the last part (the earlier ones keep their objects, so their rows do
 * not render again).
 *
 * Parts are cut greedily from the start and a part closes once it holds
 * PART_LINES lines, so an append moves no boundary but the last one or two
 * (the last block may join the one before: a list's next item); a part whose
 * blocks are unchanged keeps its object. A block is never cut (a 300-line
 * fence is one part).
 *
 * A response far longer than what has been split (a long answer arriving
 * whole, or shown for the first time) is split a slice a frame, from its
 * start (`SLICE_CHARS`): marked's lexer reads about 300 characters a
 * millisecond in the webview, and a 56,000-character answer read at once held
 * its frame for 190 ms. Its parts appear as if it streamed fast, and the
 * output asks for the next frame while `behind` is true.
 *
 * The first part's key is the response's own (`e<seq>`), so a jump to an
 * event (search hit, timeline) finds the response as before; the others'
 * (`e<seq>~<n>`) are not event keys, and `rowForSeq` skips them.
 */
import type { OutputItem } from "../store/session/types";
import { lineCount, splitBlocks, type BlockSplit, type Links } from "./markdownBlocks";
import { timed } from "./perf";

export const PART_LINES = 16;
/** Characters of a response split per frame while it is behind (about 15 ms of the webview's lexing). */
export const SLICE_CHARS = 4_000;

type ResponseItem = Extract<OutputItem, { kind: "response" }>;

/** One part of a response: a row of the output. */
export interface ResponsePart {
  kind: "response";
  key: string;
  /** The response's key (shared by its parts). */
  itemKey: string;
  /** The response's first event's time. */
  ts: number;
  blocks: readonly string[];
  links: Links;
  /** Source lines in this part (for the row's first size estimate). */
  lines: number;
  first: boolean;
  last: boolean;
  /** The response is still streaming and this is its last part (it shows the caret). */
  streaming: boolean;
}

/** An output item, with each response replaced by its parts. */
export type PartedItem = Exclude<OutputItem, ResponseItem> | ResponsePart;

interface Entry {
  item: ResponseItem;
  split: BlockSplit;
  parts: ResponsePart[];
  /** The split covers only the start of the item's text: the rest comes in later frames. */
  behind: boolean;
}

/** Entries of finished responses, by item: an agent shown again does not split them again. */
const finished = new WeakMap<ResponseItem, Entry>();

/**
 * What of `text` to split now, given the split so far: all of it, or (far
 * behind) up to a line end about SLICE_CHARS further. A long last block is
 * read again with every slice, so past SLICE_CHARS the rest is read at once.
 */
function nextSlice(text: string, previous: BlockSplit | null): string {
  const from = previous && text.startsWith(previous.text) ? previous.text.length : 0;
  if (text.length - from <= SLICE_CHARS || text.includes("\r")) return text;
  if (from > 0 && (previous?.blocks.at(-1)?.length ?? 0) > SLICE_CHARS) return text;
  const cut = text.lastIndexOf("\n", from + SLICE_CHARS);
  if (cut > from) return text.slice(0, cut + 1);
  // No line end: cut between characters, never between the halves of one (an emoji).
  const at = from + SLICE_CHARS;
  const high = text.charCodeAt(at - 1);
  return text.slice(0, high >= 0xd800 && high <= 0xdbff ? at - 1 : at);
}

function sameBlocks(a: readonly string[], b: readonly string[], from: number): boolean {
  if (a.length === 0) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[from + i]) return false;
  return true;
}

function group(item: ResponseItem, split: BlockSplit, previous: readonly ResponsePart[]): ResponsePart[] {
  const { blocks, links } = split;
  const parts: ResponsePart[] = [];
  let start = 0;
  while (start < blocks.length || parts.length === 0) {
    let end = start;
    let lines = 0;
    while (end < blocks.length && (end === start || lines < PART_LINES)) lines += lineCount(blocks[end++] ?? "");
    const last = end >= blocks.length;
    const n = parts.length;
    const streaming = last && item.streaming;
    const before = previous[n];
    const slice = blocks.slice(start, end);
    parts.push(
      before &&
        before.last === last &&
        before.streaming === streaming &&
        before.links === links &&
        before.blocks.length === slice.length &&
        sameBlocks(before.blocks, blocks, start)
        ? before
        : {
            kind: "response",
            key: n === 0 ? item.key : `${item.key}~${n}`,
            itemKey: item.key,
            ts: item.ts,
            blocks: slice,
            links,
            lines,
            first: n === 0,
            last,
            streaming,
          },
    );
    if (end === start) break;
    start = end;
  }
  return parts;
}

/**
 * Per output list: each response's split and parts, extended as its text
 * grows. `expand` forgets the responses no longer listed.
 */
export class ResponseParts {
  private entries = new Map<string, Entry>();

  /** The items with each response replaced by its parts (the same array when there is no response). */
  expand(items: readonly OutputItem[]): readonly PartedItem[] {
    if (!items.some((it) => it.kind === "response")) {
      if (this.entries.size > 0) this.entries = new Map();
      return items as readonly PartedItem[];
    }
    const next = new Map<string, Entry>();
    const out: PartedItem[] = [];
    for (const it of items) {
      if (it.kind !== "response") {
        out.push(it);
        continue;
      }
      const entry = this.partsOf(it);
      next.set(it.key, entry);
      for (const p of entry.parts) out.push(p);
    }
    this.entries = next;
    return out;
  }

  /** Whether a response is split only in part: the list should expand again next frame. */
  get behind(): boolean {
    for (const entry of this.entries.values()) if (entry.behind) return true;
    return false;
  }

  private partsOf(item: ResponseItem): Entry {
    const old = this.entries.get(item.key) ?? finished.get(item);
    if (old?.item === item && !old.behind) return old;
    if (old && !old.behind && old.item.text === item.text && old.item.streaming === item.streaming) return { ...old, item };
    const text = nextSlice(item.text, old?.split ?? null);
    const split = timed("split", () => splitBlocks(text, old?.split));
    const behind = text.length < item.text.length;
    // Split in part: its last part shows as still streaming.
    const shown = behind ? { ...item, text, streaming: true } : item;
    const entry = { item, split, parts: group(shown, split, old?.parts ?? []), behind };
    if (!behind && !item.streaming) finished.set(item, entry);
    return entry;
  }
}

/** A first guess at a row's height (px) before it is measured: a part by its lines, anything else as before. */
export function estimateRowSize(row: { kind: string } | undefined): number {
  if (row && isPart(row)) return Math.max(40, Math.round(row.lines * 21.6) + 12);
  return 80;
}

function isPart(row: { kind: string }): row is ResponsePart {
  return row.kind === "response" && "blocks" in row;
}
