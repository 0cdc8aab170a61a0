/**
 * The Delegate… form's suggestion: the label the backend gives a subagent
 * whose delegation names none (its own rule, never re-implemented here), shown
 * as the description field's placeholder while the person types the task.
 */
import { commands } from "../bindings";

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
