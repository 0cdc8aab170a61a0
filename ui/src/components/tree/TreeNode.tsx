/**
 * One agent's row in the tree, always the same height (two lines that never
 * wrap). First its status, name and timer, and in the room the name leaves
 * its figures (tokens, budget meter, hidden subagents, changed files) then
 * its chips (approvals waiting, worktree, type): the name gives way last and
 * its tooltip has it whole. Under it the latest tool call and how it went (a
 * refused call leads with its refusal, "denied by you: …", in the deny
 * colour; what let it run follows, clipped first), and the row's actions,
 * shown on the selected or hovered row and while the focus is in it.
 */
import { memo, useState, type CSSProperties } from "react";
import { formatCost, formatDuration, formatTokens, formatTurns, statusLabel } from "../../lib/format";
import { OUTCOME_WORDS, rowLabel } from "../../lib/tree";
import {
  agentStanding,
  agentWorktree,
  changeCount,
  externalAgent,
  externalNote,
  lastTool,
  rowAgent,
  subtreeSizes,
  type TreeRow,
} from "../../store/selectors";
import { isTerminal } from "../../store/session/status";
import { agentFigures } from "../../store/session/usage";
import { useSession } from "../../store/sessionScope";
import { lastToolDecision } from "../../store/approvals";
import { select, setCollapsed, showChanges } from "../../store/ui";
import { DecisionMark } from "../approvals/DecisionMark";
import { BudgetMeter } from "../BudgetMeter";
import { ContextMeter } from "../ContextMeter";
import { IconChevron, IconSlash, IconX } from "../icons";
import { RunClock } from "../RunClock";
import { StatusIcon } from "../StatusIcon";
import { WorktreeBadge } from "../WorktreePanel";
import { NodeActions } from "./NodeActions";

export interface TreeNodeProps {
  row: TreeRow;
  selected: boolean;
  /** The one row reached with Tab (roving tabindex). */
  focusable: boolean;
  /** A past session under review: no actions. */
  readOnly: boolean;
  /** Where the row sits in the virtualised tree (CSS px from its top). */
  top: number;
}

