/**
 * The history panel: stored sessions, newest first (imported ones badged with
 * their source), with a text filter and a status filter; search across every
 * transcript (Enter), whose hits open the session at the agent and event they
 * name; the offer to continue sessions the last run left interrupted; and
 * Import (Claude Code's transcripts, in a dialog).
 */
import { memo, useEffect, useState, type FormEvent } from "react";
import { SEARCH_LIMIT, SESSION_STATUSES, type SearchHit, type SessionStatus, type SessionSummary } from "../bindings";
import { useNow } from "../hooks/useNow";
import {
  clearSearch,
  loadHistory,
  openPastSession,
  runSearch,
  setHistoryFilter,
  setHistoryStatus,
  setSearchText,
} from "../ipc/history";
import { statusLabel } from "../lib/format";
import { openImport } from "../ipc/importer";
import { groupHits, historyRow, hitRow, type HitGroup } from "../lib/history";
import { historyStore } from "../store/history";
import { bookStore } from "../store/review";
import { liveSessionIds, liveStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { patchUi, uiStore } from "../store/ui";
import { IconAlert, IconArrowLeft, IconHistory, IconImport, IconSearch, IconX } from "./icons";
import { ImportDialog } from "./ImportDialog";
import { InterruptedBanner } from "./InterruptedBanner";
import { StatusIcon } from "./StatusIcon";
import { Spinner } from "./Spinner";

export function HistoryPanel() {
  const searched = useStore(historyStore, (h) => h.searched);
  const problem = useStore(uiStore, (s) => s.app?.transcripts.problem ?? null);
  const importing = useStore(uiStore, (s) => s.dialog?.kind === "import");
  useEffect(() => {
    void loadHistory();
  }, []);
  return (
    <div
      className="history"
      data-testid="history-panel"
      onKeyDown={(e) => {
        if (e.key === "Escape" && !e.defaultPrevented) patchUi({ view: "session" });
      }}
    >
      <div className="history-inner">
        <div className="history-head">
          <h1>
            <IconHistory size={18} /> History
          </h1>
          <span className="spacer" />
          <button
            type="button"
            className="btn"
            data-testid="import-open"
            title="Import Claude Code's transcripts as read-only sessions"
            onClick={openImport}
          >
            <IconImport size={12} /> Import…
          </button>
          <button type="button" className="btn" data-testid="history-close" onClick={() => patchUi({ view: "session" })}>
            <IconArrowLeft size={12} /> Back to session
          </button>
        </div>
        {problem ? (
          <div className="inline-error" role="alert">
            {problem}
          </div>
        ) : null}
        <InterruptedBanner />
        <SearchBox />
        {searched !== null ? <SearchResults /> : <SessionList />}
      </div>
      {importing ? <ImportDialog /> : null}
    </div>
  );
}

function SearchBox() {
  const search = useStore(historyStore, (h) => h.search);
  const searched = useStore(historyStore, (h) => h.searched);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void runSearch();
  };
  return (
    <form className="history-search" role="search" onSubmit={submit}>
      <IconSearch size={14} />
      <input
        className="input"
        data-testid="search-input"
        aria-label="Search every transcript"
        placeholder="Search every transcript: words an agent wrote, read or was told (Enter)"
        value={search}
        onChange={(e) => setSearchText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape" && searched !== null) {
            e.preventDefault();
            clearSearch();
          }
        }}
        spellCheck={false}
      />
      <button type="submit" className="btn primary" data-testid="search-submit" disabled={search.trim() === ""}>
        Search
      </button>
      {searched !== null ? (
        <button type="button" className="btn ghost" data-testid="search-clear" onClick={clearSearch}>
          <IconX size={12} /> Clear
        </button>
      ) : null}
    </form>
  );
}

