/**
 * Ways to open the Delegate… form besides the tree node's button: "Delegate
 * similar…" on a Task card (same parent, that call's prompt and type), and
 * Shift+D (under the agent selected in the tree). They only open the form;
 * the form sends the delegation. And the agent types last found on disk (by
 * Settings → Reload, or as the form opens), which the form offers beside the
 * live session's own.
 */
import type { AgentId, AgentTypeInfo, SessionInfo, Value } from "../bindings";
import { isTextEntry, modalOpen } from "../lib/approvalKeys";
import { isDelegateShortcut, taskPrefill } from "../lib/delegate";
import { bookStore } from "./review";
import { effectiveSelection } from "./selectors";
import { sessionStore } from "./sessionStore";
import { createStore } from "./store";
import { trustStore } from "./trust";
import { openDialog, select, uiStore } from "./ui";

/** Agent types as last read from disk, with the workspace they were read for. */
export interface FoundTypes {
  workspace: string;
  types: readonly AgentTypeInfo[];
}

export const foundTypesStore = createStore<FoundTypes | null>(null);

export function setFoundTypes(workspace: string, types: readonly AgentTypeInfo[]): void {
  foundTypesStore.set({ workspace, types });
}

/** The types last found for `workspace`; null when the last read was for another (or none yet). */
export function foundFor(found: FoundTypes | null, workspace: string | undefined): readonly AgentTypeInfo[] | null {
  return found !== null && found.workspace === workspace ? found.types : null;
}

/**
 * The live session as Rust describes it now (the app state's `session`): its
 * agent types are taken in when it is this window's session, so a type Rust
 * lets it start since becomes choosable. Anything else of it stays as it was.
 */
export function takeSessionTypes(now: SessionInfo | null): void {
  uiStore.set((s) => {
    if (!s.session || !now || now.session_id !== s.session.session_id) return s;
    if (JSON.stringify(now.agent_types) === JSON.stringify(s.session.agent_types)) return s;
    return { ...s, session: { ...s.session, agent_types: now.agent_types } };
  });
}

/** Opens the form under the agent that made a Task call, with that call's prompt and agent type. */
export function delegateSimilar(parentId: AgentId, taskArgs: Value): void {
  const { prompt, subagentType } = taskPrefill(taskArgs);
  openDialog({ kind: "delegate", parentId, prompt, subagentType });
}

/**
 * Shift+D: opens the form under the selected agent. Not while the person
 * types (a text field, a select), over another dialog, outside the session
 * view, or on a past session under review (it takes no delegations). True
 * when it opened the form, so the key is consumed.
 */
export function delegateShortcut(e: KeyboardEvent): boolean {
  const target = e.target instanceof Element ? e.target : null;
  // On an approval card the keys are the card's (its own D denies).
  if (!isDelegateShortcut(e) || e.repeat || isTextEntry(target) || target?.closest("[data-testid=approval]")) return false;
  const ui = uiStore.get();
  if (ui.view !== "session" || ui.dialog !== null || trustStore.get() !== null) return false;
  // Any other modal (one a card opened, say) keeps the keys to itself.
  if (modalOpen()) return false;
  if (bookStore.get().review !== null) return false;
  const parent = effectiveSelection(sessionStore.get(), ui.selected);
  if (parent === null) return false;
  select(parent);
  openDialog({ kind: "delegate", parentId: parent });
  return true;
}
