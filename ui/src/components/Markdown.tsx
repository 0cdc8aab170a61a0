/**
 * Model text rendered as Markdown, sanitised with DOMPurify. Links never
 * navigate the app window away.
 *
 * The text is rendered block by block (lib/markdownBlocks.ts): each top-level
 * block is its own element with its own memoised HTML, so a streamed append
 * parses and replaces only the last (unfinished) block and the DOM of the
 * others stays as it is. A long response in the output list does not come
 * here whole: it comes as parts (lib/responseParts.ts), each a virtual row
 * rendered by `MarkdownBlocks`.
 */
import { memo, useDeferredValue, useMemo, useState, type MouseEvent } from "react";
import { BlockSplitter, NO_LINKS, renderBlock, type BlockSplit, type Links } from "../lib/markdownBlocks";

/** The whole text as one sanitised HTML string. */
export function renderMarkdown(text: string): string {
  return renderBlock(text, NO_LINKS);
}

function stayHere(e: MouseEvent<HTMLDivElement>) {
  if ((e.target as HTMLElement).closest("a")) e.preventDefault();
}

/**
 * A block still being written longer than this is shown as plain text until it
 * is complete: re-parsing a 100,000-character paragraph every frame took a few
 * hundred milliseconds a frame, and held every keystroke back that long.
 */
const OPEN_PLAIN_CHARS = 4_000;
/** The plain text in spans of this size: an append changes the last span only. */
const PLAIN_SPAN_CHARS = 2_000;

/** One block: parsed when its text changes (only the last block of a streaming text does). */
const MarkdownBlock = memo(function MarkdownBlock({ raw, links, open }: { raw: string; links: Links; open: boolean }) {
  const plain = open && raw.length > OPEN_PLAIN_CHARS;
  // While the last block streams in, parsing it may lag a frame behind rather than hold up input.
  const shown = useDeferredValue(raw);
  const html = useMemo(() => (plain ? "" : renderBlock(shown, links)), [plain, shown, links]);
  if (plain) return <PlainBlock raw={raw} />;
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

/** A piece of an open block: its own box, so an append lays out the last piece, not the whole paragraph. */
const PlainPiece = memo(function PlainPiece({ text }: { text: string }) {
  return <div>{text}</div>;
});

/**
 * The open block's text in pieces of about PLAIN_SPAN_CHARS, cut after a space
 * where there is one. A cut depends only on the text before it, which a stream
 * never changes: every piece but the last stays as it was.
 */
function PlainBlock({ raw }: { raw: string }) {
  const cuts = [0];
  for (let at = PLAIN_SPAN_CHARS; at < raw.length; at += PLAIN_SPAN_CHARS) {
    const space = raw.lastIndexOf(" ", at);
    cuts.push(space > (cuts[cuts.length - 1] ?? 0) ? space + 1 : at);
  }
  return (
    <div className="md-block md-open">
      {cuts.map((start, i) => (
        <PlainPiece key={i} text={raw.slice(start, cuts[i + 1] ?? raw.length)} />
      ))}
    </div>
  );
}

/** Blocks of Markdown in one `.markdown` box (a whole text, or one part of a long response). */
export const MarkdownBlocks = memo(function MarkdownBlocks({
  blocks,
  links,
  className,
  streaming = false,
}: {
  blocks: readonly string[];
  links: Links;
  className?: string;
  /** The text is still being written: its last block is open. */
  streaming?: boolean;
}) {
  return (
    <div className={`markdown${className ? ` ${className}` : ""}`} onClick={stayHere}>
      {blocks.map((raw, i) => (
        // By position: a streamed append keeps every block where it was, and changes the last.
        <MarkdownBlock key={i} raw={raw} links={links} open={streaming && i === blocks.length - 1} />
      ))}
    </div>
  );
});

/** The blocks of `text`, extending the split of its previous version when it only grew. */
function useBlocks(text: string): BlockSplit {
  const [splitter] = useState(() => new BlockSplitter());
  return useMemo(() => splitter.split(text), [splitter, text]);
}

export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  const { blocks, links } = useBlocks(text);
  return (
    <MarkdownBlocks blocks={blocks} links={links} className={streaming ? "caret" : undefined} streaming={streaming} />
  );
});
