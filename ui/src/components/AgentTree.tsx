/**
 * The agent tree: one row per visible agent, collapsible to any depth, a real
 * tree for assistive technology (WAI-ARIA tree pattern: treeitems, each
 * parent's children in a group it owns, levels, positions, roving tabindex;
 * ↑/↓/Home/End move, → opens or goes in, ← closes or goes up, Enter
 * selects; the selection follows the focus). Shift+D opens Delegate… under
 * the selected agent from anywhere but a text field. Rows are one fixed
 * height (components/tree/TreeNode.tsx); the selected agent's worktree, while
 * it can still be acted on, is under the tree.
 */
import { Fragment, useCallback, useEffect, useId, useRef, type KeyboardEvent } from "react";
import type { AgentId } from "../bindings";
import { nestRows, tabStop, treeKey, type Branch } from "../lib/tree";
import { effectiveSelection, visibleRows } from "../store/selectors";
import { delegateShortcut } from "../store/delegate";
import { bookStore } from "../store/review";
import { sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { select, setCollapsed, uiStore } from "../store/ui";
import { IconTree } from "./icons";
import { SelectedWorktree } from "./tree/SelectedWorktree";
import { TreeNode } from "./tree/TreeNode";

export function AgentTree() {
  const collapsed = useStore(uiStore, (s) => s.collapsed);
  const rows = useStore(sessionStore, (s) => visibleRows(s, collapsed));
  const uiSelected = useStore(uiStore, (s) => s.selected);
  const selected = useStore(sessionStore, (s) => effectiveSelection(s, uiSelected));
  const starting = useStore(uiStore, (s) => s.starting);
  const readOnly = useStore(bookStore, (b) => b.review !== null);
  const treeRef = useRef<HTMLDivElement>(null);
  const groupBase = useId();

  // On the window, so the shortcut works wherever focus is (the output, a card), as long as the tree is shown.
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (!e.defaultPrevented && delegateShortcut(e)) e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const focusRow = useCallback((id: AgentId) => {
    select(id);
    const el = [...(treeRef.current?.querySelectorAll<HTMLElement>('[role="treeitem"]') ?? [])].find(
      (n) => n.dataset.agentId === id,
    );
    el?.focus();
  }, []);

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
    );
  }

  const ctx: BranchContext = { selected, stop: tabStop(rows, selected), readOnly, groupBase };
  return (
    <>
      <div className="tree" role="tree" aria-label="Agents" ref={treeRef} onKeyDown={onKeyDown}>
        <Branches branches={nestRows(rows)} ctx={ctx} />
      </div>
      {selected !== null ? <SelectedWorktree agentId={selected} /> : null}
    </>
  );
}

interface BranchContext {
  selected: AgentId | null;
  stop: AgentId | null;
  readOnly: boolean;
  groupBase: string;
}

/** Rows and, after each open parent, the group of its children (which that row owns). */
function Branches({ branches, ctx }: { branches: readonly Branch[]; ctx: BranchContext }) {
  return (
    <>
      {branches.map(({ row, children }) => {
        const groupId = `${ctx.groupBase}-${row.id}`;
        return (
          <Fragment key={row.id}>
            <TreeNode
              row={row}
              selected={row.id === ctx.selected}
              focusable={row.id === ctx.stop}
              readOnly={ctx.readOnly}
              groupId={groupId}
            />
            {children.length > 0 ? (
              <div role="group" id={groupId} className="tree-group">
                <Branches branches={children} ctx={ctx} />
              </div>
            ) : null}
          </Fragment>
        );
      })}
    </>
  );
}
