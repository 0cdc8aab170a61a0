/** The prompt: starts a session, or continues the current one with the main agent. */
import { useState, type FormEvent, type KeyboardEvent } from "react";
import { sendPrompt } from "../ipc/actions";
import { useStore } from "../store/store";
import { uiStore } from "../store/ui";
import { IconSend } from "./icons";

export function PromptBox() {
  const session = useStore(uiStore, (s) => s.session);
  const starting = useStore(uiStore, (s) => s.starting);
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!text.trim() || busy || starting) return;
    setBusy(true);
    const ok = await sendPrompt(text);
    setBusy(false);
    if (ok) setText("");
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit();
  };

  return (
    <form className="prompt" onSubmit={(e) => void submit(e)}>
      <div className="prompt-box">
        <textarea
          data-testid="prompt-input"
          aria-label={session ? "Message the main agent" : "Task for a new session"}
          placeholder={session ? "Message the main agent…" : "Describe a task to start a session…"}
          rows={2}
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <button
          type="submit"
          className="btn primary"
          data-testid="send"
          disabled={!text.trim() || busy || starting}
        >
          <IconSend size={12} /> {session ? "Send" : "Start"}
        </button>
      </div>
      <div className="prompt-foot">
        <span>
          <kbd>Ctrl</kbd>+<kbd>Enter</kbd> to send
        </span>
        {session ? (
          <span className="mono" title={session.workspace}>
            session {session.session_id} · {session.provider}/{session.model}
          </span>
        ) : (
          <span>Starts a new session in the chosen workspace</span>
        )}
      </div>
    </form>
  );
}
