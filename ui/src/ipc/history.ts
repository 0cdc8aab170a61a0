/**
 * Stored sessions through the backend: the history list and its filters,
 * search across transcripts, opening a past session for review (and the agent
 * and event a search hit names), loading transcript pages as agents are
 * selected (or down to an event a timeline segment names), a stored
 * session's file changes, going back to the live session, continuing a
 * reviewed session live, and exporting a session or an agent's transcript.
 */
import { save } from "@tauri-apps/plugin-dialog";
import {
  commands,
  HISTORY_PAGE,
  type AgentId,
  type ExportFormat,
  type SessionId,
  type SessionStatus,
  type WorktreeUpdate,
} from "../bindings";
import { exportFileName } from "../lib/history";
import { historyStore, patchHistory } from "../store/history";
import {
  addPage,
  appendLive,
  bookFromPast,
  bookStore,
  covers,
  displayedBook,
  currentReviewGeneration,
  earlierBefore,
  needsTranscript,
  nextReviewGeneration,
  pageBefore,
  pagesOf,
  reduceBook,
  setPageStatus,
  withChanges,
  withChangesError,
  withWorktreeAction,
  type Book,
} from "../store/review";
import { initialSession } from "../store/session/reducer";
import {
  FRESH_VIEW,
  flushEvents,
  liveStore,
  onEventsApplied,
  openSlot,
  sessionStore,
  setSlotInfo,
  showLiveSession,
  showPastSession,
  slotOfSession,
} from "../store/sessionStore";
import { patchUi, pushError, pushNotice, pushWarnings, uiStore } from "../store/ui";
import { attempt, describe, sendPrompt } from "./actions";
import { openHeldChannel } from "./channel";
import { switchSession } from "./sessions";
import { confirmWorkspaceMcp } from "./trust";

/** How long the history filter waits for typing to pause. */
export const FILTER_DEBOUNCE_MS = 250;
/** Pages fetched, newest first, to reach a search hit before jumping straight to it. */
const MAX_FILL_PAGES = 25;

// ---- The history list and search ----

let filterTimer: ReturnType<typeof setTimeout> | null = null;

/** Reloads the list for the current filters; with `more`, adds the next rows. */
export async function loadHistory(more = false): Promise<void> {
  if (filterTimer !== null) clearTimeout(filterTimer);
  filterTimer = null;
  const h = historyStore.get();
  const request = h.request + 1;
  const offset = more ? h.sessions.length : 0;
  patchHistory({ loading: true, error: null, request });
  const r = await attempt(() =>
    commands.listSessions({ text: h.filter.trim() || null, status: h.status, offset }),
  );
  if (historyStore.get().request !== request) return;
  if (!r.ok) {
    patchHistory({ loading: false, error: r.message });
    return;
  }
  patchHistory({
    loading: false,
    sessions: more ? [...historyStore.get().sessions, ...r.data] : r.data,
    // The backend's page size: a full page means more rows may follow ("Show more").
    more: r.data.length >= HISTORY_PAGE,
  });
}

/** Changes the text filter; the list reloads once typing pauses. */
export function setHistoryFilter(text: string): void {
  patchHistory({ filter: text });
  if (filterTimer !== null) clearTimeout(filterTimer);
  filterTimer = setTimeout(() => void loadHistory(), FILTER_DEBOUNCE_MS);
}

export function setHistoryStatus(status: SessionStatus | null): void {
  patchHistory({ status });
  void loadHistory();
}

export function setSearchText(text: string): void {
  patchHistory({ search: text });
}

/** Searches every stored transcript for the search box's text. */
export async function runSearch(): Promise<void> {
  const text = historyStore.get().search.trim();
  if (text === "") {
    clearSearch();
    return;
  }
  patchHistory({ searching: true, searchError: null, searched: text });
  const r = await attempt(() => commands.searchTranscripts(text));
  if (historyStore.get().searched !== text) return;
  if (r.ok) patchHistory({ searching: false, hits: r.data });
  else patchHistory({ searching: false, hits: [], searchError: r.message });
}

export function clearSearch(): void {
  patchHistory({ search: "", searched: null, hits: [], searching: false, searchError: null });
}

// ---- Reviewing a past session ----

/** The live book gained pages while it was parked: rebuild it when it is shown again. */
let liveStale = false;

function bookFor(sessionId: SessionId): { book: Book; slot: "review" | "live" } | null {
  const { review, live } = bookStore.get();
  if (review?.sessionId === sessionId) return { book: review, slot: "review" };
  if (live?.sessionId === sessionId) return { book: live, slot: "live" };
  return null;
}

/** Replaces a book; when it is the one displayed, the displayed session is rebuilt from it. */
function updateBook(sessionId: SessionId, change: (book: Book) => Book, rebuild: boolean): void {
  const found = bookFor(sessionId);
  if (!found) return;
  const next = change(found.book);
  bookStore.set((b) => ({ ...b, [found.slot]: next }));
  if (!rebuild) return;
  const shown = displayedBook(bookStore.get());
  if (shown !== next) {
    if (found.slot === "live") liveStale = true;
    return;
  }
  if (found.slot === "live") flushEvents();
  sessionStore.set(reduceBook(shown));
}

