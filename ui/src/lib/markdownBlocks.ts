/**
 * Model text cut into its top-level Markdown blocks (paragraphs, headings,
 * lists, fenced code, tables, quotes…), each rendered to sanitised HTML on
 * its own, so a long answer costs only what changed and only what shows:
 *
 * - `splitBlocks` uses marked's block lexer (no inline pass: cheap) and cuts
 *   where marked starts a new top-level token, so a fence, a list or a table
 *   is never cut in the middle. Blank lines go with the block before them
 *   (leading ones with the first), so the blocks joined are the text, exactly.
 * - Given the previous split of a text that has since grown (a streamed
 *   append), it keeps every block but the last two as they were and lexes
 *   again from there: only the unfinished end is read again (the last block,
 *   and the one before, which the last may yet join: a list's next item).
 * - `renderBlock` is what `marked.parse` + DOMPurify did to the whole text,
 *   for one block; link reference definitions (`[x]: https://…`) anywhere in
 *   the text are handed to every block, so `[x]` resolves as in the whole.
 *   What it rendered is kept by the block's source (within a bound): an
 *   output mounted again, after a session switch or a selection, parses
 *   nothing it parsed before.
 */
import DOMPurify from "dompurify";
import { Lexer, marked, type Links, type MarkedOptions } from "marked";
import { timed } from "./perf";

// breaks: a line break a model (or a tool's output it quotes) writes is one: file
// lists and command output must not run together ("src/util.py src/app.py").
const OPTIONS = { async: false, gfm: true, breaks: true } as const;
const SANITIZE = { USE_PROFILES: { html: true }, FORBID_TAGS: ["style", "img", "form", "input"] };

export type { Links };

/** No link definitions: one shared object, so blocks given it never re-render for a new one. */
export const NO_LINKS: Links = Object.freeze(Object.create(null) as Links);

export interface BlockSplit {
  /** The text split. */
  readonly text: string;
  /** Its top-level blocks, in order, each with the blank lines after it: joined, they are `text`. */
  readonly blocks: readonly string[];
  /** The link reference definitions of the whole text (NO_LINKS when it has none; the same object while unchanged). */
  readonly links: Links;
  /** Those of every block but the last two: what a later append starts from. */
  readonly settledLinks: Links;
}

function lexerOptions(): MarkedOptions {
  return { ...marked.defaults, ...OPTIONS };
}

/** The top-level blocks of `src` and the link definitions marked found in them. */
function lexBlocks(src: string): { blocks: string[]; links: Links } {
  const lexer = new Lexer(lexerOptions());
  const tokens = lexer.blockTokens(src, []);
  // Where each block starts: at each token but blank lines (they stay with the block before them).
  const starts: number[] = [];
  let pos = 0;
  for (const t of tokens) {
    const raw = t.raw;
    if (!raw) continue;
    // marked trims some tokens' whitespace (a list's end) and makes some up (a line end the text lacks yet):
    // the token is where its visible characters are.
    while (pos < src.length && src.charAt(pos) !== raw.charAt(0) && /\s/.test(src.charAt(pos))) pos++;
    let k = 0;
    while (k < raw.length && src.charCodeAt(pos + k) === raw.charCodeAt(k)) k++;
    // Should a future marked read the text otherwise, it stays one block (rendered whole, as before).
    if (/\S/.test(raw.slice(k))) return { blocks: src ? [src] : [], links: lexer.tokens.links };
    if (t.type !== "space") starts.push(starts.length === 0 ? 0 : pos);
    pos += k;
  }
  if (starts.length === 0) return { blocks: src ? [src] : [], links: lexer.tokens.links };
  const blocks = starts.map((start, i) => src.slice(start, starts[i + 1] ?? src.length));
  return { blocks, links: lexer.tokens.links };
}

function isEmpty(links: Links): boolean {
  for (const _ in links) return false;
  return true;
}

function sameLinks(a: Links, b: Links): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => a[k]?.href === b[k]?.href && a[k]?.title === b[k]?.title);
}

/** `first`'s definitions, then `more`'s for labels `first` lacks (the first definition of a label wins). */
function mergeLinks(first: Links, more: Links, previous: Links): Links {
  if (isEmpty(more)) return first;
  const merged: Links = Object.assign(Object.create(null) as Links, more, first);
  return sameLinks(merged, previous) ? previous : merged;
}

/** A copy without a prototype, as marked keeps them (a label such as "constructor" finds nothing inherited). */
function copyLinks(links: Links): Links {
  return Object.assign(Object.create(null) as Links, links);
}

function linksOf(src: string, previous: Links): Links {
  if (!src.includes("]:")) return NO_LINKS;
  const { links } = lexBlocks(src);
  return isEmpty(links) ? NO_LINKS : sameLinks(links, previous) ? previous : copyLinks(links);
}

/** A long last block's growth that reading it again would cost more than it could change. */
const LONG_BLOCK_CHARS = 2_000;