export const TreeNode = memo(function TreeNode({ row, selected, focusable, readOnly, top }: TreeNodeProps) {
  // Its facts, not its output: the row does not render for each streamed piece.
  const node = useSession((s) => rowAgent(s, row.id));
  // Folded: the subtree's figures (Rust's), so what the hidden subagents used still shows.
  const folded = row.hasChildren && !row.expanded;
  const figures = useSession((s) => agentFigures(s.usage, row.id, folded));
  const hidden = useSession((s) => (folded ? (subtreeSizes(s.agents)[row.id] ?? 0) : 0));
  const tool = useSession((s) => lastTool(s, row.id));
  // Who let it run or refused it (a person, a rule); the policy's word is left to the output.
  const decision = useSession((s) => lastToolDecision(s, row.id));
  const changed = useSession((s) => changeCount(s, row.id));
  const worktree = useSession((s) => agentWorktree(s, row.id));
  const standing = useSession((s) => agentStanding(s, row.id));
  const [hovered, setHovered] = useState(false);
  const [focusWithin, setFocusWithin] = useState(false);
  const active = node ? !isTerminal(node.status) && node.wallRunStartedAt !== null : false;
  if (!node) return null;

  // No figures yet: nothing used.
  const tokens = figures?.tokens ?? 0;
  const cost = formatCost(figures?.usage.cost_usd ?? null);
  const name = node.description || (node.depth === 0 ? "main" : node.id);
  const external = externalAgent(node);
  const word = tool ? OUTCOME_WORDS[tool.outcome] : null;
  const mark = decision && decision.kind !== "policy" ? decision : null;
  // A refusal leads the line (it is what happened); an approval follows the call.
  const refusal = mark !== null && mark.approved === false;
  const showActions = !readOnly && (selected || hovered || focusWithin);
  const place = { "--level": row.level, transform: `translateY(${top}px)` } as CSSProperties;

  return (
    <div
      className="tree-node"
      role="treeitem"
      data-testid="tree-node"
      data-agent-id={node.id}
      data-status={node.status}
      data-parent-id={node.parentId ?? undefined}
      data-actions={showActions ? "shown" : undefined}
      aria-label={rowLabel({
        name,
        status: statusLabel(node.status),
        approvals: node.pendingApprovals,
        tool,
      })}
      aria-level={row.level + 1}
      aria-setsize={row.setSize}
      aria-posinset={row.posInSet}
      aria-selected={selected}
      aria-expanded={row.hasChildren ? row.expanded : undefined}
      tabIndex={focusable ? 0 : -1}
      style={place}
      onClick={() => select(node.id)}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocusWithin(true)}
      onBlur={(e) => {
        if (!(e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget))) setFocusWithin(false);
      }}
    >
      {row.hasChildren ? (
        <button
          type="button"
          className="twisty"
          tabIndex={-1}
          aria-label={`${row.expanded ? "Collapse" : "Expand"} “${name}”`}
          onClick={(e) => {
            e.stopPropagation();
            setCollapsed(node.id, row.expanded);
          }}
        >
          <IconChevron size={12} />
        </button>
      ) : (
        <span className="twisty leaf" aria-hidden="true" />
      )}
      <div className="node-line node-title">
        <StatusIcon status={node.status} />
        <span className="desc" title={`${name}\n${node.model ? `${node.model} · ` : ""}${node.id}`}>
          {name}
        </span>
        {/* What it is, a fork of its parent, stays beside the name at any width. */}
        {node.fork ? (
          <span
            className="badge fork"
            data-testid="tree-fork"
            title={`A fork of its parent: it started from its parent's ${node.fork.messages} messages`}
          >
            fork
          </span>
        ) : null}
        {/* So is what runs it: an external ACP agent's program, not Arbor's loop. */}
        {external ? (
          <span className="badge external" data-testid="tree-external" title={externalNote(external)}>
            ACP
          </span>
        ) : null}
        {/* What needs you is never crowded out: the name gives way first. */}
        {node.pendingApprovals > 0 ? (
          <span className="badge waiting" data-testid="tree-approvals" title="Waiting for your approval">
            {node.pendingApprovals}
            <span className="word">approval{node.pendingApprovals > 1 ? "s" : ""}</span>
          </span>
        ) : null}
        {/* After the name, in what room it leaves: the chips. */}
        <span className="node-rest">
          <span className="node-chips">
            {worktree ? <WorktreeBadge update={worktree.update} /> : null}
            {node.subagentType && !node.fork ? (
              <span className="badge type" title={`Type: ${node.subagentType}`}>
                {node.subagentType}
              </span>
            ) : null}
          </span>
        </span>
        {/* Every run's wall time: a resumed agent's runs add up. */}
        <RunClock node={node} running={active}>
          {(elapsed) => (
            <span
              className="node-elapsed"
              data-testid="tree-elapsed"
              title={`${formatTurns(node.turns)} · ${formatDuration(elapsed)} over every run`}
            >
              {formatDuration(elapsed)}
            </span>
          )}
        </RunClock>
      </div>
      <div className="node-line node-sub">
        {tool ? (
          <span
            className={`node-tool ${tool.outcome}`}
            data-testid="tree-last-tool"
            data-outcome={tool.outcome}
            title={`${tool.mcp ? "MCP " : ""}${tool.summary}${tool.note ? `\n${tool.note}` : ""}`}
          >
            {refusal ? (
              <span className="tool-mark lead">
                <DecisionMark mark={mark} compact />
              </span>
            ) : word ? (
              <span className="tool-outcome">
                {tool.outcome === "failed" ? <IconX size={10} /> : <IconSlash size={10} />}
                {word}
              </span>
            ) : null}
            {tool.mcp ? <span className="badge mcp-tag">MCP</span> : null}
            <span className="tool-summary">{tool.summary}</span>
            {mark && !refusal ? (
              <span className="tool-mark">
                <DecisionMark mark={mark} compact />
              </span>
            ) : null}
          </span>
        ) : (
          <span className="node-tool node-model mono" title={node.model || node.id}>
            {node.model || node.id}
          </span>
        )}
        <span className="node-meta" data-testid="tree-figures">
          {tokens > 0 || folded ? (
            <span title={folded ? "Tokens of this agent and its subagents" : "Tokens"}>
              {folded ? "Σ " : ""}
              {formatTokens(tokens)} tok{cost ? <span className="cost"> · {cost}</span> : null}
            </span>
          ) : null}
          <ContextMeter used={node.contextUsed} window={node.contextWindow} testId="tree-context" />
          {standing ? <BudgetMeter standing={standing} testId="tree-budget" /> : null}
          {hidden > 0 ? <span title={`${hidden} subagents folded`}>+{hidden} hidden</span> : null}
          {changed > 0 ? (
            <button
              type="button"
              className="changes-count"
              data-testid="tree-changes-count"
              tabIndex={-1}
              aria-label={`${changed} file${changed === 1 ? "" : "s"} changed: show the changes`}
              title={`${changed} file${changed === 1 ? "" : "s"} changed`}
              onClick={(e) => {
                e.stopPropagation();
                showChanges(node.id);
              }}
            >
              ±{changed}
            </button>
          ) : null}
        </span>
        {showActions ? <NodeActions id={node.id} status={node.status} /> : null}
      </div>
    </div>
  );
});
