/**
 * The live sessions and the event queue in front of them. A window holds any
 * number of live sessions side by side (design.md: the host's live sessions),
 * each fed by its own channel; their frames (events, and the usage figures,
 * rules and timeline segments they changed; the segments go to
 * store/timeline.ts) are queued per session as they arrive and applied once
 * per animation frame (with a timer fallback for hidden windows, where frames
 * stop), so bursts of thousands of events cost one reduce, one usage merge and
 * one render per frame.
 *
 * One live session is the window's current one (the one its prompt, tree and
 * output address); `sessionStore` holds the displayed session: the current
 * one, or a past session under review while the current one goes on behind
 * it. Every other live session keeps its state in the registry, its events
 * applied as they come; what must never be hidden (pending approvals of every
 * session) is read through `liveViews`, and the current session, displayed
 * or not, through `liveSession`.
 */
import type {
  AgentEvent,
  AgentId,
  ApprovalRule,
  EventFrame,
  SessionId,
  SessionInfo,
  StoredAgent,
  TimelineUpdate,
  UsageUpdate,
} from "../bindings";
import type { Book } from "./review";
import { withAgents } from "./session/agents";
import { reduceBatch, initialSession, withQueued, withoutQueued } from "./session/reducer";
import { withRules } from "./session/rules";
import type { SessionState } from "./session/types";
import { withUsage } from "./session/usage";
import { createStore, type Readable } from "./store";
import { applyFrames, clearTimelines } from "./timeline";
import { timed } from "../lib/perf";
import { heldForTyping, isTyping, onTypingChange, TYPING_HOLD_MS } from "../lib/typing";
import { uiStore, type UiState } from "./ui";

/** The displayed session: the current live one, or a past one under review. */
export const sessionStore = createStore<SessionState>(initialSession());

/** Names a live session in this window from its first frame on (its id comes with the start's answer). */
export type SlotKey = string;

/** What the window showed of a live session when the person left it for another. */
export type SlotView = Pick<UiState, "selected" | "collapsed" | "sessionView" | "outputTab">;

/** What the window shows of a session it has not shown before. */
export const FRESH_VIEW: SlotView = { selected: null, collapsed: {}, sessionView: "agent", outputTab: "output" };

export interface LiveSlot {
  readonly key: SlotKey;
  /** Null until the start (or continue) command answers. */
  readonly info: SessionInfo | null;
  /** Its state while it is not the displayed one (the displayed one's is `sessionStore`'s). */
  readonly state: SessionState;
  /** The book of a session continued from the history (its loaded pages), kept while another is current. */
  readonly book: Book | null;
  /** What the window showed of it when last left; null: never left. */
  readonly view: SlotView | null;
  /** When the person last had it in view (Date.now()): what finished since is marked new. */
  readonly lookedAt: number;
}

export interface LiveRegistry {
  /** In the order they started. */
  readonly slots: readonly LiveSlot[];
  /** The session the window addresses; null on a fresh page (the next prompt starts one). */
  readonly current: SlotKey | null;
  /** Whether the current session is the displayed one (false while a past session is reviewed). */
  readonly shown: boolean;
}

export const liveStore = createStore<LiveRegistry>({ slots: [], current: null, shown: true });

let nextKey = 1;

/** A live session as readers see it, its state current whether displayed or not. */
export interface LiveView {
  key: SlotKey;
  info: SessionInfo | null;
  state: SessionState;
  lookedAt: number;
  current: boolean;
}

const EMPTY = initialSession();

function slotState(reg: LiveRegistry, slot: LiveSlot): SessionState {
  return slot.key === reg.current && reg.shown ? sessionStore.get() : slot.state;
}

let viewsMemo: { reg: LiveRegistry; displayed: SessionState; views: LiveView[] } | null = null;

