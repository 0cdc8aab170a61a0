/**
 * The window's live sessions: a new one starts beside the others (they go
 * on), the person switches between them (each comes back as it was left: its
 * selected agent, folded nodes, view and tab), a fresh page leaves them all
 * running, and closing one interrupts its agents (it can be continued from
 * the history, where any question it was asking is asked again). A reloaded
 * page joins the sessions still running ({@link joinRunning}).
 */
import { commands, type SessionId, type SessionInfo } from "../bindings";
import { bookFromPast, bookStore, nextReviewGeneration, reduceBook, type Book } from "../store/review";
import { initialSession } from "../store/session/reducer";
import {
  dropSlot,
  FRESH_VIEW,
  leaveCurrent,
  liveStore,
  openSlot,
  setSlotInfo,
  slotOfSession,
  switchToSlot,
  type SlotKey,
  type SlotView,
} from "../store/sessionStore";
import { clearBanners, patchUi, pushError, pushWarnings, uiStore } from "../store/ui";
import { batch } from "../store/store";
import { applyAppState, attempt, run } from "./actions";
import { openHeldChannel } from "./channel";
import { closeReview, loadChanges } from "./history";

/** The window shows a session's page: its identity, and the view it was left with (or a fresh one). */
function showPage(info: SessionInfo | null, view: SlotView | null, starting: boolean): void {
  patchUi({ session: info, starting, ...(view ?? FRESH_VIEW), view: "session", dialog: null, focus: null });
}

/** A session about to start: current and displayed (empty) while its command is under way. */
export function openSession(): SlotKey {
  nextReviewGeneration();
  return batch(() => {
    const key = openSlot(initialSession(), null, bookStore.get().live);
    bookStore.set({ review: null, live: null });
    showPage(null, null, true);
    return key;
  });
}

/** The start's answer: the session is live (and the window's, unless the person went elsewhere meanwhile). */
export function sessionOpened(key: SlotKey, info: SessionInfo): void {
  setSlotInfo(key, info);
  if (liveStore.get().current === key) patchUi({ session: info, starting: false });
  pushWarnings(info.warnings);
}

/** Forgets a live session (its start failed, or it was closed); when it was shown, a fresh page. */
export function dropSession(key: SlotKey): void {
  const wasCurrent = liveStore.get().current === key;
  dropSlot(key);
  if (!wasCurrent) return;
  bookStore.set((b) => ({ ...b, live: null }));
  if (bookStore.get().review === null) showPage(null, null, false);
  else patchUi({ session: null, starting: false });
}

/** Shows live session `key`, as the person left it (leaving a review, history or settings). */
export function switchSession(key: SlotKey): void {
  const reg = liveStore.get();
  const books = bookStore.get();
  if (reg.current === key && reg.shown && books.review === null) {
    if (uiStore.get().view !== "session") patchUi({ view: "session", dialog: null });
    return;
  }
  // Behind a review: leaving the review shows it (with the pages its book gained meanwhile).
  if (reg.current === key && books.review !== null) {
    closeReview();
    return;
  }
  nextReviewGeneration();
  // One change of every store it touches: each pane reads the session it shows, never another's.
  batch(() => {
    const slot = switchToSlot(key, books.live);
    if (!slot) return;
    bookStore.set({ review: null, live: slot.book });
    showPage(slot.info, slot.view, slot.info === null);
  });
}

/** A fresh page: every live session goes on (in the sessions list); the next prompt starts a new one. */
export function newSession(): void {
  clearBanners();
  nextReviewGeneration();
  batch(() => {
    leaveCurrent(bookStore.get().live);
    bookStore.set({ review: null, live: null });
    showPage(null, null, false);
  });
}

/**
 * Closes a live session: its agents are interrupted (nobody stopped them), and
 * it can be continued from the history, where a question it left is asked again.
 */
