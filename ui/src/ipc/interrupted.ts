/**
 * Sessions the last run left interrupted (AppState.interrupted, found at
 * start-up): continuing one, the same way as "Continue this session" under
 * review (`resume_session` with no prompt: Rust resumes every interrupted
 * agent of it, subagents included), or dismissing the offer. Once one is
 * continued, the app state is read again: Rust no longer offers it.
 */
import { commands, type SessionId } from "../bindings";
import { isImported } from "../lib/history";
import { bookStore } from "../store/review";
import { pushError, uiStore } from "../store/ui";
import { applyAppState, describe } from "./actions";
import { continueReviewed, openPastSession } from "./history";

function offered(sessionId: SessionId): boolean {
  return uiStore.get().app?.interrupted.some((s) => s.id === sessionId) ?? false;
}

async function refreshAppState(): Promise<void> {
  try {
    applyAppState(await commands.appState());
  } catch {
    // The offer shows until the app state is read again; nothing else depends on it.
  }
}

/**
 * "Continue this session" on the session under review, with the prompt (if
 * any) for its main agent. An imported session is never continued (Rust
 * refuses it; the UI offers no way to).
 */
export async function continueSession(prompt: string): Promise<boolean> {
  const review = bookStore.get().review;
  if (!review || isImported(review.detail.session)) return false;
  const ok = await continueReviewed(prompt);
  if (ok && offered(review.sessionId)) await refreshAppState();
  return ok;
}

/** "Continue" on the start screen's offer: the session opens, then resumes live with no prompt. */
export async function continueInterrupted(sessionId: SessionId): Promise<boolean> {
  if (!(await openPastSession(sessionId))) return false;
  return continueSession("");
}

/** "Dismiss": Rust forgets the interrupted sessions (they stay in the history, and can be continued from there). */
export async function dismissInterrupted(): Promise<void> {
  try {
    applyAppState(await commands.dismissInterrupted());
  } catch (e) {
    pushError(`Could not dismiss the interrupted sessions: ${describe(e)}`);
  }
}
