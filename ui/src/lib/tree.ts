/**
 * The agent tree's words and keys, apart from React: what the tree's keys do
 * (WAI-ARIA tree pattern), which row Tab reaches, the word a row's last-tool
 * line leads with, and the name a row is announced by.
 */
import type { AgentId } from "../bindings";
import type { ToolOutcome, TreeRow } from "../store/selectors";

/** The row Tab reaches (roving tabindex): the selected one while it is shown, else the first. */
export function tabStop(rows: readonly TreeRow[], selected: AgentId | null): AgentId | null {
  if (selected !== null && rows.some((r) => r.id === selected)) return selected;
  return rows[0]?.id ?? null;
}

/** What a key does in the tree, from the row that has the focus (`at`, -1: none). */
export type TreeMove =
  | { kind: "focus"; id: AgentId }
  | { kind: "expand"; id: AgentId }
  | { kind: "collapse"; id: AgentId }
  | { kind: "select"; id: AgentId };

export function treeKey(key: string, rows: readonly TreeRow[], at: number): TreeMove | null {
  const row = rows[at];
  const focus = (to: TreeRow | undefined): TreeMove | null => (to ? { kind: "focus", id: to.id } : null);
  switch (key) {
    case "ArrowDown":
      return focus(at < 0 ? rows[0] : rows[at + 1]);
    case "ArrowUp":
      return focus(at < 0 ? rows[0] : rows[at - 1]);
    case "Home":
      return focus(rows[0]);
    case "End":
      return focus(rows.at(-1));
    case "ArrowRight":
      // Closed: open it; open: into its first child; a leaf: nothing.
      if (!row) return focus(rows[0]);
      if (row.hasChildren && !row.expanded) return { kind: "expand", id: row.id };
      return row.expanded ? focus(rows[at + 1]) : null;
    case "ArrowLeft":
      // Open: close it; closed or a leaf: up to its parent.
      if (!row) return focus(rows[0]);
      if (row.expanded) return { kind: "collapse", id: row.id };
      return row.parentId ? { kind: "focus", id: row.parentId } : null;
    case "Enter":
    case " ":
      return row ? { kind: "select", id: row.id } : null;
    default:
      return null;
  }
}

/** The word a last-tool line leads with when the call did not simply run (or is running). */
export const OUTCOME_WORDS: Readonly<Record<ToolOutcome, string | null>> = {
  running: null,
  // The row's approvals badge says it already.
  waiting: null,
  ran: null,
  failed: "failed",
  // The agent completed after it: the row says how it ended (the tooltip, what failed).
  overcome: null,
  denied: "denied",
  not_run: "not run",
};

/**
 * The name a row is announced by: the agent, its status, what waits on the
 * person and how its latest call went when it did not simply run. The row's
 * other figures stay readable in the row itself.
 */
export function rowLabel(parts: {
  name: string;
  status: string;
  approvals: number;
  tool: { summary: string; outcome: ToolOutcome } | null;
}): string {
  const out = [parts.name, parts.status];
  if (parts.approvals > 0) out.push(`${parts.approvals} approval${parts.approvals === 1 ? "" : "s"} waiting`);
  const word = parts.tool ? OUTCOME_WORDS[parts.tool.outcome] : null;
  if (parts.tool && word) out.push(`last tool ${parts.tool.summary} ${word}`);
  return out.join(", ");
}