/**
 * Opens a stored session read-only: its tree and the main agent's newest page.
 * With `target` (a search hit), that agent is selected and its transcript is
 * loaded down to the event, which the output scrolls to.
 */
export async function openPastSession(sessionId: SessionId, target?: { agentId: AgentId; seq: number }): Promise<boolean> {
  const gen = nextReviewGeneration();
  const r = await attempt(() => commands.openSession(sessionId));
  if (gen !== currentReviewGeneration()) return false;
  if (!r.ok) {
    pushError(`Could not open the session: ${r.message}`);
    return false;
  }
  let book = bookFromPast(r.data);
  const loadHit = target !== undefined && !covers(book, target.agentId, target.seq);
  if (target && loadHit) book = setPageStatus(book, target.agentId, "loading");
  // The live session's view is kept with it before the review replaces the window's.
  showPastSession(reduceBook(book));
  bookStore.set((b) => ({ ...b, review: book }));
  // A passage to show (a search hit) is in the agent's output, whatever tab was last used.
  const onPassage = target ? { sessionView: "agent" as const, outputTab: "output" as const } : {};
  patchUi({
    view: "session",
    selected: target?.agentId ?? null,
    collapsed: {},
    dialog: null,
    focus: target ?? null,
    ...onPassage,
  });
  const changes = loadChanges(sessionId);
  if (target && loadHit) await loadAround(sessionId, target.agentId, target.seq);
  await changes;
  return true;
}

/**
 * (Re)loads every file change of a stored session (its pages hold them only a
 * page at a time); a failure is kept on the book and shown in the Changes view.
 */
export async function loadChanges(sessionId: SessionId): Promise<void> {
  const r = await attempt(() => commands.sessionChanges(sessionId, null));
  if (r.ok) updateBook(sessionId, (b) => withChanges(b, r.data), true);
  else updateBook(sessionId, (b) => withChangesError(b, r.message), true);
}

/** Whether `sessionId` is a stored session under review (no events of it arrive: it is reloaded instead). */
export function isReviewed(sessionId: SessionId): boolean {
  return bookStore.get().review?.sessionId === sessionId;
}

/** A worktree action's answer on a stored session under review: its state from now on. */
export function recordWorktreeAction(sessionId: SessionId, agentId: AgentId, update: WorktreeUpdate): void {
  updateBook(sessionId, (b) => withWorktreeAction(b, agentId, update), true);
}

/** Loads `agentId`'s pages from the newest back to the one holding `seq` (or jumps to it after a while). */
async function loadAround(sessionId: SessionId, agentId: AgentId, seq: number): Promise<void> {
  for (let i = 0; i < MAX_FILL_PAGES; i++) {
    const found = bookFor(sessionId);
    if (!found) return;
    const p = pagesOf(found.book, agentId);
    if (p.oldest !== null || p.status === "loaded") {
      if (covers(found.book, agentId, seq)) return;
    }
    if (!(await fetchPage(sessionId, agentId, p.oldest))) return;
  }
  const found = bookFor(sessionId);
  if (found && !covers(found.book, agentId, seq)) await fetchPage(sessionId, agentId, seq + 1);
}

/** One page of `agentId`'s transcript before `before` (the newest when null); false when it failed. */
async function fetchPage(sessionId: SessionId, agentId: AgentId, before: number | null): Promise<boolean> {
  const found = bookFor(sessionId);
  if (!found) return false;
  const upTo = pageBefore(found.book, before);
  updateBook(sessionId, (b) => setPageStatus(b, agentId, "loading"), false);
  const r = await attempt(() => commands.loadTranscript(sessionId, agentId, upTo));
  if (!r.ok) {
    updateBook(sessionId, (b) => setPageStatus(b, agentId, "error", r.message), false);
    return false;
  }
  updateBook(sessionId, (b) => addPage(b, agentId, r.data), true);
  return true;
}

/** Loads the newest page of a stored agent the first time it is shown. */
export async function ensureTranscript(agentId: AgentId): Promise<void> {
  const book = displayedBook(bookStore.get());
  if (!book || !needsTranscript(book, agentId)) return;
  await fetchPage(book.sessionId, agentId, null);
}

/** "Load earlier": the page before the oldest loaded event of `agentId`. */
export async function loadEarlier(agentId: AgentId): Promise<void> {
  const book = displayedBook(bookStore.get());
  if (!book) return;
  const p = pagesOf(book, agentId);
  if (p.status === "loading") return;
  if (p.oldest === null && !p.moreBefore) {
    await fetchPage(book.sessionId, agentId, null);
    return;
  }
  const before = earlierBefore(book, agentId);
  if (before !== null) await fetchPage(book.sessionId, agentId, before);
}