function readViews(): LiveView[] {
  const reg = liveStore.get();
  const displayed = sessionStore.get();
  if (viewsMemo && viewsMemo.reg === reg && (viewsMemo.displayed === displayed || !reg.shown || reg.current === null)) {
    return viewsMemo.views;
  }
  const views = reg.slots.map((slot) => ({
    key: slot.key,
    info: slot.info,
    state: slotState(reg, slot),
    lookedAt: slot.lookedAt,
    current: slot.key === reg.current,
  }));
  viewsMemo = { reg, displayed, views };
  return views;
}

/** Subscribes to what a live session's state is read from: the displayed session and the registry. */
export function subscribeLive(listener: () => void): () => void {
  const offDisplayed = sessionStore.subscribe(listener);
  const offLive = liveStore.subscribe(listener);
  return () => {
    offDisplayed();
    offLive();
  };
}

/** Every live session of the window, in start order (the inbox, the sessions list and the counts read it). */
export const liveViews: Readable<LiveView[]> = { get: readViews, subscribe: subscribeLive };

/** The current live session, displayed or behind a review; an empty state when there is none. */
export const liveSession: Readable<SessionState> = {
  get: () => {
    const reg = liveStore.get();
    const slot = reg.slots.find((s) => s.key === reg.current);
    return slot ? slotState(reg, slot) : EMPTY;
  },
  subscribe: subscribeLive,
};

/** A live session's state by its key, current whether displayed or not (EMPTY once closed). */
export function slotStateOf(key: SlotKey): SessionState {
  const reg = liveStore.get();
  const slot = reg.slots.find((s) => s.key === key);
  return slot ? slotState(reg, slot) : EMPTY;
}

/** The ids of the sessions the window runs, space-separated (a value that stays the same while none starts or ends). */
export function liveSessionIds(reg: LiveRegistry): string {
  return reg.slots.flatMap((s) => (s.info ? [s.info.session_id] : [])).join(" ");
}

/** The id of the live session the window displays; null on a fresh page, a review or the history. */
export function shownSessionId(reg: LiveRegistry): SessionId | null {
  if (!reg.shown || reg.current === null) return null;
  return reg.slots.find((s) => s.key === reg.current)?.info?.session_id ?? null;
}

/** The live session with this id, if the window runs it. */
export function slotOfSession(id: SessionId | null): LiveSlot | null {
  if (id === null) return null;
  return liveStore.get().slots.find((s) => (s.info?.session_id ?? slotStateOf(s.key).sessionId) === id) ?? null;
}

function patchSlot(key: SlotKey, change: (slot: LiveSlot) => LiveSlot): void {
  liveStore.set((reg) => {
    const i = reg.slots.findIndex((s) => s.key === key);
    const slot = reg.slots[i];
    if (!slot) return reg;
    const next = change(slot);
    if (next === slot) return reg;
    const slots = [...reg.slots];
    slots[i] = next;
    return { ...reg, slots };
  });
}

/** Sets a live session's state wherever it is kept. */
function setSlotState(key: SlotKey, state: SessionState): void {
  const reg = liveStore.get();
  if (key === reg.current && reg.shown) sessionStore.set(state);
  else patchSlot(key, (s) => (s.state === state ? s : { ...s, state }));
}

/** After a live session's batch: its events, its state after them, and the agents they changed (as Rust derived them). */
type AppliedListener = (events: readonly AgentEvent[], state: SessionState, key: SlotKey, agents: readonly StoredAgent[]) => void;

/** One live session's queued frames. */
interface Queued {
  events: AgentEvent[];
  /** The agents the queued frames' events changed, as Rust derived them (in order: the last of each applies). */
  agents: StoredAgent[];
  /** The usage updates of the queued frames, in order (merged when applied: each replaces, none adds). */
  usage: UsageUpdate[];
  /** The rule lists of the queued frames (each is the whole list: the last one applies). */
  rules: ApprovalRule[][];
  /** The timeline updates of the queued frames, in order (upserts: each applies). */
  timeline: TimelineUpdate[];
}

let queues = new Map<SlotKey, Queued>();
let frame: number | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;
const appliedListeners = new Set<AppliedListener>();

