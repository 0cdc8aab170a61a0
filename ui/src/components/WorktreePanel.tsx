/**
 * An agent's git worktree in the tree: a badge with its state on the row and,
 * for the selected agent while a person may still act on it (Rust's
 * OPEN_WORKTREE_STATES), what its branch changed and Merge / Keep branch /
 * Discard (Discard asks first: it deletes the work). A refused merge lists its
 * conflicts file by file: nothing was applied to the parent's tree.
 */
import { useState, type ReactNode } from "react";
import type { AgentId, WorktreeUpdate } from "../bindings";
import { worktreeAction } from "../ipc/changes";
import { countsText, WORKTREE_STATE_LABELS, worktreeFilesSummary } from "../lib/changes";
import { changesStore, type WorktreeActionState } from "../store/changes";
import { useStore } from "../store/store";
import { IconBranch } from "./icons";

const IDLE: WorktreeActionState = { busy: null, error: null };
/** Files named in the panel; the rest are counted (the tooltip lists all). */
const MAX_LISTED = 8;

export function WorktreeBadge({ update }: { update: WorktreeUpdate }) {
  const label = WORKTREE_STATE_LABELS[update.state];
  return (
    <span
      className={`badge worktree-badge ${update.state}`}
      data-testid="worktree-badge"
      data-state={update.state}
      title={`Own git worktree on branch ${update.branch}: ${label}`}
    >
      <IconBranch size={10} /> {label}
    </span>
  );
}

export function WorktreePanel({ agentId, update }: { agentId: AgentId; update: WorktreeUpdate }) {
  const action = useStore(changesStore, (s) => s.worktree[agentId] ?? IDLE);
  // Merge and Discard change the parent's tree or lose work: each asks once more.
  const [confirming, setConfirming] = useState<"merge" | "discard" | null>(null);
  const answer = (action: "merge" | "discard") => ({
    onConfirm: () => {
      setConfirming(null);
      void worktreeAction(agentId, action);
    },
    onCancel: () => setConfirming(null),
  });
  const files = update.files ?? [];
  const conflicts = update.conflicts ?? [];
  const busy = action.busy !== null;
  const summary = worktreeFilesSummary(files);
  return (
    <div
      className="worktree-panel"
      data-testid="worktree-panel"
      onClick={(e) => e.stopPropagation()}
    >
      <div
        className="worktree-files"
        data-testid="worktree-files"
        title={files.map((f) => `${f.kind} ${f.path} ${countsText(f.lines_added, f.lines_removed)}`).join("\n")}
      >
        {update.state === "created" ? (
          <>
            Its agent ended before finishing: the work in <span className="mono">{update.branch}</span> may be
            uncommitted (a merge or keep commits it first).
          </>
        ) : (
          <>
            {summary} on <span className="mono">{update.branch}</span>
          </>
        )}
      </div>
      {files.length > 0 ? (
        <ul className="worktree-file-list" data-testid="worktree-file-list">
          {files.slice(0, MAX_LISTED).map((f) => (
            <li key={f.path} data-path={f.path} data-kind={f.kind}>
              <span className={`kind ${f.kind}`}>{f.kind}</span> <span className="mono">{f.path}</span>{" "}
              <span className="faint">{countsText(f.lines_added, f.lines_removed)}</span>
            </li>
          ))}
          {files.length > MAX_LISTED ? <li className="faint">and {files.length - MAX_LISTED} more</li> : null}
        </ul>
      ) : null}
      {update.state === "conflicted" ? (
        <div className="worktree-conflicts" data-testid="worktree-conflicts" role="alert">
          <div>
            <strong>The merge was refused.</strong> Nothing was applied to the parent's tree: it was not changed.
          </div>
          <ul>
            {conflicts.map((c) => (
              <li key={c.path} data-path={c.path}>
                <span className="mono">{c.path}</span>: {c.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {confirming === "merge" ? (
        <Confirm name="worktree-merge" action="Merge into the parent's tree" tone="primary" {...answer("merge")}>
          Merge applies {summary} to <span className="mono">{update.parent_root}</span>: all of it, or nothing if a file
          there conflicts.
        </Confirm>
      ) : confirming === "discard" ? (
        <Confirm name="worktree-discard" action="Discard the work" tone="danger" {...answer("discard")}>
          Discard deletes the worktree and branch <span className="mono">{update.branch}</span> with its work ({summary}).
          This cannot be undone.
        </Confirm>
      ) : (
        <div className="worktree-actions">
          <button
            type="button"
            className="btn small"
            data-testid="worktree-merge"
            disabled={busy}
            title={`Apply the branch's changes to ${update.parent_root}; nothing is applied if any file conflicts`}
            onClick={() => setConfirming("merge")}
          >
            {action.busy === "merge" ? "Merging…" : "Merge"}
          </button>
          <button
            type="button"
            className="btn small ghost"
            data-testid="worktree-keep"
            disabled={busy}
            title="Keep the branch (its commit holds the work) and remove the worktree's checkout"
            onClick={() => void worktreeAction(agentId, "keep")}
          >
            {action.busy === "keep" ? "Keeping…" : "Keep branch"}
          </button>
          <button
            type="button"
            className="btn small ghost danger"
            data-testid="worktree-discard"
            disabled={busy}
            title="Delete the worktree and its branch: the changes are lost"
            onClick={() => setConfirming("discard")}
          >
            {action.busy === "discard" ? "Discarding…" : "Discard…"}
          </button>
        </div>
      )}
      {action.error !== null ? (
        <div className="inline-error" role="alert">
          {action.error}
        </div>
      ) : null}
    </div>
  );
}

/** An action asked about once more (what it does, then the action and Cancel); test ids `<name>-question`, `-confirm`, `-cancel`. */
function Confirm({
  name,
  action,
  tone,
  onConfirm,
  onCancel,
  children,
}: {
  name: string;
  action: string;
  tone: "primary" | "danger";
  onConfirm: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  return (
    <div className="worktree-confirm" role="alert" data-testid={`${name}-question`}>
      <span>{children}</span>
      <div className="worktree-actions">
        <button type="button" className={`btn small ${tone}`} data-testid={`${name}-confirm`} onClick={onConfirm}>
          {action}
        </button>
        <button type="button" className="btn small ghost" data-testid={`${name}-cancel`} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