/**
 * `previous` with text added to the end of its last line, when that cannot move a
 * block boundary: the addition has no line break, and the last line already has
 * a letter and a few characters, which settles what kind of line it is (a list
 * item, a heading, a paragraph's text; a setext underline, a table's delimiter
 * row or a thematic break have no letters). Only for a long last block: reading
 * a 100,000-character paragraph again on every streamed chunk cost a frame each.
 */
function withinLastLine(previous: BlockSplit, text: string): BlockSplit | null {
  const last = previous.blocks[previous.blocks.length - 1] ?? "";
  if (last.length < LONG_BLOCK_CHARS) return null;
  const added = text.slice(previous.text.length);
  if (added.includes("\n") || added.includes("]:")) return null;
  const line = last.slice(last.lastIndexOf("\n") + 1);
  if (line.length < 8 || !/\p{L}/u.test(line) || line.includes("]:")) return null;
  return { text, blocks: [...previous.blocks.slice(0, -1), last + added], links: previous.links, settledLinks: previous.settledLinks };
}

/** Splits `text` into blocks, reusing `previous` (the split of an earlier, shorter version) when `text` extends it. */
export function splitBlocks(text: string, previous?: BlockSplit | null): BlockSplit {
  if (previous && previous.text === text) return previous;
  if (previous && previous.blocks.length > 0 && !text.includes("\r") && text.startsWith(previous.text)) {
    const grown = withinLastLine(previous, text);
    if (grown) return grown;
    // What follows can change the last block, and join it to the one before (a list's next item, "2" then
    // "2."): both are read again. Any block before them is over: its kind cannot change any more.
    const kept = previous.blocks.slice(0, -2);
    const from = previous.blocks.slice(-2).reduce((n, b) => n - b.length, previous.text.length);
    const tail = lexBlocks(text.slice(from));
    const blocks = kept.concat(tail.blocks);
    const links = mergeLinks(previous.settledLinks, tail.links, previous.links);
    const settledLinks = isEmpty(tail.links)
      ? previous.settledLinks
      : mergeLinks(previous.settledLinks, linksOf(tail.blocks.slice(0, -2).join(""), NO_LINKS), previous.settledLinks);
    return { text, blocks, links, settledLinks };
  }
  // marked reads CR LF and CR as LF; the blocks are cut from the text as it reads it.
  const { blocks, links } = lexBlocks(text.replace(/\r\n?/g, "\n"));
  if (isEmpty(links)) return { text, blocks, links: NO_LINKS, settledLinks: NO_LINKS };
  const all = previous && sameLinks(links, previous.links) ? previous.links : copyLinks(links);
  return { text, blocks, links: all, settledLinks: linksOf(blocks.slice(0, -2).join(""), all) };
}

/** Splits the successive versions of one text, each from the split of the one before. */
export class BlockSplitter {
  private last: BlockSplit | null = null;

  split(text: string): BlockSplit {
    this.last = splitBlocks(text, this.last);
    return this.last;
  }
}

/**
 * Source characters whose rendered HTML is kept. An output shown again (its
 * session switched back to, its agent selected again) mounts its blocks anew:
 * parsing a finished 64,000-character answer again took 67 ms of every switch
 * to its session (docs/speed.md). Least recently used go first. A text with
 * link definitions is split anew on a mount, with new links: its blocks are
 * parsed again (they are few).
 */
export const RENDERED_KEPT_CHARS = 4_000_000;

/** Rendered blocks by their source, in the order last used, with the links each was rendered with. */
const rendered = new Map<string, { links: Links; html: string }>();
let renderedChars = 0;

/** One block (or any Markdown) as sanitised HTML, with the text's link definitions. */
export function renderBlock(raw: string, links: Links = NO_LINKS): string {
  const kept = rendered.get(raw);
  if (kept && kept.links === links) {
    // Used now: to the back of the line.
    rendered.delete(raw);
    rendered.set(raw, kept);
    return kept.html;
  }
  const html = timed("markdown", () => {
    const options = lexerOptions();
    const lexer = new Lexer(options);
    if (links !== NO_LINKS) Object.assign(lexer.tokens.links, links);
    return DOMPurify.sanitize(marked.parser(lexer.lex(raw), options), SANITIZE);
  });
  keep(raw, links, html);
  return html;
}

function keep(raw: string, links: Links, html: string): void {
  if (raw.length > RENDERED_KEPT_CHARS) return;
  if (rendered.delete(raw)) renderedChars -= raw.length;
  rendered.set(raw, { links, html });
  renderedChars += raw.length;
  for (const oldest of rendered.keys()) {
    if (renderedChars <= RENDERED_KEPT_CHARS) break;
    rendered.delete(oldest);
    renderedChars -= oldest.length;
  }
}

/** How many lines a block takes in the source: what a part of a long answer is measured in. */
export function lineCount(raw: string): number {
  let n = 1;
  for (let i = raw.indexOf("\n"); i !== -1 && i < raw.length - 1; i = raw.indexOf("\n", i + 1)) n++;
  return n;
}
