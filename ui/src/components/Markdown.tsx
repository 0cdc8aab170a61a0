/**
 * Model text rendered as Markdown, sanitised with DOMPurify. Links never
 * navigate the app window away.
 */
import DOMPurify from "dompurify";
import { marked } from "marked";
import { memo, useDeferredValue, useMemo, type MouseEvent } from "react";

export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true, breaks: false });
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, FORBID_TAGS: ["style", "img", "form", "input"] });
}

function stayHere(e: MouseEvent<HTMLDivElement>) {
  if ((e.target as HTMLElement).closest("a")) e.preventDefault();
}

export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming?: boolean }) {
  // While text streams in, parsing may lag a frame behind rather than hold up input.
  const shown = useDeferredValue(text);
  const html = useMemo(() => renderMarkdown(shown), [shown]);
  return (
    <div
      className={`markdown${streaming ? " caret" : ""}`}
      onClick={stayHere}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
});
