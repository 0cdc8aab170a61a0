/**
 * The shell's questions about the window: closing it while agents work asks
 * the person (keep them running with the window hidden, or stop them and
 * quit); the answer goes back to the shell. It also says when sessions run
 * that this page lacks (a page that went had started them): the page joins them.
 */
import { Channel } from "@tauri-apps/api/core";
import { commands, type CloseChoice, type WindowRequest } from "../bindings";
import { askClose, pushError } from "../store/ui";
import { describe } from "./actions";
import { joinMissing } from "./sessions";

/** Listens for the shell's questions (once, at start). */
export function installWindowWatch(): void {
  // Until a page listens, the shell holds a close for it (closing again a moment later quits: the
  // sessions end interrupted and are offered at the next start).
  void (async () => {
    try {
      const channel = new Channel<WindowRequest>();
      channel.onmessage = (request) => {
        if (request.kind === "close_asked") askClose({ sessionsAtWork: request.sessions_at_work });
        else if (request.kind === "join_sessions") void joinMissing();
      };
      await commands.watchWindow(await commands.thisPage(), channel);
    } catch {
      // Outside the app (a test page) or an old backend: nothing to tell the person; closing stays safe.
    }
  })();
}

/** The person's answer: the window hides (the sessions go on), or every session is closed and the app quits. */
export async function closeWindow(choice: CloseChoice): Promise<void> {
  askClose(null);
  try {
    await commands.closeWindow(choice);
  } catch (e) {
    pushError(`Could not close the window: ${describe(e)}`);
  }
}
