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

/** One block: parsed when its text changes (only the last block of a streaming text does). */
const MarkdownBlock = memo(function MarkdownBlock({ raw, links }: { raw: string; links: Links }) {
  // While the last block streams in, parsing it may lag a frame behind rather than hold up input.
  const shown = useDeferredValue(raw);
  const html = useMemo(() => renderBlock(shown, links), [shown, links]);
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: html }} />;
});

/** Blocks of Markdown in one `.markdown` box (a whole text, or one part of a long response). */
export const MarkdownBlocks = memo(function MarkdownBlocks({
  blocks,
  links,
  className,
}: {
  blocks: readonly string[];
  links: Links;
  className?: string;
}) {
  return (
    <div className={`markdown${className ? ` ${className}` : ""}`} onClick={stayHere}>
      {blocks.map((raw, i) => (
        // By position: a streamed append keeps every block where it was, and changes the last.
        <MarkdownBlock key={i} raw={raw} links={links} />
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
  return <MarkdownBlocks blocks={blocks} links={links} className={streaming ? "caret" : undefined} />;
});
