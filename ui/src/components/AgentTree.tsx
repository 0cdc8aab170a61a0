/**
 * The agent tree: one row per visible agent, collapsible to any depth, a real
 * tree for assistive technology (WAI-ARIA tree pattern: treeitems with their
 * levels, positions and expanded state, roving tabindex; ↑/↓/Home/End move,
 * → opens or goes in, ← closes or goes up, Enter selects; the selection
 * follows the focus). Shift+D opens Delegate… under the selected agent from
 * anywhere but a text field.
 *
 * Virtualised: only the rows in view (and the tab stop, so Tab and the focus
 * always find it) are in the page, so 200 agents cost what 20 do. The items
 * are one flat list, each with its level, set size and position (the ARIA
 * pattern for a tree not wholly in the DOM). Rows are one fixed height
 * (components/tree/TreeNode.tsx); the selected agent's worktree, while it can
 * still be acted on, is under the tree.
 */
import { defaultRangeExtractor, useVirtualizer, type Range, type VirtualItem } from "@tanstack/react-virtual";
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type CSSProperties,
  type FocusEvent,
  type KeyboardEvent,
} from "react";
import type { AgentId } from "../bindings";
import { tabStop, treeKey } from "../lib/tree";
import { effectiveSelection, visibleRows } from "../store/selectors";
import { delegateShortcut } from "../store/delegate";
import { usePaneShown, useReviewing, useSession, useSessionView } from "../store/sessionScope";
import { useStore } from "../store/store";
import { select, setCollapsed, uiStore } from "../store/ui";
import { IconTree } from "./icons";
import { TreeFoot } from "./tree/SelectedWorktree";
import { TreeNode } from "./tree/TreeNode";

/** A row's height in CSS px (the stylesheet's --tree-row-h is set from it). */
const ROW_HEIGHT = 44;
/** Rows rendered beyond each edge of the view, so a quick scroll shows no gap. */
const OVERSCAN = 8;
/** Space above the first row and below the last (CSS px). */
const PADDING = 4;

