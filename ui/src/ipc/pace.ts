/**
 * Tells the backend which live session the window shows, so that session's
 * events come every display frame and every other's a few times a second
 * (Rust's `bridge::Routes`): a session in the background is a row of the
 * sessions list and cards in the inbox, which ten updates a second serve.
 * None while the window shows a fresh page, a review or the history, and
 * none while a person types (lib/typing.ts): the page then applies the
 * shown session a few times a second anyway, and every frame sent meanwhile
 * is work for the threads that carry the keystrokes.
 */
import { commands, type SessionId } from "../bindings";
import { onTypingChange } from "../lib/typing";
import { liveStore, shownSessionId } from "../store/sessionStore";

export function installPaceEffects(): () => void {
  let told: SessionId | null | undefined;
  let typing = false;
  const tell = () => {
    const shown = typing ? null : shownSessionId(liveStore.get());
    if (shown === told) return;
    told = shown;
    // A backend that could not take it keeps sending at display rate: nothing is lost.
    commands.showSession(shown).catch(() => undefined);
  };
  tell();
  const offLive = liveStore.subscribe(tell);
  const offTyping = onTypingChange((now) => {
    typing = now;
    tell();
  });
  return () => {
    offLive();
    offTyping();
  };
}
