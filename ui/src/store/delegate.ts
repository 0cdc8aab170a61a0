/**
 * Ways to open the Delegate… form besides the tree node's button: "Delegate
 * similar…" on a Task card (same parent, that call's prompt and type), and
 * Shift+D (under the agent selected in the tree). They only open the form;
 * the form sends the delegation.
 */
import type { AgentId, Value } from "../bindings";
import { isTextEntry } from "../lib/approvalKeys";
import { isDelegateShortcut, taskPrefill } from "../lib/delegate";
import { bookStore } from "./review";
import { effectiveSelection } from "./selectors";
import { sessionStore } from "./sessionStore";
import { trustStore } from "./trust";
import { openDialog, select, uiStore } from "./ui";

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
  if (document.querySelector('[aria-modal="true"]') !== null) return false;
  if (bookStore.get().review !== null) return false;
  const parent = effectiveSelection(sessionStore.get(), ui.selected);
  if (parent === null) return false;
  select(parent);
  openDialog({ kind: "delegate", parentId: parent });
  return true;
}
