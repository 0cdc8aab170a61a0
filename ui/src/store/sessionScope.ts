/**
 * Which session a pane (the agent tree, the output) renders. Every live
 * session of the window keeps its panes mounted, hidden while another is
 * shown, so switching sessions shows what is already laid out instead of
 * building a tree and an output from nothing (issue 25: switching in 50 ms).
 * A pane reads its session through its scope: the live session's state and
 * the view the window keeps of it (its selection, folded nodes, tab), whether
 * it is shown or not. Outside any pane (the top bar, the prompt, dialogs) the
 * scope is the displayed session, as `sessionStore` and `uiStore` hold it.
 *
 * A live session's scope reads the same objects the displayed one does while
 * it is shown (`slotStateOf`, and the view the window restored from the
 * slot), so showing a pane renders nothing it had not rendered already.
 */
import { createContext, useContext } from "react";
import { bookStore, displayedBook, type Book } from "./review";
import type { SessionState } from "./session/types";
import { FRESH_VIEW, liveStore, sessionStore, slotStateOf, type SlotKey, type SlotView } from "./sessionStore";
import { useStore, type Readable } from "./store";
import { isTyping, TYPING_MS } from "../lib/typing";
import { uiStore } from "./ui";

export interface SessionScope {
  /** The live session this scope renders; null: the displayed session (a fresh page, a review, a test). */
  readonly key: SlotKey | null;
  readonly state: Readable<SessionState>;
  /** What the window shows of it; the view's fields, read one at a time (`useSessionView`). */
  readonly view: Readable<SlotView>;
  /** Its stored transcript's loaded pages, for a past session under review or one continued from the history. */
  readonly book: Readable<Book | null>;
  /** Whether it is a past session under review (read-only). */
  readonly reviewing: Readable<boolean>;
  /** Whether its panes are the ones in view (keyboard shortcuts and clocks follow only those). */
  readonly shown: Readable<boolean>;
  /** The workspace it runs in; null before its session has begun (a fresh page). */
  readonly workspace: Readable<string | null>;
}

/** Whether live session `key` is the window's displayed session. */
function displays(key: SlotKey): boolean {
  const reg = liveStore.get();
  return reg.current === key && reg.shown;
}

/** The window's view fields, as one object for as long as none of them changes. */
let windowView: SlotView | null = null;
function readWindowView(): SlotView {
  const s = uiStore.get();
  const last = windowView;
  if (
    last &&
    last.selected === s.selected &&
    last.collapsed === s.collapsed &&
    last.sessionView === s.sessionView &&
    last.outputTab === s.outputTab
  ) {
    return last;
  }
  windowView = { selected: s.selected, collapsed: s.collapsed, sessionView: s.sessionView, outputTab: s.outputTab };
  return windowView;
}

/** The displayed session's scope: what every component reads outside a live session's pane. */
export const displayedScope: SessionScope = {
  key: null,
  state: sessionStore,
  view: { get: readWindowView, subscribe: uiStore.subscribe },
  book: { get: () => displayedBook(bookStore.get()), subscribe: bookStore.subscribe },
  reviewing: { get: () => bookStore.get().review !== null, subscribe: bookStore.subscribe },
  shown: { get: () => true, subscribe: () => () => undefined },
  workspace: {
    get: () => {
      const review = bookStore.get().review;
      return review ? review.detail.session.workspace : (uiStore.get().session?.workspace ?? null);
    },
    subscribe: (listener) => {
      const offs = [uiStore.subscribe(listener), bookStore.subscribe(listener)];
      return () => offs.forEach((off) => off());
    },
  },
};

const NEVER: Readable<boolean> = { get: () => false, subscribe: () => () => undefined };

const scopes = new Map<SlotKey, SessionScope>();

/**
 * A hidden pane whose session has done nothing for this long renders, out of
 * view, what its session did meanwhile: a session that finished while another
 * was shown then comes back at once, instead of rendering its whole end on the
 * click (docs/speed.md: 58-64 ms before the frame on the still page). A session
 * still at work is left as it was: rendered on every batch, it would cost the
 * shown session's frames for a pane nobody sees.
 */
export const CATCH_UP_QUIET_MS = 1000;

/** What a pane's hooks follow of its session: its state, its view, its book, and whether it is shown. */
type Signal = "state" | "view" | "book" | "shown";

/**
 * The subscriptions of live session `key`'s pane, one per store for the whole
 * pane rather than one per hook: while the session is displayed, its hooks are
 * told of what they read then (`sessionStore`, `uiStore`, `bookStore`), and of
 * its being shown or hidden. Not of the registry's other changes: each live
 * session's batch changes the registry. A pane being hidden tells only what
 * reads whether it is shown (what it shows does not change: `keep` keeps its
 * session as it is then); a hidden pane is told of nothing until it is shown
 * again, and then renders what its session did meanwhile, or until its session
 * has been quiet for CATCH_UP_QUIET_MS (`keep` again, telling whether it moved). So a switch
 * reads the selectors of the shown pane once, and those of the others not at all.
 */
