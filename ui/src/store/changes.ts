/**
 * The Changes view's and the worktree actions' UI state (not derived from the
 * event stream): whether the view shows the agent's subtree, which changes
 * are opened to their diff, the last revert asked for and its answer, and
 * the worktree actions under way or failed. The changes themselves are the
 * session state's (selectors.ts); the actions that fill this are in ipc/changes.ts.
 */
import type { AgentId, RevertOutcome, SessionId, WorktreeAction } from "../bindings";
import { createStore } from "./store";

export interface RevertState {
  sessionId: SessionId;
  /** The agent whose Changes view asked (its answer shows there). */
  viewAgent: AgentId;
  /** The agent whose changes were reverted. */
  agentId: AgentId;
  /** The paths asked for; empty: all of the agent's changes. */
  paths: string[];
  busy: boolean;
  outcome: RevertOutcome | null;
  /** The command failed (nothing is known to be reverted). */
  error: string | null;
}

export interface WorktreeActionState {
  busy: WorktreeAction | null;
  error: string | null;
}

export interface ChangesUi {
  /** The view lists the agent's subagents' changes too. */
  subtree: boolean;
  /** Changes opened to their diff, by change id. */
  expanded: Record<string, boolean>;
  revert: RevertState | null;
  /** By agent. */
  worktree: Record<AgentId, WorktreeActionState>;
}

export function initialChangesUi(): ChangesUi {
  return { subtree: false, expanded: {}, revert: null, worktree: {} };
}

export const changesStore = createStore<ChangesUi>(initialChangesUi());

export function setSubtree(subtree: boolean): void {
  changesStore.set((s) => (s.subtree === subtree ? s : { ...s, subtree }));
}

export function setExpanded(changeId: string, open: boolean): void {
  changesStore.set((s) => (!!s.expanded[changeId] === open ? s : { ...s, expanded: { ...s.expanded, [changeId]: open } }));
}

export function setRevert(revert: RevertState | null): void {
  changesStore.set((s) => ({ ...s, revert }));
}

export function setWorktreeAction(agentId: AgentId, state: WorktreeActionState): void {
  changesStore.set((s) => ({ ...s, worktree: { ...s.worktree, [agentId]: state } }));
}
