/**
 * The selected agent's worktree while a person may still act on it (Merge /
 * Keep branch / Discard), under the tree rather than inside its row, so that
 * selecting a row never changes its height; and a line for every other
 * worktree that waits, so none waits unseen.
 */
import { worktreeActionable } from "../../lib/changes";
import { agentName, agentWorktree, worktreesAwaiting } from "../../store/selectors";
import { isTerminal } from "../../store/session/status";
import { useSession } from "../../store/sessionScope";
import type { AgentId } from "../../bindings";
import { select } from "../../store/ui";
import { WorktreePanel } from "../WorktreePanel";

/** The worktrees waiting for a person other than the selected agent's, one line each: a click selects its agent. */
export function WaitingWorktrees({ selected }: { selected: AgentId | null }) {
  const waiting = useSession(worktreesAwaiting);
  const others = waiting.filter((id) => id !== selected);
  if (others.length === 0) return null;
  return (
    <section className="tree-worktrees-waiting" aria-label="Worktrees waiting for you" data-testid="worktrees-waiting">
      {others.map((id) => (
        <WaitingLine key={id} agentId={id} />
      ))}
    </section>
  );
}

function WaitingLine({ agentId }: { agentId: AgentId }) {
  const name = useSession((s) => agentName(s, agentId));
  return (
    <button type="button" className="worktree-waiting-line" data-testid="worktree-waiting" onClick={() => select(agentId)}>
      <span className="desc">{name}</span>
      <span className="faint">worktree ready: Merge, Keep or Discard</span>
    </button>
  );
}

/** Under the tree, kept at its bottom: the selected agent's worktree and the others that wait; nothing when none does. */
export function TreeFoot({ selected }: { selected: AgentId | null }) {
  const waiting = useSession(worktreesAwaiting);
  if (waiting.length === 0) return null;
  return (
    <div className="tree-foot">
      {selected !== null ? <SelectedWorktree agentId={selected} /> : null}
      <WaitingWorktrees selected={selected} />
    </div>
  );
}

export function SelectedWorktree({ agentId }: { agentId: AgentId }) {
  const worktree = useSession((s) => agentWorktree(s, agentId));
  const ended = useSession((s) => {
    const status = s.agents[agentId]?.status;
    return status === undefined ? false : isTerminal(status);
  });
  const name = useSession((s) => agentName(s, agentId));
  if (!worktree || !worktreeActionable(worktree.update.state, ended)) return null;
  return (
    <section className="tree-worktree" aria-label={`Worktree of “${name}”`}>
      <WorktreePanel agentId={agentId} update={worktree.update} />
    </section>
  );
}
