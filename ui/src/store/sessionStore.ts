/**
 * The live session state and the event queue in front of it. Frames from the
 * backend (events, and the usage figures, rules and timeline segments they
 * changed; the segments go to store/timeline.ts) are queued
 * as they arrive and applied once per animation frame (with a timer fallback
 * for hidden windows, where frames stop), so bursts of thousands of events
 * cost one reduce, one usage merge and one render per frame.
 *
 * While a past session is displayed (review), the live session's state is
 * parked here and its events keep being applied to it, until the window goes
 * back to it. What must never be hidden (its pending approvals, its rules)
 * is read through `liveSession`, parked or displayed.
 */
import type { AgentEvent, AgentId, ApprovalRule, EventFrame, TimelineUpdate, UsageUpdate } from "../bindings";
import { reduceBatch, initialSession, withQueued, withoutQueued } from "./session/reducer";
import { withRules } from "./session/rules";
import type { SessionState } from "./session/types";
import { withUsage } from "./session/usage";
import { createStore, type Readable } from "./store";
import { applyFrames, clearTimelines } from "./timeline";
import { timed } from "../lib/perf";

/** The displayed session: the live one, or a past one under review. */
export const sessionStore = createStore<SessionState>(initialSession());
/** The live session's state while another session is displayed; null while it is the displayed one. */
const parkedStore = createStore<SessionState | null>(null);

/**
 * The live session, wherever it is: parked behind a reviewed session, or
 * displayed. The inbox, the approval counts and the rules in force read it.
 */
export const liveSession: Readable<SessionState> = {
  get: () => parkedStore.get() ?? sessionStore.get(),
  subscribe(listener) {
    const offDisplayed = sessionStore.subscribe(listener);
    const offParked = parkedStore.subscribe(listener);
    return () => {
      offDisplayed();
      offParked();
    };
  },
};

type AppliedListener = (events: readonly AgentEvent[], state: SessionState) => void;

let queue: AgentEvent[] = [];
/** The usage updates of the queued frames, in order (merged when applied: each replaces, none adds). */
let usageQueue: UsageUpdate[] = [];
/** The rule lists of the queued frames (each is the whole list: the last one applies). */
let rulesQueue: ApprovalRule[][] = [];
/** The timeline updates of the queued frames, in order (upserts: each applies). */
let timelineQueue: TimelineUpdate[] = [];
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

/** Queues a frame from the backend; it is applied on the next animation frame. */
export function enqueueFrame(f: EventFrame): void {
  for (const ev of f.events) queue.push(ev);
  if (f.usage !== null) usageQueue.push(f.usage);
  // Absent from frames of a backend older than rules; null: unchanged.
  if (f.rules) rulesQueue.push(f.rules);
  // Absent from frames of a backend older than the timeline; null: unchanged.
  if (f.timeline) timelineQueue.push(f.timeline);
  schedule();
}

/**
 * When a person last typed in a text field (performance.now()). A batch applied
 * in the same frame as a keystroke would hold the typed character's paint back
 * by the batch's whole reduce and render; for a moment after typing, batches are
 * applied just after a frame is painted instead, so the character shows first,
 * and only every TYPING_BATCH_MS, so that few keys land while one is applied.
 */
let typedAt = Number.NEGATIVE_INFINITY;
const TYPING_MS = 150;
/** While a person types, batches are applied at most this often (the stream at ten frames a second). */
const TYPING_BATCH_MS = 100;
/** When the last batch was applied (performance.now()). */
let appliedAt = Number.NEGATIVE_INFINITY;
if (typeof window !== "undefined") {
  window.addEventListener(
    "input",
    () => {
      typedAt = performance.now();
    },
    true,
  );
}

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
    if (holds === 0 && queue.length > 0 && frame === null && typeof requestAnimationFrame === "function") {
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
  // (A clock that went back, as a test's fake one does, is no typing.)
  if (now < typedAt || now - typedAt >= TYPING_MS) {
    flushEvents();
    return;
  }
  // Typing: a frame in which no batch is applied paints its keys at once; one in ten applies the stream's.
  if (now >= appliedAt && now - appliedAt < TYPING_BATCH_MS) frame = requestAnimationFrame(onFrame);
  else afterPaint(flushEvents);
}

