/**
 * Keeps the keyboard out of a pane that is out of view without `inert`: a
 * kept session's pane (components/layout/SessionPanes.tsx) is hidden by a
 * transform, and `inert`, being inherited, restyled the whole pane each time
 * it changed, some 20 ms a switch here (docs/speed.md). When focus enters a
 * hidden pane (Tab, Shift+Tab), it is sent on past it, the way it was going.
 */

/** What Tab can reach, before filtering out what is disabled or hidden. */
const TABBABLE =
  'a[href], button, input, select, textarea, summary, [tabindex], [contenteditable="true"], [contenteditable=""]';

/** The panes out of view; what is in them is never focused. */
const HIDDEN_PANE = "[data-pane=hidden]";

function tabbable(el: HTMLElement): boolean {
  if (el.tabIndex < 0) return false;
  if ((el as HTMLButtonElement).disabled === true) return false;
  return el.closest(`${HIDDEN_PANE}, [inert]`) === null;
}

/**
 * Sends focus from `pane` (hidden) on to the next element Tab reaches after it,
 * or, when it came from after the pane (Shift+Tab), to the one before it.
 * `from` is the element focus left, if any. Nothing to go to: focus is dropped.
 */
export function focusPast(pane: HTMLElement, from: Element | null): void {
  const backwards = from !== null && !pane.contains(from) && (pane.compareDocumentPosition(from) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  const all = [...pane.ownerDocument.querySelectorAll<HTMLElement>(TABBABLE)].filter(tabbable);
  const after = (el: HTMLElement) => (pane.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  const target = backwards ? all.filter((el) => !after(el)).at(-1) : all.find(after);
  if (target) {
    target.focus();
    return;
  }
  const focused = pane.ownerDocument.activeElement;
  if (focused instanceof HTMLElement && pane.contains(focused)) focused.blur();
}