declare global {
  interface Window {
    __arborEventsApplied?: number;
    /** The newest applied `seq`: counts the runtime's events even when the bridge merged chunks. */
    __arborLastSeq?: number;
  }
}

/**
 * Queues a frame from the backend for the live session `key` (the current one
 * when not given; a first frame with none current opens one); it is applied
 * on the next animation frame.
 */
export function enqueueFrame(f: EventFrame, key: SlotKey = liveStore.get().current ?? openSlot()): void {
  let q = queues.get(key);
  if (!q) {
    q = { events: [], agents: [], usage: [], rules: [], timeline: [] };
    queues.set(key, q);
  }
  for (const ev of f.events) q.events.push(ev);
  for (const a of f.agents) q.agents.push(a);
  if (f.usage !== null) q.usage.push(f.usage);
  // Absent from frames of a backend older than rules; null: unchanged.
  if (f.rules) q.rules.push(f.rules);
  // Absent from frames of a backend older than the timeline; null: unchanged.
  if (f.timeline) q.timeline.push(f.timeline);
  schedule();
}

/**
 * A batch applied in the frame of a keystroke holds the typed character's
 * paint back by the batch's reduce, render and paint (a streaming output
 * scrolls, and the whole of it is painted again). While a person types
 * (lib/typing.ts), batches wait for them to pause, or for TYPING_HOLD_MS
 * since the last one; then they are applied just after a painted frame.
 */
/** When the last batch was applied (performance.now()). */
let appliedAt = Number.NEGATIVE_INFINITY;

/** Runs `f` after the current frame has been painted (a task queued from an animation frame runs after it). */
const afterPaint: (f: () => void) => void = (() => {
  if (typeof MessageChannel === "undefined") return (f) => void setTimeout(f, 0);
  const channel = new MessageChannel();
  let next: (() => void) | null = null;
  channel.port1.onmessage = () => {
    const f = next;
    next = null;
    f?.();
  };
  return (f) => {
    next = f;
    channel.port2.postMessage(0);
  };
})();

/**
 * How many parts of the window are rendering what a person just asked for
 * (OutputView showing a newly selected agent). Meanwhile batches wait, at
 * most until the 250 ms fallback: each applied batch would restart that
 * interruptible render, and under a heavy stream it never finished.
 */
let holds = 0;

/** Holds batches back until the returned function is called (or the fallback timer fires). */
export function holdBatches(): () => void {
  holds += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    holds -= 1;
    if (holds === 0 && queues.size > 0 && frame === null && typeof requestAnimationFrame === "function") {
      frame = requestAnimationFrame(onFrame);
    }
  };
}

function onFrame(): void {
  frame = null;
  if (holds > 0) {
    frame = requestAnimationFrame(onFrame);
    return;
  }
  const now = performance.now();
  if (!isTyping(now)) flushEvents();
  // Held: the pause in typing, or the timer at the hold's end, applies them.
  else if (!heldForTyping(now - appliedAt)) afterPaint(flushEvents);
}

/** For a window whose frames do not come (hidden), and for the end of a hold while someone types on. */
function fallback(): void {
  timer = null;
  const now = performance.now();
  if (heldForTyping(now - appliedAt)) timer = setTimeout(fallback, appliedAt + TYPING_HOLD_MS - now);
  else flushEvents();
}

/** Queues a frame from the backend: applied on the next animation frame, or when a person's typing lets it. */
function schedule(): void {
  if (frame !== null || timer !== null) return;
  if (typeof requestAnimationFrame === "function") frame = requestAnimationFrame(onFrame);
  timer = setTimeout(fallback, 250);
}

// A pause in typing: what waited is applied in the next frame.
onTypingChange((typing) => {
  if (typing || queues.size === 0 || frame !== null || typeof requestAnimationFrame !== "function") return;
  frame = requestAnimationFrame(onFrame);
});

