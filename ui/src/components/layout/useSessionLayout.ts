/**
 * The session layout as the window now allows it: the panes' widths (the
 * person's or the defaults, cut so the output keeps its room) and whether
 * the panes stack; recomputed when the window is resized or zoomed.
 */
import { useSyncExternalStore, type CSSProperties } from "react";
import { sessionLayout, SPLITTER_WIDTH, type SessionLayout } from "../../lib/layout";
import { useStore } from "../../store/store";
import { uiStore } from "../../store/ui";

function subscribe(onChange: () => void): () => void {
  window.addEventListener("resize", onChange);
  return () => window.removeEventListener("resize", onChange);
}
const viewportWidth = () => window.innerWidth;

/** The window's width in CSS px (zoom included: 1024 px at 200% is 512). */
export function useViewportWidth(): number {
  return useSyncExternalStore(subscribe, viewportWidth, viewportWidth);
}

export function useSessionLayout(inboxFolded: boolean): SessionLayout {
  const widths = useStore(uiStore, (s) => s.paneWidths);
  const viewport = useViewportWidth();
  return sessionLayout(widths, viewport, inboxFolded);
}

/** The widths as the grid's custom properties (layout.css lays the columns out with them). */
export function paneVars(layout: SessionLayout): CSSProperties {
  return {
    "--tree-w": `${layout.tree.width}px`,
    "--inbox-w": `${layout.inbox.width}px`,
    "--splitter-w": `${SPLITTER_WIDTH}px`,
  } as CSSProperties;
}
