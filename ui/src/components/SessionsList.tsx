/**
 * The window's live sessions, above the agent tree whenever there is
 * somewhere else to go: waiting for you first (with the count), then at work,
 * then finished (what finished since you last looked marked new). A row
 * shows the first prompt, the workspace, agents at work, tokens, cost and
 * elapsed time; a click shows that session as it was left. Closing one asks
 * first while its agents work: they are interrupted, and it can be continued
 * from the history.
 */
import { useState } from "react";
import { closeSession, switchSession } from "../ipc/sessions";
import { formatCost, formatDuration, formatTokens } from "../lib/format";
import { sessionRows, showsSessionsList, type SessionRow } from "../lib/sessions";
import { useNow } from "../hooks/useNow";
import { totalElapsedMs } from "../store/selectors";
import { liveStore, liveViews } from "../store/sessionStore";
import { useStore } from "../store/store";
import { StatusIcon } from "./StatusIcon";
import { IconX } from "./icons";

export function SessionsList() {
  const rows = useStore(liveViews, sessionRows);
  const shows = useStore(liveStore, (r) => showsSessionsList(r.slots.length, r.current !== null && r.shown));
  if (!shows) return null;
  const waiting = rows.reduce((n, r) => n + r.pending, 0);
  return (
    <section className="sessions-list" aria-label="Live sessions" data-testid="sessions-list">
      <div className="panel-header">
        Sessions <span className="count">{rows.length}</span>
        {waiting > 0 ? (
          <span className="count hot" title={`${waiting} approvals waiting across the sessions`}>
            {waiting}
          </span>
        ) : null}
      </div>
      <ul className="sessions-rows">
        {rows.map((r) => (
          <SessionItem key={r.key} row={r} />
        ))}
      </ul>
    </section>
  );
}

const GROUP_WORDS: Record<SessionRow["group"], string> = {
  waiting: "waiting for you",
  working: "at work",
  finished: "finished",
};

function SessionItem({ row }: { row: SessionRow }) {
  const [confirming, setConfirming] = useState(false);
  const now = useNow(row.group !== "finished");
  const elapsed = row.main ? totalElapsedMs(row.main, now) : null;
  const cost = formatCost(row.costUsd);
  const status = row.group === "waiting" ? "waiting_approval" : row.group === "working" ? "running" : (row.main?.status ?? "completed");
  const name = row.prompt ?? (row.starting ? "Starting…" : "New session");
  return (
    <li
      className={`session-row ${row.group}${row.current ? " current" : ""}${row.unseen ? " unseen" : ""}`}
      data-testid="session-row"
      data-group={row.group}
      data-key={row.key}
    >
      <button
        type="button"
        className="session-open"
        aria-current={row.current ? "true" : undefined}
        title={`${name}: ${GROUP_WORDS[row.group]}${row.unseen ? " (new since you looked)" : ""}`}
        onClick={() => switchSession(row.key)}
      >
        <StatusIcon status={status} />
        <span className="session-text">
          <span className="session-name">{name}</span>
          <span className="session-figures">
            {row.atWork > 0 ? <span data-testid="session-at-work">{row.atWork} at work</span> : null}
            <span>{formatTokens(row.tokens)} tok</span>
            {cost ? <span>{cost}</span> : null}
            {elapsed !== null ? <span>{formatDuration(elapsed)}</span> : null}
            {row.workspace ? (
              <span className="mono session-workspace" title={row.workspace}>
                <bdi>{row.workspace}</bdi>
              </span>
            ) : null}
          </span>
        </span>
        {row.pending > 0 ? (
          <span className="count hot" data-testid="session-pending" aria-label={`${row.pending} approvals waiting`}>
            {row.pending}
          </span>
        ) : row.unseen ? (
          <span className="new-dot" aria-label="finished since you last looked" />
        ) : null}
      </button>
      {confirming ? (
        <span className="session-confirm" role="group" aria-label="Close this session?">
          <span>Interrupt its {row.atWork} agents?</span>
          <button type="button" className="btn small danger" data-testid="session-close-confirm" onClick={() => void closeSession(row.key)}>
            Close
          </button>
          <button type="button" className="btn small ghost" onClick={() => setConfirming(false)}>
            Keep
          </button>
        </span>
      ) : (
        <button
          type="button"
          className="btn small ghost icon-btn session-close"
          data-testid="session-close"
          disabled={row.starting}
          aria-label={`Close “${name}”`}
          title={
            row.atWork > 0
              ? "Close this session: its agents are interrupted; continue it from the history"
              : "Close this session (it stays in the history)"
          }
          onClick={() => (row.atWork > 0 ? setConfirming(true) : void closeSession(row.key))}
        >
          <IconX size={11} />
        </button>
      )}
    </li>
  );
}
