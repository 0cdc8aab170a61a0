/**
 * The agent tree: one row per visible agent, collapsible to any depth, with
 * keyboard navigation (WAI-ARIA tree pattern) and per-node actions; Shift+D
 * opens Delegate… under the selected agent from anywhere but a text field.
 * A row counts the files its agent changed (opening its Changes) and badges
 * its worktree's state, and shows a thin meter of its budget when it has one
 * (Rust's standing); the selected row offers what may still be done with
 * that worktree. An agent its budget stopped offers "Raise budget…" where
 * others offer Resume.
 */
import { memo, useCallback, useEffect, useRef, type KeyboardEvent } from "react";
import type { AgentId } from "../bindings";
import { resumeAgent, stopAgent } from "../ipc/actions";
import { worktreeActionable } from "../lib/changes";
import { formatCost, formatDuration, formatTokens, formatTurns } from "../lib/format";
import {
  agentStanding,
  agentWorktree,
  canMessage,
  canRaiseBudget,
  canResume,
  canStop,
  changeCount,
  effectiveSelection,
  subtreeSizes,
  totalElapsedMs,
  visibleRows,
  type TreeRow,
} from "../store/selectors";
import { lastToolDecision } from "../store/approvals";
import { delegateShortcut } from "../store/delegate";
import { bookStore } from "../store/review";
import { isTerminal } from "../store/session/status";
import { agentFigures } from "../store/session/usage";
import { sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { openDialog, select, setCollapsed, showChanges, uiStore } from "../store/ui";
import { useNow } from "../hooks/useNow";
import { IconBranch, IconChevron, IconGauge, IconMessage, IconResume, IconStop, IconTree } from "./icons";
import { BudgetMeter } from "./BudgetMeter";
import { DecisionMark } from "./approvals/DecisionMark";
import { StatusIcon } from "./StatusIcon";
import { WorktreeBadge, WorktreePanel } from "./WorktreePanel";

export function AgentTree() {
  const collapsed = useStore(uiStore, (s) => s.collapsed);
  const rows = useStore(sessionStore, (s) => visibleRows(s, collapsed));
  const uiSelected = useStore(uiStore, (s) => s.selected);
  const selected = useStore(sessionStore, (s) => effectiveSelection(s, uiSelected));
  const starting = useStore(uiStore, (s) => s.starting);
  const readOnly = useStore(bookStore, (b) => b.review !== null);
  const treeRef = useRef<HTMLDivElement>(null);

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
    const el = treeRef.current?.querySelector<HTMLElement>(`[data-agent-id="${id}"]`);
    el?.focus();
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    if (target.closest("button, input, select, textarea") && (e.key === "Enter" || e.key === " ")) return;
    const focusedId = target.closest<HTMLElement>("[data-agent-id]")?.dataset.agentId ?? selected;
    const index = rows.findIndex((r) => r.id === focusedId);
    const row = rows[index];
    const move = (to: TreeRow | undefined) => {
      if (to) focusRow(to.id);
    };
    switch (e.key) {
      case "ArrowDown":
        move(index < 0 ? rows[0] : rows[index + 1]);
        break;
      case "ArrowUp":
        move(index < 0 ? rows[0] : rows[index - 1]);
        break;
      case "Home":
        move(rows[0]);
        break;
      case "End":
        move(rows.at(-1));
        break;
      case "ArrowRight":
        if (!row) return;
        if (row.hasChildren && !row.expanded) setCollapsed(row.id, false);
        else if (row.expanded) move(rows[index + 1]);
        break;
      case "ArrowLeft":
        if (!row) return;
        if (row.expanded) setCollapsed(row.id, true);
        else if (row.parentId) focusRow(row.parentId);
        break;
      case "Enter":
      case " ":
        if (row) focusRow(row.id);
        break;
      default:
        return;
    }
    e.preventDefault();
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

  return (
    <div className="tree" role="tree" aria-label="Agents" ref={treeRef} onKeyDown={onKeyDown}>
      {rows.map((row, i) => (
        <TreeNode
          key={row.id}
          row={row}
          selected={row.id === selected}
          focusable={row.id === (rows.some((r) => r.id === selected) ? selected : rows[0]?.id)}
          setSize={rows.length}
          position={i + 1}
          readOnly={readOnly}
        />
      ))}
    </div>
  );
}

interface NodeProps {
  row: TreeRow;
  selected: boolean;
  /** The one row reached with Tab (roving tabindex). */
  focusable: boolean;
  setSize: number;
  position: number;
  /** A past session under review: no actions. */
  readOnly: boolean;
}

const TreeNode = memo(function TreeNode({ row, selected, focusable, position, setSize, readOnly }: NodeProps) {
  const node = useStore(sessionStore, (s) => s.agents[row.id]);
  // Folded: the subtree's figures (Rust's), so what the hidden subagents used still shows.
  const folded = row.hasChildren && !row.expanded;
  const figures = useStore(sessionStore, (s) => agentFigures(s.usage, row.id, folded));
  const hidden = useStore(sessionStore, (s) =>
    row.hasChildren && !row.expanded ? (subtreeSizes(s.agents)[row.id] ?? 0) : 0,
  );
  // What let its latest call run or refused it (a person, a rule); the policy's word is left to the output.
  const decision = useStore(sessionStore, (s) => lastToolDecision(s, row.id));
  const changed = useStore(sessionStore, (s) => changeCount(s, row.id));
  const worktree = useStore(sessionStore, (s) => agentWorktree(s, row.id));
  const standing = useStore(sessionStore, (s) => agentStanding(s, row.id));
  const active = node ? !isTerminal(node.status) && (node.runStartedAt !== null || node.wallRunStartedAt !== null) : false;
  const now = useNow(active);
  if (!node) return null;

  // No figures yet: nothing used.
  const tokens = figures?.tokens ?? 0;
  const cost = formatCost(figures?.usage.cost_usd ?? null);
  // Every run's wall time: a resumed agent's runs add up.
  const elapsed = totalElapsedMs(node, now);
  const title = node.description || (node.depth === 0 ? "main" : node.id);
  const mcpLast = node.lastToolMcp;

  return (
    <div
      className="tree-node"
      role="treeitem"
      data-testid="tree-node"
      data-agent-id={node.id}
      data-status={node.status}
      data-parent-id={node.parentId ?? undefined}
      aria-level={row.level + 1}
      aria-setsize={setSize}
      aria-posinset={position}
      aria-selected={selected}
      aria-expanded={row.hasChildren ? row.expanded : undefined}
      tabIndex={focusable ? 0 : -1}
      style={{ paddingLeft: 4 + row.level * 16 }}
      onClick={() => select(node.id)}
    >
      <button
        type="button"
        className={`twisty${row.hasChildren ? "" : " leaf"}`}
        tabIndex={-1}
        aria-label={row.hasChildren ? (row.expanded ? "Collapse" : "Expand") : undefined}
        aria-hidden={row.hasChildren ? undefined : true}
        onClick={(e) => {
          e.stopPropagation();
          if (row.hasChildren) setCollapsed(node.id, row.expanded);
        }}
      >
        {row.hasChildren ? <IconChevron size={12} /> : null}
      </button>
      <div className="node-main">
        <div className="node-title">
          <StatusIcon status={node.status} />
          <span className="desc" title={title}>
            {title}
          </span>
          {node.subagentType ? <span className="badge">{node.subagentType}</span> : null}
          {worktree ? <WorktreeBadge update={worktree.update} /> : null}
          {node.pendingApprovals > 0 ? (
            <span className="badge waiting" title="Waiting for your approval">
              {node.pendingApprovals} approval{node.pendingApprovals > 1 ? "s" : ""}
            </span>
          ) : null}
        </div>
        <div className="node-meta">
          {node.model ? <span className="mono">{node.model}</span> : <span className="mono">{node.id}</span>}
          {tokens > 0 || folded ? (
            <span title={folded ? "Tokens of this agent and its subagents" : "Tokens"}>
              {folded ? "Σ " : ""}
              {formatTokens(tokens)} tok{cost ? ` · ${cost}` : ""}
            </span>
          ) : null}
          {elapsed !== null ? (
            <span data-testid="tree-elapsed" title={`${formatTurns(node.turns)} · ${formatDuration(elapsed)} over every run`}>
              {formatDuration(elapsed)}
            </span>
          ) : null}
          {standing ? <BudgetMeter standing={standing} testId="tree-budget" /> : null}
          {hidden > 0 ? <span>+{hidden} hidden</span> : null}
          {changed > 0 ? (
            <button
              type="button"
              className="changes-count"
              data-testid="tree-changes-count"
              tabIndex={-1}
              title={`${changed} file${changed === 1 ? "" : "s"} changed`}
              onClick={(e) => {
                e.stopPropagation();
                showChanges(node.id);
              }}
            >
              ±{changed}
            </button>
          ) : null}
        </div>
        {node.lastTool ? (
          <div className="node-tool" title={mcpLast ? `MCP ${node.lastTool}` : node.lastTool}>
            {mcpLast ? <span className="badge mcp-tag">MCP</span> : null}
            {node.lastTool}
          </div>
        ) : null}
        {node.lastTool && decision && decision.kind !== "policy" ? (
          <div className="node-decision">
            <DecisionMark mark={decision} compact />
          </div>
        ) : null}
        {selected && worktree && worktreeActionable(worktree.update.state, isTerminal(node.status)) ? (
          <WorktreePanel agentId={node.id} update={worktree.update} />
        ) : null}
        {readOnly ? null : (
          <div className="node-actions">
            <button
              type="button"
              className="btn small ghost"
              data-testid="node-delegate"
              title="Start a subagent under this agent (Shift+D when it is selected)"
              aria-keyshortcuts="Shift+D"
              onClick={(e) => {
                e.stopPropagation();
                select(node.id);
                openDialog({ kind: "delegate", parentId: node.id });
              }}
            >
              <IconBranch size={12} /> Delegate…
            </button>
            {canMessage(node.status) ? (
              <button
                type="button"
                className="btn small ghost"
                data-testid="node-message"
                title="Send a steering message to this agent"
                onClick={(e) => {
                  e.stopPropagation();
                  select(node.id);
                  openDialog({ kind: "message", agentId: node.id });
                }}
              >
                <IconMessage size={12} /> Message…
              </button>
            ) : null}
            {canStop(node.status) ? (
              <button
                type="button"
                className="btn small ghost danger"
                data-testid="node-stop"
                title="Stop this agent and its subagents"
                onClick={(e) => {
                  e.stopPropagation();
                  void stopAgent(node.id);
                }}
              >
                <IconStop size={12} /> Stop
              </button>
            ) : null}
            {canResume(node.status) ? (
              <button
                type="button"
                className="btn small ghost"
                data-testid="node-resume"
                title="Start a new run of this agent: it carries on where it stopped, and its result reaches its parent"
                onClick={(e) => {
                  e.stopPropagation();
                  select(node.id);
                  void resumeAgent(node.id);
                }}
              >
                <IconResume size={12} /> Resume
              </button>
            ) : null}
            {canRaiseBudget(node.status) ? (
              <button
                type="button"
                className="btn small ghost"
                data-testid="node-raise-budget"
                title="Its budget ran out: raise it to let it carry on where it stopped"
                onClick={(e) => {
                  e.stopPropagation();
                  select(node.id);
                  openDialog({ kind: "budget", agentId: node.id });
                }}
              >
                <IconGauge size={12} /> Raise budget…
              </button>
            ) : null}
          </div>
        )}
      </div>
    </div>
  );
});
