/**
 * What a person does with an agent's file changes and worktree: revert its
 * changes (all, or one file's) and merge, keep or discard its worktree, on
 * the displayed session (live, or stored under review). The live session's
 * events bring the results into the store; a reviewed session is reloaded
 * (its changes) or takes the action's answer (its worktree).
 */
import { commands, type AgentId, type WorktreeAction } from "../bindings";
import { changesStore, setRevert, setWorktreeAction } from "../store/changes";
import { sessionStore } from "../store/sessionStore";
import { uiStore } from "../store/ui";
import { attempt } from "./actions";
import { isReviewed, loadChanges, recordWorktreeAction } from "./history";

function displayedSession(): string | null {
  return sessionStore.get().sessionId ?? uiStore.get().session?.session_id ?? null;
}

/**
 * Reverts `agentId`'s changes to `paths` (all of them when empty), asked from
 * `viewAgent`'s Changes view, where the answer shows: the files reverted, or
 * the conflicts (then nothing was reverted).
 */
export async function revertChanges(viewAgent: AgentId, agentId: AgentId, paths: string[]): Promise<void> {
  const sessionId = displayedSession();
  if (sessionId === null || changesStore.get().revert?.busy) return;
  const base = { sessionId, viewAgent, agentId, paths };
  setRevert({ ...base, busy: true, outcome: null, error: null });
  const r = await attempt(() => commands.revertChanges(sessionId, agentId, paths));
  if (r.ok) setRevert({ ...base, busy: false, outcome: r.data, error: null });
  else setRevert({ ...base, busy: false, outcome: null, error: r.message });
  if (isReviewed(sessionId)) await loadChanges(sessionId);
}

/** Merges, keeps or discards `agentId`'s worktree; a refused merge shows as its "conflicted" state. */
export async function worktreeAction(agentId: AgentId, action: WorktreeAction): Promise<void> {
  const sessionId = displayedSession();
  if (sessionId === null || changesStore.get().worktree[agentId]?.busy) return;
  setWorktreeAction(agentId, { busy: action, error: null });
  const r = await attempt(() => commands.worktreeAction(sessionId, agentId, action));
  if (!r.ok) {
    setWorktreeAction(agentId, { busy: null, error: r.message });
    return;
  }
  // The live session sends the same update as an event; a stored one sends none.
  if (isReviewed(sessionId)) recordWorktreeAction(sessionId, agentId, r.data);
  setWorktreeAction(agentId, { busy: null, error: null });
}