export async function closeSession(key: SlotKey): Promise<void> {
  const id = liveStore.get().slots.find((s) => s.key === key)?.info?.session_id;
  if (id === undefined) return;
  const app = await run(() => commands.closeSession(id));
  if (app === null) return;
  applyAppState(app);
  dropSession(key);
}

/**
 * Drops the sessions the backend no longer runs (starting one may close the
 * oldest finished session to stay within Settings' cap). Only sessions known
 * before the app state was asked for are judged by it.
 */
export async function forgetClosedSessions(): Promise<void> {
  const known = liveStore.get().slots.flatMap((s) => (s.info ? [[s.key, s.info.session_id] as const] : []));
  let app;
  try {
    app = await commands.appState();
  } catch {
    return;
  }
  applyAppState(app);
  const running = new Set(app.sessions.map((s) => s.session_id));
  for (const [key, id] of known) if (!running.has(id)) dropSession(key);
}

/** Where the window keeps which live session it shows: a reloaded page finds it there (sessionStorage outlives a reload). */
const SHOWN_KEY = "arbor.shownSession";

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // A page that may not keep storage shows a fresh page after a reload.
    return null;
  }
}

/** The session the window showed when this page loaded: what the page before it left. */
const shownBefore: SessionId | null = storage()?.getItem(SHOWN_KEY) ?? null;

/** Keeps the session the window shows (none: a fresh page, a review, the history) for a reloaded page. */
export function installShownMemory(): () => void {
  let kept: SessionId | null | undefined;
  return liveStore.subscribe(() => {
    const reg = liveStore.get();
    const shown = reg.shown && reg.current !== null ? (reg.slots.find((s) => s.key === reg.current)?.info?.session_id ?? null) : null;
    if (shown === kept || joining.size > 0) return;
    kept = shown;
    if (shown === null) storage()?.removeItem(SHOWN_KEY);
    else storage()?.setItem(SHOWN_KEY, shown);
  });
}

/** Sessions being joined now (a second call while one is under way leaves them to it). */
const joining = new Set<SessionId>();

/**
 * Joins the sessions this process runs that the window has no page for: its
 * page was reloaded (a person's reload, the crash screen's, a restarted web
 * process) while they ran. Each comes back live as the store holds it (its
 * tree, figures, inbox cards and the main agent's newest page) with its
 * frames from there on; the window shows again the one it showed, else a
 * fresh page. Nothing is asked again: the runtime still waits on the same calls.
 */
export async function joinRunning(sessions: readonly SessionInfo[], shown: SessionId | null = shownBefore): Promise<void> {
  let show: SlotKey | null = null;
  let joined = false;
  for (const info of sessions) {
    const id = info.session_id;
    if (slotOfSession(id) !== null || joining.has(id)) continue;
    joining.add(id);
    try {
      const key = await join(id);
      if (key === null) continue;
      joined = true;
      if (id === shown) show = key;
    } finally {
      joining.delete(id);
    }
  }
  if (!joined) return;
  const reg = liveStore.get();
  if (show === null) newSession();
  else if (reg.current !== show) switchSession(show);
  else showPage(reg.slots.find((s) => s.key === show)?.info ?? null, null, false);
}

/** One session joined: its slot; null when it could not be. */
async function join(id: SessionId): Promise<SlotKey | null> {
  const held = openHeldChannel();
  const r = await attempt(() => commands.attachSession(id, held.channel));
  if (!r.ok) {
    held.abort();
    // Closed meanwhile: nothing to show. Anything else the person is told.
    if (r.kind !== "no_session") pushError(`Could not show a running session: ${r.message}`);
    return null;
  }
  const { info, past, through, rules } = r.data;
  const book: Book = { ...bookFromPast(past), rules, storedThrough: through };
  const key = batch(() => {
    const key = openSlot(reduceBook(book), book, bookStore.get().live);
    bookStore.set({ review: null, live: book });
    setSlotInfo(key, info);
    return key;
  });
  held.commit(key, through);
  // Its subagents' earlier file changes are in no page loaded yet.
  await loadChanges(id);
  return key;
}