/** Applies every queued event now. */
export function flushEvents(): void {
  if (frame !== null && typeof cancelAnimationFrame === "function") cancelAnimationFrame(frame);
  if (timer !== null) clearTimeout(timer);
  frame = null;
  timer = null;
  if (queues.size === 0) return;
  const batches = queues;
  queues = new Map();
  const started = typeof performance !== "undefined" ? performance.now() : 0;
  appliedAt = started;
  let applied = 0;
  const done: [SlotKey, AgentEvent[], SessionState, StoredAgent[]][] = [];
  for (const [key, q] of batches) {
    // A session closed meanwhile: what it still sent is dropped with it.
    if (!liveStore.get().slots.some((s) => s.key === key)) continue;
    const before = slotStateOf(key);
    const next = timed("reduce", () => withRules(withUsage(withAgents(reduceBatch(before, q.events), q.agents), q.usage), q.rules));
    // The timeline before the state: a render for the state finds the segments there.
    if (next.sessionId !== null) applyFrames(next.sessionId, q.timeline);
    setSlotState(key, next);
    applied += q.events.length;
    done.push([key, q.events, next, q.agents]);
    if (typeof window !== "undefined") window.__arborLastSeq = next.lastSeq;
  }
  if (typeof window !== "undefined") {
    window.__arborEventsApplied = (window.__arborEventsApplied ?? 0) + applied;
    const probe = window.__arborPerf;
    // React renders an external store's update in a microtask queued by `set`:
    // a microtask queued after it sees the render done.
    if (probe) queueMicrotask(() => probe.work.push(performance.now() - started));
  }
  for (const [key, events, state, agents] of done) for (const l of appliedListeners) l(events, state, key, agents);
}

/**
 * A message about to be sent to a live agent of the current session: shown
 * as queued until the agent takes it (its `user_message`). Marked before the
 * command goes, so the announcement cannot arrive first.
 */
export function markQueued(agentId: AgentId, text: string): void {
  const key = liveStore.get().current;
  if (key !== null) setSlotState(key, withQueued(slotStateOf(key), agentId, text));
}

/** The message was refused: it is not waiting anywhere. */
export function unmarkQueued(agentId: AgentId, text: string): void {
  const key = liveStore.get().current;
  if (key !== null) setSlotState(key, withoutQueued(slotStateOf(key), agentId, text));
}

/** Called after each applied batch of each live session (for side effects such as notifications). */
export function onEventsApplied(listener: AppliedListener): () => void {
  appliedListeners.add(listener);
  return () => {
    appliedListeners.delete(listener);
  };
}

// ---- The registry's changes ----

/** What the window shows of the current session now: kept with it when it is left. */
function readView(): SlotView {
  const { selected, collapsed, sessionView, outputTab } = uiStore.get();
  return { selected, collapsed, sessionView, outputTab };
}

/** Puts the displayed current session back in the registry, with what the window showed of it. */
function stowCurrent(book: Book | null): void {
  const reg = liveStore.get();
  const key = reg.current;
  if (key === null) return;
  const state = slotStateOf(key);
  patchSlot(key, (s) => ({ ...s, state, book: book ?? s.book, view: reg.shown ? readView() : s.view, lookedAt: Date.now() }));
}

/**
 * A new live session, current and displayed (the one before it stays live in
 * the registry): `state` is what is known of it so far (a continued session's
 * stored state), `book` its loaded pages. Its key routes its channel's frames.
 */
export function openSlot(state: SessionState = sessionStore.get(), book: Book | null = null, currentBook: Book | null = null): SlotKey {
  flushEvents();
  stowCurrent(currentBook);
  const slot = freshSlot(state, book, null);
  liveStore.set((reg) => ({ slots: [...reg.slots, slot], current: slot.key, shown: true }));
  sessionStore.set(state);
  return slot.key;
}

/** A slot under a key of its own, not yet in the registry. */
function freshSlot(state: SessionState, book: Book | null, info: SessionInfo | null): LiveSlot {
  return { key: `live-${nextKey++}`, info, state, book, view: null, lookedAt: Date.now() };
}

