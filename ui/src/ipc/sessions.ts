/**
 * The window's live sessions: a new one starts beside the others (they go
 * on), the person switches between them (each comes back as it was left: its
 * selected agent, folded nodes, view and tab), a fresh page leaves them all
 * running, and closing one interrupts its agents (it can be continued from
 * the history, where any question it was asking is asked again). A reloaded
 * page joins the sessions still running ({@link joinRunning}).
 */
import { commands, type SessionId, type SessionInfo } from "../bindings";
import { bookFromPast, bookStore, nextReviewGeneration, reduceBook, withChanges, withChangesError, type Book } from "../store/review";
import { initialSession } from "../store/session/reducer";
import {
  addSlot,
  dropSlot,
  FRESH_VIEW,
  leaveCurrent,
  liveStore,
  openSlot,
  setSlotInfo,
  shownSessionId,
  slotOfSession,
  switchToSlot,
  type SlotKey,
  type SlotView,
} from "../store/sessionStore";
import { clearBanners, patchUi, pushError, pushWarnings, uiStore } from "../store/ui";
import { batch } from "../store/store";
import { applyAppState, attempt, run } from "./actions";
import { openHeldChannel } from "./channel";
import { closeReview } from "./history";

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
    const shown = shownSessionId(liveStore.get());
    if (shown === kept) return;
    kept = shown;
    if (shown === null) storage()?.removeItem(SHOWN_KEY);
    else storage()?.setItem(SHOWN_KEY, shown);
  });
}

/** The joins asked for, one after another (StrictMode's second mount and the shell's requests ask again). */
let joins: Promise<void> = Promise.resolve();

/**
 * Joins the sessions this process runs that the window has no page for: its
 * page was reloaded (a person's reload, the crash screen's, a web process that
 * died) while they ran, or a page that went had asked for them. Each comes back
 * live beside the others as the store holds it (its tree, figures, inbox cards,
 * changes and the main agent's newest page) with its frames from there on;
 * nothing is asked again: the runtime still waits on the same calls. When the
 * window still shows a fresh page, the session it showed before the reload
 * (`shown`) is shown again; anything the person opened meanwhile stays.
 */
export function joinRunning(sessions: readonly SessionInfo[], shown: SessionId | null = shownBefore): Promise<void> {
  const next = joins.then(() => joinAll(sessions, shown));
  joins = next.catch(() => undefined);
  return next;
}

/** Asks the backend which sessions run and joins those the window lacks (the shell's `join_sessions`). */
export async function joinMissing(): Promise<void> {
  let app;
  try {
    app = await commands.appState();
  } catch {
    // The backend could not answer: the next page load joins them.
    return;
  }
  await joinRunning(app.sessions, null);
}

async function joinAll(sessions: readonly SessionInfo[], shown: SessionId | null): Promise<void> {
  for (const info of sessions) {
    if (slotOfSession(info.session_id) === null) await join(info.session_id);
  }
  const target = slotOfSession(shown);
  const reg = liveStore.get();
  const fresh = reg.current === null && bookStore.get().review === null && uiStore.get().view === "session" && !uiStore.get().starting;
  if (target !== null && fresh) switchSession(target.key);
}

/** One session joined, beside the others, unless it cannot be. */
async function join(id: SessionId): Promise<void> {
  const held = openHeldChannel();
  const r = await attempt(async () => commands.attachSession(id, await commands.thisPage(), held.channel));
  if (!r.ok) {
    held.abort();
    // Closed meanwhile, this page has it already, or this page is going (the page loaded
    // next joins it): nothing to add. Anything else the person is told.
    if (r.kind !== "no_session" && r.kind !== "already_shown" && r.kind !== "page_gone") {
      pushError(`Could not show a running session: ${r.message}. Reloading the window tries again.`);
    }
    return;
  }
  const { info, past, through, rules } = r.data;
  // Its subagents' earlier file changes are in no page loaded yet; its frames wait meanwhile.
  const changes = await attempt(() => commands.sessionChanges(id, null));
  const opened: Book = { ...bookFromPast(past), rules, storedThrough: through };
  const book = changes.ok ? withChanges(opened, changes.data) : withChangesError(opened, changes.message);
  const key = addSlot(reduceBook(book), book, info);
  held.commit(key, through);
}