/**
 * Loads a stored agent's transcript down to event `seq` (a timeline segment
 * the output is to show); nothing when it is loaded already, or not stored.
 */
export async function loadTranscriptTo(agentId: AgentId, seq: number): Promise<void> {
  const book = displayedBook(bookStore.get());
  if (!book || !book.detail.agents.some((a) => a.id === agentId) || covers(book, agentId, seq)) return;
  await loadAround(book.sessionId, agentId, seq);
}

/** Leaves the review: back to the current live session (as it is now, as it was left), or to a fresh page. */
export function closeReview(): void {
  nextReviewGeneration();
  if (bookStore.get().review === null) {
    patchUi({ view: "session" });
    return;
  }
  bookStore.set((b) => ({ ...b, review: null }));
  const slot = showLiveSession();
  if (slot === null) sessionStore.set(initialSession());
  const live = bookStore.get().live;
  if (live && liveStale) {
    liveStale = false;
    flushEvents();
    sessionStore.set(reduceBook(live));
  }
  const view = slot?.view ?? FRESH_VIEW;
  patchUi({ view: "session", focus: null, dialog: null, ...view });
}

/**
 * "Continue this session": the reviewed session becomes live beside the ones
 * already running (they go on), and the window shows it. If the backend
 * refuses (say, another process runs it), nothing changes. What was loaded
 * stays; live events follow. Its workspace's `.mcp.json`, when not trusted, is
 * asked about first, as for a new session. A session this window already runs,
 * reviewed, is simply shown live again (with the prompt, if any).
 */
export async function continueReviewed(prompt: string): Promise<boolean> {
  const book = bookStore.get().review;
  if (!book) return false;
  const sessionId = book.sessionId;
  const running = slotOfSession(sessionId);
  if (running !== null) {
    switchSession(running.key);
    return prompt.trim() === "" || sendPrompt(prompt);
  }
  if (!(await confirmWorkspaceMcp(book.detail.session.workspace))) return false;
  // The review was left while the question was open: nothing to continue.
  if (bookStore.get().review === null) return false;
  const held = openHeldChannel();
  patchUi({ starting: true });
  const r = await attempt(async () =>
    commands.resumeSession(sessionId, prompt.trim() || null, await commands.thisPage(), held.channel),
  );
  if (!r.ok) {
    held.abort();
    patchUi({ starting: false });
    pushError(`Could not continue the session: ${r.message}`);
    return false;
  }
  nextReviewGeneration();
  const { info, through } = r.data;
  const latest = { ...(bookFor(sessionId)?.book ?? book), storedThrough: through };
  liveStale = false;
  // The review's selection and tab stay: the person goes on from where they were reading.
  const key = openSlot(reduceBook(latest), latest, bookStore.get().live);
  bookStore.set({ review: null, live: latest });
  setSlotInfo(key, info);
  patchUi({ session: info, starting: false, view: "session", dialog: null });
  pushWarnings(info.warnings);
  held.commit(key, through);
  return true;
}

// ---- Export ----

/** Exports the displayed session (or one of its agents) to a file the person picks. */
export async function exportTranscript(agentId: AgentId | null, format: ExportFormat): Promise<void> {
  const sessionId = sessionStore.get().sessionId ?? uiStore.get().session?.session_id ?? null;
  if (sessionId === null) {
    pushError("There is no session to export yet.");
    return;
  }
  const name = exportFileName(sessionId, agentId, format);
  const filter = format === "markdown" ? { name: "Markdown", extensions: ["md"] } : { name: "JSON", extensions: ["json"] };
  let path: string | null;
  try {
    path = await save({ defaultPath: name, filters: [filter] });
  } catch (e) {
    pushError(`Could not open the save dialog: ${describe(e)}`);
    return;
  }
  if (!path) return;
  const chosen = path;
  const r = await attempt(() => commands.exportSession(sessionId, agentId, format, chosen));
  if (r.ok) pushNotice(`Exported to ${r.data}`);
  else pushError(`Export failed: ${r.message}`);
}

// ---- Effects ----

/**
 * Loads a stored agent's transcript when it is first selected, and records the
 * live events of a resumed session (so later pages merge with them) and its
 * latest usage figures and rules in force (so a state rebuilt from its book
 * keeps them).
 */
export function installHistoryEffects(): () => void {
  let lastSelected: AgentId | null = uiStore.get().selected;
  const offUi = uiStore.subscribe(() => {
    const { selected } = uiStore.get();
    if (selected === lastSelected) return;
    lastSelected = selected;
    if (selected !== null) void ensureTranscript(selected);
  });
  const offEvents = onEventsApplied((events, state, key, agents) => {
    const reg = liveStore.get();
    const live = reg.current === key ? bookStore.get().live : reg.slots.find((s) => s.key === key)?.book;
    if (live) appendLive(live, events, state, agents);
  });
  return () => {
    offUi();
    offEvents();
  };
}