/**
 * A live session joined beside the others without showing it (the window
 * goes on showing what it shows): its state, its book and its identity.
 */
export function addSlot(state: SessionState, book: Book, info: SessionInfo): SlotKey {
  const slot = freshSlot(state, book, info);
  liveStore.set((reg) => ({ ...reg, slots: [...reg.slots, slot] }));
  return slot.key;
}

/** The start's (or continue's) answer: the session's identity. */
export function setSlotInfo(key: SlotKey, info: SessionInfo): void {
  patchSlot(key, (s) => ({ ...s, info }));
}

/**
 * Forgets a live session (closed, or its start failed), with anything still
 * queued for it. When it was the current one the window shows a fresh page.
 */
export function dropSlot(key: SlotKey): void {
  queues.delete(key);
  const reg = liveStore.get();
  if (!reg.slots.some((s) => s.key === key)) return;
  const wasCurrent = reg.current === key;
  liveStore.set({
    slots: reg.slots.filter((s) => s.key !== key),
    current: wasCurrent ? null : reg.current,
    shown: wasCurrent ? true : reg.shown,
  });
  if (wasCurrent && reg.shown) sessionStore.set(initialSession());
}

/**
 * Makes live session `key` the current, displayed one; the one current until
 * then stays live in the registry (with `currentBook`, its book). Returns the
 * slot, with the view the window last showed of it and its book, to restore.
 */
export function switchToSlot(key: SlotKey, currentBook: Book | null): LiveSlot | null {
  flushEvents();
  const target = liveStore.get().slots.find((s) => s.key === key);
  if (!target) return null;
  if (liveStore.get().current !== key) stowCurrent(currentBook);
  const slot = liveStore.get().slots.find((s) => s.key === key) ?? target;
  liveStore.set((reg) => ({ ...reg, current: key, shown: true }));
  patchSlot(key, (s) => ({ ...s, lookedAt: Date.now() }));
  sessionStore.set(slot.state);
  return slot;
}

/** A fresh page: no live session is current (they all go on); the next prompt starts a new one. */
export function leaveCurrent(currentBook: Book | null): void {
  flushEvents();
  stowCurrent(currentBook);
  liveStore.set((reg) => ({ ...reg, current: null, shown: true }));
  sessionStore.set(initialSession());
}

/** Forgets every live session of the window (queued events and timelines included): tests and a reload. */
export function resetSession(): void {
  queues = new Map();
  liveStore.set({ slots: [], current: null, shown: true });
  sessionStore.set(initialSession());
  clearTimelines();
}

/**
 * Puts the current live session aside (its events still apply to it, and what
 * the window showed of it is kept) so `state`, a past session, can be
 * displayed. One already aside stays aside.
 */
export function showPastSession(state: SessionState): void {
  flushEvents();
  const reg = liveStore.get();
  if (reg.current !== null && reg.shown) {
    const live = sessionStore.get();
    const view = readView();
    patchSlot(reg.current, (s) => ({ ...s, state: live, view }));
    liveStore.set((r) => ({ ...r, shown: false }));
  }
  sessionStore.set(state);
}

/**
 * Displays the current live session again: the slot (with the view the window
 * showed of it, to restore), or null when there is none.
 */
export function showLiveSession(): LiveSlot | null {
  flushEvents();
  const reg = liveStore.get();
  const slot = reg.slots.find((s) => s.key === reg.current);
  if (!slot) return null;
  if (reg.shown) return slot;
  // Displayed first, then marked shown: `liveSession` never reads a moment without it.
  sessionStore.set(slot.state);
  liveStore.set((r) => ({ ...r, shown: true }));
  patchSlot(slot.key, (s) => ({ ...s, lookedAt: Date.now() }));
  return slot;
}

/** Whether a live session is current but behind a displayed past session. */
export function hasParkedSession(): boolean {
  const reg = liveStore.get();
  return reg.current !== null && !reg.shown;
}
