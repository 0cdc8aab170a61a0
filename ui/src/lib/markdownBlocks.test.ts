import { Lexer } from "marked";
import { describe, expect, it, vi } from "vitest";
import { renderMarkdown } from "../components/Markdown";
import { BlockSplitter, NO_LINKS, RENDERED_KEPT_CHARS, lineCount, renderBlock, splitBlocks } from "./markdownBlocks";

const DOC = [
  "# Plan",
  "",
  "First paragraph with **bold**,",
  "on two lines.",
  "",
  "```ts",
  "const a = 1;",
  "",
  "# not a heading",
  "",
  "- not a list",
  "```",
  "",
  "- one",
  "- two",
  "",
  "  still two",
  "- three",
  "",
  "1. first",
  "2. second",
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "| 3 | 4 |",
  "",
  "> quoted",
  "lazily",
  "",
  "Setext",
  "===",
  "",
  "    indented code",
  "",
  "    more of it",
  "",
  "See [the docs][docs] and <https://example.com>.",
  "",
  "[docs]: https://example.com/docs",
  "",
  "---",
  "Tail text",
].join("\n");

/** Less common shapes: nested code in a list, HTML, a heading right under text, a fence in a quote, a def. */
const ODD = [
  "Text right above",
  "## a heading",
  "1. step",
  "",
  "   ```sh",
  "   make",
  "",
  "   ```",
  "2. step two",
  "<div>",
  "raw *html*",
  "</div>",
  "",
  "> ```",
  "> quoted fence",
  "> ```",
  "",
  "[x]: https://x.example 'X'",
  "Use [x] and [y].",
  "",
  "[y]: https://y.example",
  "* * *",
  "  - [ ] task",
  "  - [x] done",
  "- a",
  "-",
  "",
  "* b",
  "",
  "* c",
  "1) x",
  "2) y",
  "",
  "Head | er",
  "--- | ---",
  "cell | cell",
].join("\n");

/** The kind of each block: marked's first token type, read from the HTML. */
function kinds(blocks: readonly string[]): string[] {
  return blocks.map((b) => /^<(\w+)/.exec(renderBlock(b))?.[1] ?? "");
}

describe("splitBlocks", () => {
  it("cuts at top-level blocks, and the blocks joined are the text", () => {
    const { blocks } = splitBlocks(DOC);
    expect(blocks.join("")).toBe(DOC);
    expect(kinds(blocks)).toEqual(["h1", "p", "pre", "ul", "ol", "table", "blockquote", "h1", "pre", "p", "", "hr", "p"]);
  });

  it("never cuts a fence, even one with blank lines, headings and list markers inside", () => {
    const { blocks } = splitBlocks(DOC);
    const fence = blocks.find((b) => b.startsWith("```"));
    expect(fence).toBe("```ts\nconst a = 1;\n\n# not a heading\n\n- not a list\n```\n\n");
  });

  it("keeps a list with blank lines between its items, and a table, whole", () => {
    const { blocks } = splitBlocks(DOC);
    expect(blocks).toContain("- one\n- two\n\n  still two\n- three\n\n");
    expect(blocks).toContain("| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n");
  });

  it("keeps an unterminated fence one block while it streams, to the end of the text", () => {
    const { blocks } = splitBlocks("Intro\n\n```py\nprint(1)\n\nprint(2)\n");
    expect(blocks).toEqual(["Intro\n\n", "```py\nprint(1)\n\nprint(2)\n"]);
  });

  it("renders block by block what the whole text renders", () => {
    const { blocks, links } = splitBlocks(DOC);
    expect(blocks.map((b) => renderBlock(b, links)).join("")).toBe(renderMarkdown(DOC));
  });

  it("resolves a reference link whose definition is in another block", () => {
    const { blocks, links } = splitBlocks(DOC);
    const para = blocks.find((b) => b.startsWith("See "));
    expect(renderBlock(para ?? "", links)).toContain('<a href="https://example.com/docs">the docs</a>');
    expect(splitBlocks("no definitions").links).toBe(NO_LINKS);
  });

  it("sanitises each block as the whole text was", () => {
    const { blocks } = splitBlocks('Fine\n\n<script>alert(1)</script>\n\n<a href="javascript:alert(3)">x</a> <b onclick="y()">b</b>\n');
    const html = blocks.map((b) => renderBlock(b)).join("");
    expect(html).not.toMatch(/<script|onclick|javascript:/i);
    expect(html).toContain("<b>b</b>");
  });

  it("reads CR LF as marked does", () => {
    const { blocks } = splitBlocks("a\r\n\r\nb\r\n");
    expect(blocks).toEqual(["a\n\n", "b\n"]);
  });
});