export function AgentTree() {
  const collapsed = useSessionView((v) => v.collapsed);
  const rows = useSession((s) => visibleRows(s, collapsed));
  const uiSelected = useSessionView((v) => v.selected);
  const selected = useSession((s) => effectiveSelection(s, uiSelected));
  const starting = useStore(uiStore, (s) => s.starting);
  const readOnly = useReviewing();
  const treeRef = useRef<HTMLDivElement>(null);
  /** A row moved to by a key, to bring into view and focus once the selection has rendered. */
  const pending = useRef<{ id: AgentId; index: number } | null>(null);
  const stop = tabStop(rows, selected);
  /** The row holding the focus (a row's twisty or button can hold it without selecting the row). */
  const [focused, setFocused] = useState<AgentId | null>(null);
  // Kept in the page whatever the scroll: Tab finds the tree, and a focused row is never unmounted.
  const kept = useMemo(() => {
    const ids = new Set([stop, focused]);
    return rows.flatMap((r, i) => (ids.has(r.id) ? [i] : []));
  }, [rows, stop, focused]);

  // The pane's body scrolls (the worktree under the tree scrolls with it).
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => treeRef.current?.parentElement ?? null,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
    getItemKey: (i) => rows[i]?.id ?? i,
    // The tree is the first thing in the pane's body; these are its padding.
    paddingStart: PADDING,
    paddingEnd: PADDING,
    rangeExtractor: useCallback(
      (range: Range) => {
        const shown = defaultRangeExtractor(range);
        const more = kept.filter((i) => !shown.includes(i));
        return more.length === 0 ? shown : [...shown, ...more].sort((a, b) => a - b);
      },
      [kept],
    ),
  });

  const rowElement = (id: AgentId) =>
    [...(treeRef.current?.querySelectorAll<HTMLElement>('[role="treeitem"]') ?? [])].find((n) => n.dataset.agentId === id);

  /** Scrolls the pane just enough to show row `index` whole, above the worktree kept at its bottom. */
  const reveal = (index: number) => {
    const pane = treeRef.current?.parentElement;
    if (!pane) return;
    // The worktree panel never hides the whole view (a narrow pane, a tall panel).
    const panel = pane.querySelector<HTMLElement>(".tree-foot")?.offsetHeight ?? 0;
    const covered = Math.min(panel, Math.max(0, pane.clientHeight - ROW_HEIGHT));
    // The tree is the first thing in the pane's body.
    const top = PADDING + index * ROW_HEIGHT;
    // The first row with the space above it.
    if (top < pane.scrollTop) pane.scrollTop = index === 0 ? 0 : top;
    else if (top + ROW_HEIGHT > pane.scrollTop + pane.clientHeight - covered) {
      pane.scrollTop = top + ROW_HEIGHT - pane.clientHeight + covered;
    }
  };

  // After the render the selection caused: the row is in the page, the worktree panel the new agent's.
  useLayoutEffect(() => {
    const target = pending.current;
    if (target === null) return;
    pending.current = null;
    reveal(target.index);
    rowElement(target.id)?.focus({ preventScroll: true });
  });

  const focusRow = (id: AgentId) => {
    const index = rows.findIndex((r) => r.id === id);
    if (index < 0) return;
    if (id === selected) {
      reveal(index);
      rowElement(id)?.focus({ preventScroll: true });
      return;
    }
    pending.current = { id, index };
    select(id);
  };

  const onFocus = (e: FocusEvent<HTMLDivElement>) => {
    const id = (e.target as HTMLElement).closest<HTMLElement>('[role="treeitem"]')?.dataset.agentId ?? null;
    setFocused(id);
  };
  const onBlur = (e: FocusEvent<HTMLDivElement>) => {
    if (e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget)) return;
    // The window lost the focus: the row keeps it, and gets it back with the window.
    if (e.relatedTarget === null && e.currentTarget.contains(document.activeElement)) return;
    setFocused(null);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target as HTMLElement;
    // A row's own buttons take Enter and Space.
    if (target.closest("button, input, select, textarea") && (e.key === "Enter" || e.key === " ")) return;
    const focusedId = target.closest<HTMLElement>('[role="treeitem"]')?.dataset.agentId ?? selected;
    const move = treeKey(e.key, rows, rows.findIndex((r) => r.id === focusedId));
    if (!move) return;
    e.preventDefault();
    if (move.kind === "expand") setCollapsed(move.id, false);
    else if (move.kind === "collapse") setCollapsed(move.id, true);
    else focusRow(move.id);
  };

  if (rows.length === 0) {
    return (
      <>
        <DelegateShortcut />
        <div className="empty">
          <IconTree size={28} />
          {starting ? (
            <>
              <div className="title">Starting session…</div>
              <div>The main agent appears here in a moment.</div>
            </>
          ) : (
            <>
              <div className="title">No session yet</div>
              <div>Write a prompt below to start the main agent; its subagents grow here.</div>
            </>
          )}
        </div>
      </>
    );
  }

  const style = { "--tree-row-h": `${ROW_HEIGHT}px`, height: virtualizer.getTotalSize() } as CSSProperties;
  return (
    <>
      <div
        className="tree"
        role="tree"
        aria-label="Agents"
        ref={treeRef}
        onKeyDown={onKeyDown}
        onFocus={onFocus}
        onBlur={onBlur}
        style={style}
      >
        {shownItems(virtualizer.getVirtualItems(), kept).map((item) => {
          const row = rows[item.index];
          if (!row) return null;
          return (
            <TreeNode
              key={row.id}
              row={row}
              top={item.start}
              selected={row.id === selected}
              focusable={row.id === stop}
              readOnly={readOnly}
            />
          );
        })}
      </div>
      <TreeFoot selected={selected} />
      <DelegateShortcut />
    </>
  );
}

/**
 * The Delegate… shortcut, on the window so that it works wherever focus is (the
 * output, a card), as long as the tree is in view: another session's, kept
 * mounted out of view, does not listen. A component of its own, so that a pane
 * shown or hidden renders this alone, not the tree.
 */
function DelegateShortcut() {
  const paneShown = usePaneShown();
  useEffect(() => {
    if (!paneShown) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (!e.defaultPrevented && delegateShortcut(e)) e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [paneShown]);
  return null;
}

/**
 * The rows to render: the virtualizer's, or (a pane not laid out yet, or
 * folded to nothing, where it gives none) the rows kept in the page alone,
 * placed where they belong.
 */
function shownItems(items: VirtualItem[], kept: readonly number[]): { index: number; start: number }[] {
  if (items.length > 0) return items;
  return kept.map((index) => ({ index, start: PADDING + index * ROW_HEIGHT }));
}