function SessionList() {
  const filter = useStore(historyStore, (h) => h.filter);
  const status = useStore(historyStore, (h) => h.status);
  const sessions = useStore(historyStore, (h) => h.sessions);
  const loading = useStore(historyStore, (h) => h.loading);
  const error = useStore(historyStore, (h) => h.error);
  const more = useStore(historyStore, (h) => h.more);
  // The sessions this window runs (a string: the same value while none starts or ends).
  const liveIds = useStore(liveStore, liveSessionIds).split(" ");
  const reviewId = useStore(bookStore, (b) => b.review?.sessionId ?? null);
  const now = useNow(true, 60_000);
  const filtered = filter.trim() !== "" || status !== null;

  let body;
  if (error !== null) {
    body = (
      <div className="empty" data-testid="history-error">
        <IconAlert size={26} />
        <div className="title">Could not list the stored sessions</div>
        <div className="muted">{error}</div>
        <button type="button" className="btn" onClick={() => void loadHistory()}>
          Retry
        </button>
      </div>
    );
  } else if (sessions.length === 0 && loading) {
    body = (
      <div className="empty" data-testid="history-loading">
        <span className="status-icon running">
          <Spinner />
        </span>
        <div className="title">Loading sessions…</div>
      </div>
    );
  } else if (sessions.length === 0) {
    body = (
      <div className="empty" data-testid="history-empty">
        <IconHistory size={28} />
        {filtered ? (
          <>
            <div className="title">No session matches</div>
            <div>Try another word or status.</div>
          </>
        ) : (
          <>
            <div className="title">No stored sessions yet</div>
            <div>Every session is kept here once it starts: its tree, transcripts, tokens and cost.</div>
          </>
        )}
      </div>
    );
  } else {
    body = (
      <>
        <div className="history-list" role="list" aria-busy={loading}>
          {sessions.map((s) => (
            <SessionRow key={s.id} session={s} now={now} live={liveIds.includes(s.id)} reviewing={s.id === reviewId} />
          ))}
        </div>
        {more ? (
          <button type="button" className="btn history-more" disabled={loading} onClick={() => void loadHistory(true)}>
            {loading ? "Loading…" : "Show more"}
          </button>
        ) : null}
      </>
    );
  }

  return (
    <section className="card history-card" aria-label="Stored sessions">
      <div className="history-tools">
        <input
          className="input"
          data-testid="history-filter"
          aria-label="Filter by prompt or workspace"
          placeholder="Filter by prompt or workspace…"
          value={filter}
          onChange={(e) => setHistoryFilter(e.target.value)}
          spellCheck={false}
        />
        <select
          className="select"
          data-testid="history-status"
          aria-label="Filter by status"
          value={status ?? ""}
          onChange={(e) => setHistoryStatus((e.target.value || null) as SessionStatus | null)}
        >
          <option value="">Any status</option>
          {SESSION_STATUSES.map((st) => (
            <option key={st} value={st}>
              {statusLabel(st)}
            </option>
          ))}
        </select>
        <span className="spacer" />
        <span className="faint">
          {loading && sessions.length > 0 ? "Updating…" : `${sessions.length}${more ? "+" : ""} session${sessions.length === 1 ? "" : "s"}`}
        </span>
      </div>
      {body}
    </section>
  );
}

const SessionRow = memo(function SessionRow({
  session,
  now,
  live,
  reviewing,
}: {
  session: SessionSummary;
  now: number;
  live: boolean;
  reviewing: boolean;
}) {
  const row = historyRow(session, now);
  return (
    <button
      type="button"
      role="listitem"
      className={`history-row${reviewing ? " current" : ""}`}
      data-testid="history-row"
      data-session-id={session.id}
      data-status={session.status}
      title={`${session.workspace}\nStarted ${row.started} · ${session.provider}/${session.model}`}
      onClick={() => void openPastSession(session.id)}
    >
      <span className="when" title={row.started}>
        {row.when}
      </span>
      <span className="what">
        <span className="first-prompt">{row.prompt}</span>
        <span className="where mono">
          {row.workspace} · {session.model}
        </span>
      </span>
      <span className="agents">{row.agents}</span>
      <span className="usage">
        {row.tokens}
        {row.cost ? <span className="faint"> · {row.cost}</span> : null}
      </span>
      <span className="state">
        {row.source ? (
          <span className="badge source" data-testid="history-source" title={`Imported from ${row.source}: read-only`}>
            {row.source}
          </span>
        ) : null}
        {row.client ? (
          <span className="badge source" data-testid="history-client" title="Driven by an editor over ACP (arbor acp)">
            {row.client}
          </span>
        ) : null}
        {live ? <span className="badge live">live</span> : null}
        <span className={`badge status ${row.status}`}>
          <StatusIcon status={row.status} />
          {row.statusText}
        </span>
      </span>
    </button>
  );
});

