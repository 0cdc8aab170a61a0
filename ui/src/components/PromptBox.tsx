/**
 * The prompt: starts a session, or continues the current one with the main
 * agent. Under a past session's review it becomes "Continue this session",
 * which resumes the stored session live (with the prompt, if any); under an
 * imported session's (read-only: Rust refuses to resume it), or one another
 * Arbor process runs (Rust refuses to drive it twice), a note saying so.
 *
 * The text is a draft (DraftField): a keystroke re-renders the text area and,
 * when the text turns empty or not, the Send button; nothing else. The box
 * reads no session state that streams, so events do not render it either.
 */
import { useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import type { SessionSummary } from "../bindings";
import { sendPrompt } from "../ipc/actions";
import { continueSession } from "../ipc/interrupted";
import { sourceBadge } from "../lib/history";
import { bookStore } from "../store/review";
import { liveSessionIds, liveStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { uiStore } from "../store/ui";
import { DraftTextarea, useDraft, useDraftValue, type Draft } from "./DraftField";
import { IconResume, IconSend } from "./icons";

export function PromptBox() {
  const session = useStore(uiStore, (s) => s.session);
  const starting = useStore(uiStore, (s) => s.starting);
  const review = useStore(bookStore, (b) => b.review?.detail.session ?? null);
  const runs = useStore(bookStore, (b) => b.review?.runs ?? null);
  const liveHere = useStore(liveStore, liveSessionIds).split(" ").includes(review?.id ?? "");
  const draft = useDraft();
  const [busy, setBusy] = useState(false);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (busy || starting) return;
    const text = draft.get();
    if (!review && !text.trim()) return;
    setBusy(true);
    const ok = review ? await continueSession(text) : await sendPrompt(text);
    setBusy(false);
    if (ok) draft.set("");
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit();
  };

  const imported = review ? sourceBadge(review) : null;
  if (review && imported) {
    return (
      <ReadOnlyNote testId="imported-note" review={review}>
        Imported from {imported}: read-only. Review, search and export it here; it cannot be continued in Arbor.
      </ReadOnlyNote>
    );
  }

  if (review && runs?.kind === "elsewhere") {
    return (
      <ReadOnlyNote testId="runs-elsewhere" review={review}>
        Running in another Arbor process{runs.pid !== null ? ` (pid ${runs.pid})` : ""}: shown here as it was stored
        when opened. Continue it there, or here once that process has stopped.
      </ReadOnlyNote>
    );
  }

  if (review) {
    return (
      <form className="prompt review" data-testid="continue-form" onSubmit={(e) => void submit(e)}>
        <div className="prompt-box">
          <DraftTextarea
            draft={draft}
            data-testid="prompt-input"
            aria-label="Continue this session"
            placeholder="Continue this session: a new prompt for its main agent (optional)…"
            rows={2}
            onKeyDown={onKeyDown}
          />
          <button type="submit" className="btn primary" data-testid="resume-session" disabled={busy || starting}>
            <IconResume size={12} /> {busy || starting ? "Resuming…" : "Continue this session"}
          </button>
        </div>
        <div className="prompt-foot">
          <span>
            {liveHere
              ? "It is running here: shows it live"
              : "Resumes it live, beside the sessions already running here"}
          </span>
          <span className="mono" title={review.workspace}>
            session {review.id} · {review.provider}/{review.model}
          </span>
        </div>
      </form>
    );
  }

  return (
    <form className="prompt" onSubmit={(e) => void submit(e)}>
      <div className="prompt-box">
        <DraftTextarea
          draft={draft}
          data-testid="prompt-input"
          aria-label={session ? "Message the main agent" : "Task for a new session"}
          placeholder={session ? "Message the main agent…" : "Describe a task to start a session…"}
          rows={2}
          onKeyDown={onKeyDown}
        />
        <SendButton draft={draft} busy={busy || starting} label={session ? "Send" : "Start"} />
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

/** Enabled once there is something to send: it renders again when the text turns empty or not, not per keystroke. */
function SendButton({ draft, busy, label }: { draft: Draft; busy: boolean; label: string }) {
  const empty = useDraftValue(draft, (t) => !t.trim());
  return (
    <button type="submit" className="btn primary" data-testid="send" disabled={empty || busy}>
      <IconSend size={12} /> {label}
    </button>
  );
}

/** In the prompt's place under a review of a session that cannot be continued here: why, and which session it is. */
function ReadOnlyNote({ testId, review, children }: { testId: string; review: SessionSummary; children: ReactNode }) {
  return (
    <div className="prompt review read-only" data-testid={testId}>
      <div className="prompt-foot">
        <span>{children}</span>
        <span className="mono" title={review.workspace}>
          session {review.id} · {review.model}
        </span>
      </div>
    </div>
  );
}
