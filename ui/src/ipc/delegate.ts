/**
 * The Delegate… form's suggestion: the label the backend gives a subagent
 * whose delegation names none (its own rule, never re-implemented here), shown
 * as the description field's placeholder while the person types the task.
 * And the agent types it offers, read afresh as it opens.
 */
import { commands } from "../bindings";
import { setFoundTypes, takeSessionTypes } from "../store/delegate";
import { uiStore } from "../store/ui";

/** How long typing must pause before the label is asked for. */
export const DESCRIBE_DEBOUNCE_MS = 200;

/** The backend's label for a task; null when it could not be asked (the field just shows its usual hint). */
export async function describeTask(prompt: string): Promise<string | null> {
  try {
    return await commands.describeTask(prompt);
  } catch {
    return null;
  }
}

/**
 * Reads the live session's workspace's agent types again (the form lists those
 * added since it started), then the session's own list from the app state
 * (the types Rust says it can start; read second, so a reload the catalog
 * read made is in it). Either failing leaves what the form had.
 */
export async function refreshAgentTypes(): Promise<void> {
  const session = uiStore.get().session;
  if (!session) return;
  try {
    setFoundTypes(session.workspace, (await commands.agentCatalog(session.workspace)).definitions);
  } catch {
    // The form keeps the types it had.
  }
  try {
    const live = (await commands.appState()).sessions.find((s) => s.session_id === session.session_id);
    takeSessionTypes(live ?? null);
  } catch {
    // As above.
  }
}