function SearchResults() {
  const searched = useStore(historyStore, (h) => h.searched);
  const hits = useStore(historyStore, (h) => h.hits);
  const searching = useStore(historyStore, (h) => h.searching);
  const error = useStore(historyStore, (h) => h.searchError);
  const now = useNow(true, 60_000);

  let body;
  if (error !== null) {
    body = (
      <div className="empty" data-testid="search-error">
        <IconAlert size={26} />
        <div className="title">The search failed</div>
        <div className="muted">{error}</div>
      </div>
    );
  } else if (searching) {
    body = (
      <div className="empty">
        <span className="status-icon running">
          <Spinner />
        </span>
        <div className="title">Searching…</div>
      </div>
    );
  } else if (hits.length === 0) {
    body = (
      <div className="empty" data-testid="search-empty">
        <IconSearch size={26} />
        <div className="title">No transcript mentions “{searched}”</div>
        <div>Search matches whole words in messages, thinking, responses and tool calls and output.</div>
      </div>
    );
  } else {
    body = (
      <div className="history-list" role="list">
        {groupHits(hits).map((g) => (
          <HitGroupRows key={`${g.hit.session_id}/${g.hit.seq}`} group={g} now={now} />
        ))}
      </div>
    );
  }
  return (
    <section className="card history-card" aria-label="Search results">
      <div className="history-tools">
        <strong>
          {searching ? "Searching" : `${hits.length}${hits.length >= SEARCH_LIMIT ? "+" : ""} match${hits.length === 1 ? "" : "es"}`} for “
          {searched}”
        </strong>
        <span className="spacer" />
        <span className="faint">newest first · click a match to open it</span>
      </div>
      {body}
    </section>
  );
}

/** A hit, and the hits of its agent that read alike folded under it until asked for. */
function HitGroupRows({ group, now }: { group: HitGroup; now: number }) {
  const [open, setOpen] = useState(false);
  const n = group.alike.length;
  return (
    <>
      <HitRow hit={group.hit} now={now} />
      {n > 0 && !open ? (
        <button type="button" className="btn small ghost hit-alike" data-testid="search-hit-alike" onClick={() => setOpen(true)}>
          and {n} more like it from this agent
        </button>
      ) : null}
      {open ? group.alike.map((h) => <HitRow key={`${h.session_id}/${h.seq}`} hit={h} now={now} />) : null}
    </>
  );
}

const HitRow = memo(function HitRow({ hit, now }: { hit: SearchHit; now: number }) {
  const row = hitRow(hit, now);
  return (
    <button
      type="button"
      role="listitem"
      className="search-hit"
      data-testid="search-hit"
      data-session-id={hit.session_id}
      data-agent-id={hit.agent_id}
      data-seq={hit.seq}
      onClick={() => void openPastSession(hit.session_id, { agentId: hit.agent_id, seq: hit.seq })}
    >
      <span className="hit-head">
        <span className="first-prompt">{row.prompt}</span>
        <span className="faint">{row.when}</span>
      </span>
      <span className="hit-meta">
        <span className="path" data-testid="search-hit-path">
          {row.path}
        </span>
        <span className="badge">{row.type}</span>
        {row.source ? (
          <span className="badge source" data-testid="hit-source">
            {row.source}
          </span>
        ) : null}
      </span>
      <span className="snippet">
        {row.parts.map((p, i) => (p.hit ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
      </span>
    </button>
  );
});