/** Queues a frame from the backend: applied on the next animation frame (after its paint while a person types). */
function schedule(): void {
  if (frame !== null || timer !== null) return;
  if (typeof requestAnimationFrame === "function") frame = requestAnimationFrame(onFrame);
  timer = setTimeout(flushEvents, 250);
}

/** Applies every queued event now. */
export function flushEvents(): void {
  if (frame !== null && typeof cancelAnimationFrame === "function") cancelAnimationFrame(frame);
  if (timer !== null) clearTimeout(timer);
  frame = null;
  timer = null;
  if (queue.length === 0 && usageQueue.length === 0 && rulesQueue.length === 0 && timelineQueue.length === 0) return;
  const events = queue;
  const usage = usageQueue;
  const rules = rulesQueue;
  const timeline = timelineQueue;
  queue = [];
  usageQueue = [];
  rulesQueue = [];
  timelineQueue = [];
  const started = typeof performance !== "undefined" ? performance.now() : 0;
  appliedAt = started;
  const parked = parkedStore.get();
  const next = timed("reduce", () => withRules(withUsage(reduceBatch(parked ?? sessionStore.get(), events), usage), rules));
  // The live session's timeline, before its state: a render for the state finds the segments there.
  if (next.sessionId !== null) applyFrames(next.sessionId, timeline);
  if (parked !== null) parkedStore.set(next);
  else sessionStore.set(next);
  if (typeof window !== "undefined") {
    window.__arborEventsApplied = (window.__arborEventsApplied ?? 0) + events.length;
    window.__arborLastSeq = next.lastSeq;
    const probe = window.__arborPerf;
    // React renders an external store's update in a microtask queued by `set`:
    // a microtask queued after it sees the render done.
    if (probe) queueMicrotask(() => probe.work.push(performance.now() - started));
  }
  for (const l of appliedListeners) l(events, next);
}

/** Changes the live session's state, wherever it is (displayed, or parked behind a review). */
function updateLive(change: (s: SessionState) => SessionState): void {
  const parked = parkedStore.get();
  if (parked !== null) parkedStore.set(change(parked));
  else sessionStore.set(change(sessionStore.get()));
}

/**
 * A message about to be sent to a live agent: shown as queued until the agent
 * takes it (its `user_message`). Marked before the command goes, so the
 * announcement cannot arrive first.
 */
export function markQueued(agentId: AgentId, text: string): void {
  updateLive((s) => withQueued(s, agentId, text));
}

/** The message was refused: it is not waiting anywhere. */
export function unmarkQueued(agentId: AgentId, text: string): void {
  updateLive((s) => withoutQueued(s, agentId, text));
}

/** Called after each applied batch of the live session (for side effects such as notifications). */
export function onEventsApplied(listener: AppliedListener): () => void {
  appliedListeners.add(listener);
  return () => {
    appliedListeners.delete(listener);
  };
}

/** Forgets the current session (queued events, a parked live session and the timelines included) before a new one starts. */
export function resetSession(): void {
  queue = [];
  usageQueue = [];
  rulesQueue = [];
  timelineQueue = [];
  parkedStore.set(null);
  sessionStore.set(initialSession());
  clearTimelines();
}

/**
 * Puts the live session aside (its events still apply to it) so `state`, a
 * past session, can be displayed. A live session already parked stays parked.
 */
export function showPastSession(state: SessionState): void {
  flushEvents();
  if (parkedStore.get() === null) parkedStore.set(sessionStore.get());
  sessionStore.set(state);
}

/** Displays the parked live session again; false when none was parked. */
export function showLiveSession(): boolean {
  flushEvents();
  const live = parkedStore.get();
  if (live === null) return false;
  // Displayed first, then unparked: `liveSession` never reads a moment without it.
  sessionStore.set(live);
  parkedStore.set(null);
  return true;
}

/**
 * The displayed session becomes the live one: a parked live session (which
 * the backend has just stopped) is forgotten, with anything still queued for it.
 */
export function adoptDisplayedSession(): void {
  queue = [];
  usageQueue = [];
  rulesQueue = [];
  timelineQueue = [];
  parkedStore.set(null);
}

/** Whether a live session is parked behind a displayed past session. */
export function hasParkedSession(): boolean {
  return parkedStore.get() !== null;
}
