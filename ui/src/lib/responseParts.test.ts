import { describe, expect, it } from "vitest";
import type { OutputItem } from "../store/session/types";
import { splitBlocks } from "./markdownBlocks";
import { PART_LINES, ResponseParts, SLICE_CHARS, estimateRowSize, type ResponsePart } from "./responseParts";

function response(text: string, streaming = false, key = "e5"): OutputItem {
  return { kind: "response", key, text, streaming, ts: 1 };
}

const thought: OutputItem = { kind: "thoughts", key: "e2", text: "hm", streaming: false, ts: 1 };

/** `n` paragraphs of one line each, a blank line between. */
function paragraphs(n: number, from = 0): string {
  return Array.from({ length: n }, (_, i) => `Paragraph ${from + i}.`).join("\n\n");
}

function parts(rows: readonly { kind: string }[]): ResponsePart[] {
  return rows.filter((r): r is ResponsePart => r.kind === "response");
}

describe("ResponseParts", () => {
  it("leaves a list without responses as it is", () => {
    const items = [thought];
    expect(new ResponseParts().expand(items)).toBe(items);
  });

  it("makes a short response one part, under the response's own key", () => {
    const rows = new ResponseParts().expand([thought, response("Hello **there**", true)]);
    expect(rows[0]).toBe(thought);
    expect(parts(rows)).toMatchObject([{ key: "e5", itemKey: "e5", first: true, last: true, streaming: true }]);
  });

  it("cuts a long response into parts of about PART_LINES lines, keyed after the response", () => {
    const text = paragraphs(200);
    const ps = parts(new ResponseParts().expand([response(text)]));
    expect(ps.length).toBeGreaterThan(10);
    expect(ps.map((p) => p.key).slice(0, 3)).toEqual(["e5", "e5~1", "e5~2"]);
    expect(ps.map((p) => p.blocks.join("")).join("")).toBe(text);
    for (const p of ps) expect(p.lines).toBeLessThanOrEqual(PART_LINES + 1);
    expect(ps.filter((p) => p.first).map((p) => p.key)).toEqual(["e5"]);
    expect(ps.filter((p) => p.last)).toHaveLength(1);
    expect(ps.some((p) => p.streaming)).toBe(false);
  });

  it("never cuts a fence: a long one is one part", () => {
    const fence = "```\n" + Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n") + "\n```\n\n";
    const ps = parts(new ResponseParts().expand([response(`Intro\n\n${fence}After`)]));
    const holding = ps.filter((p) => p.blocks.some((b) => b.startsWith("```")));
    expect(holding).toHaveLength(1);
    expect(holding[0]?.blocks).toContain(fence);
  });

  it("keeps the parts an append did not touch (the same objects) and marks only the last one streaming", () => {
    const cache = new ResponseParts();
    const text = paragraphs(200);
    const before = parts(cache.expand([response(text, true)]));
    const after = parts(cache.expand([response(`${text}\n\n${paragraphs(3, 200)}`, true)]));
    const kept = before.slice(0, -2);
    for (let i = 0; i < kept.length; i++) expect(after[i]).toBe(kept[i]);
    expect(after.at(-1)?.streaming).toBe(true);
    expect(after.filter((p) => p.streaming)).toHaveLength(1);
    // The same item again: the same rows.
    const items = [response(`${text}\n\n${paragraphs(3, 200)}`, true)];
    const again = cache.expand(items);
    expect(parts(cache.expand(items))).toEqual(parts(again));
    expect(parts(cache.expand(items))[0]).toBe(after[0]);
  });

  it("splits a response far longer than a slice over several calls, from its start, ending as one split would", () => {
    const text = paragraphs(3000);
    expect(text.length).toBeGreaterThan(8 * SLICE_CHARS);
    const cache = new ResponseParts();
    const items = [response(text)];
    const first = parts(cache.expand(items));
    expect(cache.behind).toBe(true);
    const shown = first.map((p) => p.blocks.join("")).join("");
    expect(text.startsWith(shown)).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(SLICE_CHARS + 1);
    expect(first[0]?.key).toBe("e5");
    // Split in part: its end shows as still coming.
    expect(first.at(-1)?.streaming).toBe(true);
    let calls = 1;
    let last = first;
    while (cache.behind && calls < 100) {
      last = parts(cache.expand(items));
      calls++;
    }
    expect(calls).toBeGreaterThanOrEqual(Math.floor(text.length / SLICE_CHARS));
    expect(last.flatMap((p) => p.blocks)).toEqual(splitBlocks(text).blocks);
    expect(last.some((p) => p.streaming)).toBe(false);
    // The parts of the first call that were complete are still the same objects.
    expect(last[0]).toBe(first[0]);
  });

  it("does not split a finished response again when another list shows it", () => {
    const items = [response(paragraphs(3000))];
    const cache = new ResponseParts();
    let rows = parts(cache.expand(items));
    while (cache.behind) rows = parts(cache.expand(items));
    const again = new ResponseParts();
    expect(parts(again.expand(items))[0]).toBe(rows[0]);
    expect(again.behind).toBe(false);
  });

  it("reads a long last block (a fence) at once rather than again with every slice", () => {
    const fence = "```\n" + Array.from({ length: 4000 }, (_, i) => `line ${i}`).join("\n") + "\n```\n";
    const text = `${paragraphs(300)}\n\n${fence}\nAfter.`;
    expect(text.length).toBeGreaterThan(10 * SLICE_CHARS);
    const cache = new ResponseParts();
    const items = [response(text)];
    let calls = 0;
    let rows: ResponsePart[];
    do {
      rows = parts(cache.expand(items));
      calls++;
    } while (cache.behind && calls < 100);
    expect(calls).toBeLessThanOrEqual(4);
    expect(rows.map((p) => p.blocks.join("")).join("")).toBe(text);
  });

  it("never cuts a slice between the two halves of a character", () => {
    const text = "a" + "😀".repeat(3 * SLICE_CHARS);
    const cache = new ResponseParts();
    const items = [response(text)];
    for (let i = 0; i < 100; i++) {
      const shown = parts(cache.expand(items)).flatMap((p) => p.blocks).join("");
      const last = shown.charCodeAt(shown.length - 1);
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false);
      if (!cache.behind) break;
    }
    expect(cache.behind).toBe(false);
  });

  it("estimates a part's height by its lines before it is measured", () => {
    const [p] = parts(new ResponseParts().expand([response(paragraphs(10))]));
    expect(estimateRowSize(p)).toBeGreaterThan(estimateRowSize(thought));
    expect(estimateRowSize(undefined)).toBe(80);
  });
});