function paneSignals(key: SlotKey, keep: () => boolean): Record<Signal, (listener: () => void) => () => void> {
  const listeners: Record<Signal, Set<() => void>> = { state: new Set(), view: new Set(), book: new Set(), shown: new Set() };
  const tell = (...signals: Signal[]) => {
    for (const signal of signals) for (const l of [...listeners[signal]]) l();
  };
  const sources = { state: sessionStore, view: uiStore, book: bookStore } as const;
  // Each source's value its hooks were last told of: a switch's batch tells the registry's
  // flip and then the displayed session's new value, which the flip already told.
  const told = new Map<Signal, unknown>();
  let was = false;
  let offs: (() => void)[] = [];
  // Out of view: the session's state last seen, and the wait for it to be quiet.
  let seen: SessionState | null = null;
  let quiet: ReturnType<typeof setTimeout> | null = null;
  const stopWaiting = () => {
    if (quiet !== null) clearTimeout(quiet);
    quiet = null;
  };
  const catchUpNow = () => {
    quiet = null;
    if (was) return;
    // Not in a keystroke's way: the person pauses first.
    if (isTyping(performance.now())) quiet = setTimeout(catchUpNow, TYPING_MS);
    else if (keep()) tell("state");
  };
  const whenQuiet = () => {
    const state = slotStateOf(key);
    if (state === seen) return;
    seen = state;
    stopWaiting();
    quiet = setTimeout(catchUpNow, CATCH_UP_QUIET_MS);
  };
  const whileShown = (signal: keyof typeof sources) => () => {
    const value = sources[signal].get();
    if (!was || !displays(key) || told.get(signal) === value) return;
    told.set(signal, value);
    tell(signal);
  };
  const follow = () => {
    was = displays(key);
    offs = [
      liveStore.subscribe(() => {
        const now = displays(key);
        if (now === was) {
          // Each live session's batch changes the registry: this one's may have moved.
          if (!now) whenQuiet();
          return;
        }
        was = now;
        stopWaiting();
        seen = null;
        if (now) {
          for (const [signal, source] of Object.entries(sources)) told.set(signal as Signal, source.get());
          tell("state", "view", "book", "shown");
        } else {
          keep();
          tell("shown");
        }
      }),
      sessionStore.subscribe(whileShown("state")),
      uiStore.subscribe(whileShown("view")),
      bookStore.subscribe(whileShown("book")),
    ];
  };
  const followed = () => Object.values(listeners).some((set) => set.size > 0);
  const subscribe = (signal: Signal) => (listener: () => void) => {
    if (!followed()) follow();
    listeners[signal].add(listener);
    return () => {
      listeners[signal].delete(listener);
      if (followed()) return;
      for (const off of offs) off();
      offs = [];
      stopWaiting();
    };
  };
  return { state: subscribe("state"), view: subscribe("view"), book: subscribe("book"), shown: subscribe("shown") };
}

/** Live session `key`'s scope, one object per session (a pane's context value never changes). */
export function scopeOfSlot(key: SlotKey): SessionScope {
  let scope = scopes.get(key);
  if (scope) return scope;
  const slot = () => liveStore.get().slots.find((s) => s.key === key);
  // What a hidden pane shows: its session as it was when the pane was last in view.
  let frozen: SessionState | null = null;
  // Keeps the session as it is now for the hidden pane; whether that differs from what it kept.
  const signals = paneSignals(key, () => {
    const now = slotStateOf(key);
    if (frozen === now) return false;
    frozen = now;
    return true;
  });
  scope = {
    key,
    state: {
      get: () => {
        if (displays(key)) {
          frozen = null;
          return slotStateOf(key);
        }
        frozen ??= slotStateOf(key);
        return frozen;
      },
      subscribe: signals.state,
    },
    view: {
      get: () => {
        if (displays(key)) return readWindowView();
        return slot()?.view ?? FRESH_VIEW;
      },
      subscribe: signals.view,
    },
    book: {
      // Shown, a live session's book is the window's (no review is displayed); hidden, the one kept with it.
      get: () => (displays(key) ? bookStore.get().live : (slot()?.book ?? null)),
      subscribe: signals.book,
    },
    reviewing: NEVER,
    shown: { get: () => displays(key), subscribe: signals.shown },
    // Told with its state: the session's info comes with its first events.
    workspace: { get: () => slot()?.info?.workspace ?? null, subscribe: signals.state },
  };
  scopes.set(key, scope);
  return scope;
}

/** Forgets the scopes of sessions the window no longer runs. */
export function forgetScopes(live: readonly SlotKey[]): void {
  for (const key of scopes.keys()) if (!live.includes(key)) scopes.delete(key);
}

export const SessionScopeContext = createContext<SessionScope>(displayedScope);

/** The scope of the pane a component is in. */
export function useScope(): SessionScope {
  return useContext(SessionScopeContext);
}

/** `selector` of the pane's session state. */
export function useSession<S>(selector: (s: SessionState) => S): S {
  return useStore(useScope().state, selector);
}

/** `selector` of what the window shows of the pane's session (selection, folded nodes, tab). */
export function useSessionView<S>(selector: (v: SlotView) => S): S {
  return useStore(useScope().view, selector);
}

/** `selector` of the pane's session's book (null for a session that was never stored). */
export function useSessionBook<S>(selector: (b: Book | null) => S): S {
  return useStore(useScope().book, selector);
}

/** Whether the pane shows a past session under review. */
export function useReviewing(): boolean {
  return useStore(useScope().reviewing, (r) => r);
}

/** The workspace the pane's session runs in (null: none yet). */
export function useWorkspace(): string | null {
  return useStore(useScope().workspace, (w) => w);
}

/** Whether the pane is the one in view. */
export function usePaneShown(): boolean {
  return useStore(useScope().shown, (s) => s);
}
