/**
 * The selected agent's worktree while a person may still act on it (Merge /
 * Keep branch / Discard), under the tree rather than inside its row, so that
 * selecting a row never changes its height.
 */
import { worktreeActionable } from "../../lib/changes";
import { agentName, agentWorktree } from "../../store/selectors";
import { isTerminal } from "../../store/session/status";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import type { AgentId } from "../../bindings";
import { WorktreePanel } from "../WorktreePanel";

export function SelectedWorktree({ agentId }: { agentId: AgentId }) {
  const worktree = useStore(sessionStore, (s) => agentWorktree(s, agentId));
  const ended = useStore(sessionStore, (s) => {
    const status = s.agents[agentId]?.status;
    return status === undefined ? false : isTerminal(status);
  });
  const name = useStore(sessionStore, (s) => agentName(s, agentId));
  if (!worktree || !worktreeActionable(worktree.update.state, ended)) return null;
  return (
    <section className="tree-worktree" aria-label={`Worktree of “${name}”`}>
      <WorktreePanel agentId={agentId} update={worktree.update} />
    </section>
  );
}