describe("splitBlocks on a growing text", () => {
  it("gives the split of the whole text at every step of a stream, whatever the chunks", () => {
    for (const doc of [DOC, ODD]) {
      for (const step of [1, 7, 40]) {
        let previous = splitBlocks("");
        for (let n = step; n < doc.length + step; n += step) {
          const text = doc.slice(0, n);
          const next = splitBlocks(text, previous);
          const full = splitBlocks(text);
          expect(next.blocks, `after ${n} characters`).toEqual(full.blocks);
          expect(next.links).toEqual(full.links);
          // Rendering is the slow part here (DOMPurify on jsdom): checked at the coarsest steps.
          if (step === 40) expect(next.blocks.map((b) => renderBlock(b, next.links)).join("")).toBe(renderMarkdown(text));
          previous = next;
        }
      }
    }
  });

  it("keeps the blocks before the last two as they were, and the same links while they do not change", () => {
    const first = splitBlocks("# Title\n\nOne.\n\nTwo is still");
    const next = splitBlocks("# Title\n\nOne.\n\nTwo is still streaming.\n\nThree", first);
    expect(next.blocks).toEqual(["# Title\n\n", "One.\n\n", "Two is still streaming.\n\n", "Three"]);
    // The block before the last is read again with it (the last may join it), and still the same text.
    expect(next.blocks[0]).toBe(first.blocks[0]);
    expect(next.blocks[1]).toBe(first.blocks[1]);
    expect(next.links).toBe(NO_LINKS);
    // The same text: the same split.
    expect(splitBlocks(next.text, next)).toBe(next);
  });

  it("starts again when the text was replaced rather than extended", () => {
    const first = splitBlocks("Alpha\n\nBeta");
    expect(splitBlocks("Gamma\n\nBeta", first).blocks).toEqual(["Gamma\n\n", "Beta"]);
  });
});

describe("lineCount", () => {
  it("counts source lines, blank ones included", () => {
    expect(lineCount("a")).toBe(1);
    expect(lineCount("a\n")).toBe(1);
    expect(lineCount("a\nb\n\n")).toBe(3);
  });
});

describe("line breaks", () => {
  it("keeps a single line break: a list of files does not run together", () => {
    expect(renderBlock("Changed:\nsrc/util.py\nsrc/app.py")).toContain("src/util.py<br");
    expect(renderMarkdown("Changed:\nsrc/util.py\nsrc/app.py")).toContain("src/util.py<br");
  });
});

describe("a long paragraph growing", () => {
  it("extends its last block without reading it again, and splits as the whole text would", () => {
    const splitter = new BlockSplitter();
    let text = "# Title\n\n";
    const lex = vi.spyOn(Lexer.prototype, "blockTokens");
    for (let i = 0; i < 600; i++) {
      text += "lorem ipsum ";
      splitter.split(text);
    }
    const calls = lex.mock.calls.length;
    for (let i = 0; i < 100; i++) {
      text += "dolor sit ";
      splitter.split(text);
    }
    // Past 2,000 characters, an addition within the last line is not read again.
    expect(lex.mock.calls.length).toBe(calls);
    text += "\n\n1. item";
    expect(splitter.split(text).blocks).toEqual(splitBlocks(text).blocks);
    lex.mockRestore();
  });
});

describe("rendered blocks kept", () => {
  // What renderBlock parses: each parse lexes the block (Lexer.lex), a kept block does not.
  const parses = () => vi.spyOn(Lexer.prototype, "lex");

  it("renders a block shown again without parsing it again, with the same HTML", () => {
    const block = `A finished answer, shown again after a switch: ${"lorem ipsum ".repeat(5_000)}`;
    const first = renderBlock(block);
    const lex = parses();
    expect(renderBlock(block)).toBe(first);
    expect(lex).not.toHaveBeenCalled();
    lex.mockRestore();
  });

  it("parses again with other link definitions: a reference resolves as in the text it is now in", () => {
    const para = "See [the docs][d].";
    const links = splitBlocks("[d]: https://example.com/docs").links;
    expect(renderBlock(para)).not.toContain("<a ");
    expect(renderBlock(para, links)).toContain('<a href="https://example.com/docs">the docs</a>');
    expect(renderBlock(para)).not.toContain("<a ");
  });

  it("keeps at most RENDERED_KEPT_CHARS of source, the least recently used going first", () => {
    const size = RENDERED_KEPT_CHARS / 4;
    const block = (tag: string) => `${tag} ${"x".repeat(size - tag.length - 1)}`;
    for (const tag of ["one", "two", "three", "four"]) renderBlock(block(tag));
    renderBlock(block("one")); // used again: now the most recent
    renderBlock(block("five")); // one over the bound: "two", the least recently used, goes
    const lex = parses();
    for (const tag of ["one", "three", "four", "five"]) renderBlock(block(tag));
    expect(lex).not.toHaveBeenCalled();
    renderBlock(block("two"));
    expect(lex).toHaveBeenCalledTimes(1);
    lex.mockRestore();
  });
});
