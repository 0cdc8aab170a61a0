/**
 * The offer to continue what the last run left unfinished: "Arbor closed
 * while N sessions were running", each session's prompt with Continue (it
 * resumes live, every interrupted agent of it), and Dismiss. Shown on the
 * start screen and in the history while no session runs in this window.
 */
import { useState } from "react";
import type { SessionId, SessionSummary } from "../bindings";
import { useNow } from "../hooks/useNow";
import { continueInterrupted, dismissInterrupted } from "../ipc/interrupted";
import { formatWhen, oneLine, shortWorkspace } from "../lib/history";
import { sessionActive } from "../store/selectors";
import { liveSession } from "../store/sessionStore";
import { useStore } from "../store/store";
import { uiStore } from "../store/ui";
import { IconAlert, IconResume, IconX } from "./icons";

const NONE: SessionSummary[] = [];

export function InterruptedBanner() {
  const sessions = useStore(uiStore, (s) => s.app?.interrupted ?? NONE);
  const starting = useStore(uiStore, (s) => s.starting);
  const running = useStore(liveSession, sessionActive);
  const [busy, setBusy] = useState<SessionId | null>(null);
  const now = useNow(sessions.length > 0, 60_000);
  if (sessions.length === 0 || running || starting) return null;
  const n = sessions.length;
  const resume = async (id: SessionId) => {
    setBusy(id);
    await continueInterrupted(id);
    setBusy(null);
  };
  return (
    <section className="interrupted-banner" data-testid="interrupted-banner" aria-label="Interrupted sessions">
      <div className="interrupted-head">
        <IconAlert size={14} />
        <strong>
          Arbor closed while {n} session{n === 1 ? " was" : "s were"} running
        </strong>
        <span className="spacer" />
        <button
          type="button"
          className="btn small ghost"
          data-testid="interrupted-dismiss"
          title="Stop offering to continue them (they stay in the history)"
          onClick={() => void dismissInterrupted()}
        >
          <IconX size={11} /> Dismiss
        </button>
      </div>
      <ul className="interrupted-list">
        {sessions.map((s) => (
          <li key={s.id} className="interrupted-row" data-testid="interrupted-session" data-session-id={s.id}>
            <span className="what">
              <span className="first-prompt" title={s.first_prompt}>
                {oneLine(s.first_prompt, 160) || "(no prompt)"}
              </span>
              <span className="faint mono">
                {shortWorkspace(s.workspace)} · {formatWhen(s.started_at, now)} · {s.agent_count} agent
                {s.agent_count === 1 ? "" : "s"}
              </span>
            </span>
            <button
              type="button"
              className="btn small primary"
              data-testid="interrupted-continue"
              title="Resume it live: every agent that was interrupted carries on where it stopped"
              disabled={busy !== null}
              onClick={() => void resume(s.id)}
            >
              <IconResume size={12} /> {busy === s.id ? "Resuming…" : "Continue"}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
