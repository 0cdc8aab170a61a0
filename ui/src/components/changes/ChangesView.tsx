/**
 * The Changes view of the selected agent (live, or a stored session under
 * review): the files it changed, in order, or its whole subtree's; each with
 * its kind, line counts, the agent it is attributed to, and whether that is
 * ambiguous or a person's revert; opened, its diff. "Revert all" and "Revert
 * this file" ask the backend, and its answer shows here: the files reverted,
 * or each conflict (then nothing was reverted).
 */
import { useState } from "react";
import type { AgentId } from "../../bindings";
import { revertChanges } from "../../ipc/changes";
import { changesSummary, isRevert } from "../../lib/changes";
import { changesStore, setSubtree } from "../../store/changes";
import { agentChanges, agentName, changesFor, revertedChanges } from "../../store/selectors";
import { useSession, useSessionBook } from "../../store/sessionScope";
import { useStore } from "../../store/store";
import { ChangeRow } from "./ChangeRow";
import { RevertResult } from "./RevertResult";

export function ChangesView({ id }: { id: AgentId }) {
  const subtree = useStore(changesStore, (s) => s.subtree);
  const changes = useSession((s) => changesFor(s, id, subtree));
  const own = useSession((s) => agentChanges(s, id));
  const reverted = useSession(revertedChanges);
  const name = useSession((s) => agentName(s, id));
  // Revert all puts back many files at once: it asks once more.
  const [confirmRevert, setConfirmRevert] = useState(false);
  const hasSubagents = useSession((s) => (s.agents[id]?.children.length ?? 0) > 0);
  const sessionId = useSession((s) => s.sessionId);
  const revert = useStore(changesStore, (s) =>
    s.revert !== null && s.revert.sessionId === sessionId && s.revert.viewAgent === id ? s.revert : null,
  );
  const loading = useSessionBook((book) => book !== null && book.changes === null && book.changesError === null);
  const loadError = useSessionBook((book) => book?.changesError ?? null);
  const busy = revert?.busy ?? false;
  const revertable = own.some((c) => !isRevert(c.change) && !reverted.has(c.change.change_id));

  return (
    <div className="changes-view" data-testid="changes-view">
      <div className="changes-bar">
        <label className="toggle" title="List the changes of this agent's subagents too, with its own, in order">
          <input
            type="checkbox"
            data-testid="changes-subtree-toggle"
            checked={subtree}
            onChange={(e) => setSubtree(e.target.checked)}
          />
          With its subagents{hasSubagents ? "" : " (none)"}
        </label>
        <span className="faint">{changes.length > 0 ? changesSummary(changes) : null}</span>
        <span className="spacer" />
        <button
          type="button"
          className="btn small danger"
          data-testid="changes-revert-all"
          disabled={!revertable || busy}
          title="Put back every file this agent changed as it was before; nothing is reverted if any file cannot be"
          onClick={() => setConfirmRevert(true)}
        >
          Revert all of {name}'s changes
        </button>
      </div>
      {confirmRevert ? (
        <div className="changes-confirm" role="alert" data-testid="changes-revert-question">
          <span>
            Put back every file {name} changed as it was before ({changesSummary(own)})? All of them, or none if
            another change touched one since.
          </span>
          <button
            type="button"
            className="btn small danger"
            data-testid="changes-revert-confirm"
            onClick={() => {
              setConfirmRevert(false);
              void revertChanges(id, id, []);
            }}
          >
            Revert all
          </button>
          <button type="button" className="btn small ghost" data-testid="changes-revert-cancel" onClick={() => setConfirmRevert(false)}>
            Cancel
          </button>
        </div>
      ) : null}
      <div className="changes-scroll">
        {revert ? <RevertResult revert={revert} /> : null}
        {loadError !== null ? (
          <div className="inline-error" role="alert">
            Could not load the session's changes: {loadError}
          </div>
        ) : null}
        {changes.length === 0 ? (
          <div className="empty">
            <div className="title">{loading ? "Loading the changes…" : "No file changes"}</div>
            <div>
              {subtree ? "Neither this agent nor its subagents changed files." : "This agent has not changed any files."}
            </div>
          </div>
        ) : (
          <ul className="changes-list">
            {changes.map((c) => (
              <ChangeRow
                key={c.seq}
                entry={c}
                viewAgent={id}
                reverted={reverted.has(c.change.change_id)}
                busy={busy}
              />
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
