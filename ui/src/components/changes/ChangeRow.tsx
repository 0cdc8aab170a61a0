/**
 * One file change in the Changes view: its kind, path, line counts and agent;
 * marked when it is ambiguous (naming the other agents), a person's revert,
 * or reverted since; opened, its diff (or why a side cannot be shown).
 */
import { memo } from "react";
import type { AgentChange, AgentId } from "../../bindings";
import { revertChanges } from "../../ipc/changes";
import { ambiguousText, ambiguousWith, changeDiff, changePlace, isRevert, revertable } from "../../lib/changes";
import { changesStore, setExpanded } from "../../store/changes";
import { agentName, agentWorktree } from "../../store/selectors";
import { useSession } from "../../store/sessionScope";
import { useStore } from "../../store/store";
import { DiffView } from "../DiffView";
import { IconAlert, IconChevron } from "../icons";
import { Counts } from "./Counts";

export const ChangeRow = memo(function ChangeRow({
  entry,
  viewAgent,
  reverted,
  busy,
}: {
  entry: AgentChange;
  /** The agent whose view lists it (a revert's answer shows there). */
  viewAgent: AgentId;
  /** A later revert undid it. */
  reverted: boolean;
  /** A revert is under way. */
  busy: boolean;
}) {
  const c = entry.change;
  const open = useStore(changesStore, (s) => !!s.expanded[c.change_id]);
  const agent = useSession((s) => agentName(s, entry.agent_id));
  const place = useSession((s) => changePlace(c, agentWorktree(s, entry.agent_id)?.update ?? null));
  // Only what can still be put back offers it (not a change in a worktree that is gone).
  const canRevert = useSession((s) => revertable(c, agentWorktree(s, entry.agent_id)?.update ?? null));
  const revert = isRevert(c);
  const others = ambiguousWith(c);
  return (
    <li
      className={`change-file${open ? " open" : ""}`}
      data-testid="changes-file"
      data-path={c.path}
      data-agent={entry.agent_id}
      data-kind={c.kind}
      data-revert={revert ? "true" : undefined}
      data-reverted={reverted ? "true" : undefined}
      data-ambiguous={others.length > 0 ? "true" : undefined}
    >
      <div className="change-head">
        <button
          type="button"
          className="change-toggle"
          aria-expanded={open}
          title={`${c.root}/${c.path}`}
          onClick={() => setExpanded(c.change_id, !open)}
        >
          <IconChevron size={11} />
          <span className={`change-kind ${c.kind}`}>{c.kind}</span>
          <span className="change-path mono">{c.path}</span>
          <Counts added={c.lines_added} removed={c.lines_removed} />
        </button>
        <span className="change-agent" title={`Changed by ${agent} (${entry.agent_id})`}>
          {agent}
        </span>
        {place === "worktree" ? (
          <span className="badge change-place" data-testid="change-place" data-place={place} title={`Made in its worktree (${c.root})`}>
            in its worktree
          </span>
        ) : null}
        {place === "merged" ? (
          <span className="badge change-place" data-testid="change-place" data-place={place} title={`Brought into ${c.root} by merging its branch`}>
            merged
          </span>
        ) : null}
        {revert ? (
          <span className="badge change-revert" title="A person's revert of this agent's earlier changes">
            reverted by you
          </span>
        ) : null}
        {reverted ? (
          <span className="badge change-reverted" title="A later revert put this file back">
            reverted
          </span>
        ) : null}
        {canRevert && !reverted ? (
          <button
            type="button"
            className="btn small ghost"
            data-testid="changes-revert-file"
            disabled={busy}
            title={`Put ${c.path} back as it was before ${agent}'s changes to it`}
            onClick={() => void revertChanges(viewAgent, entry.agent_id, [c.path])}
          >
            Revert this file
          </button>
        ) : null}
      </div>
      {others.length > 0 ? <Ambiguous ids={others} /> : null}
      {open ? <ChangeDiffView entry={entry} /> : null}
    </li>
  );
});

function Ambiguous({ ids }: { ids: AgentId[] }) {
  const names = useSession((s) => ids.map((id) => agentName(s, id)).join("\u0000"));
  return (
    <div className="change-ambiguous" data-testid="changes-ambiguous" data-agents={ids.join(" ")}>
      <IconAlert size={12} />
      <span>{ambiguousText(names.split("\u0000"))}</span>
    </div>
  );
}

function ChangeDiffView({ entry }: { entry: AgentChange }) {
  const d = changeDiff(entry.change);
  if (d.kind === "diff") return <DiffView before={d.before} after={d.after} testId="changes-diff" />;
  return (
    <div className="change-note" data-testid="changes-note">
      {d.notes.map((n) => (
        <div key={n}>{n}</div>
      ))}
    </div>
  );
}
