/**
 * The live session state and the event queue in front of it. Frames from the
 * backend (events, and the usage figures they changed) are queued as they
 * arrive and applied once per animation frame (with a timer fallback for
 * hidden windows, where frames stop), so bursts of thousands of events cost
 * one reduce, one usage merge and one render per frame.
 *
 * While a past session is displayed (review), the live session's state is
 * parked here and its events keep being applied to it, out of sight, until
 * the window goes back to it.
 */
import type { AgentEvent, EventFrame, UsageUpdate } from "../bindings";
import { reduceBatch, initialSession } from "./session/reducer";
import type { SessionState } from "./session/types";
import { withUsage } from "./session/usage";
import { createStore } from "./store";

export const sessionStore = createStore<SessionState>(initialSession());

type AppliedListener = (events: readonly AgentEvent[], state: SessionState) => void;

let queue: AgentEvent[] = [];
/** The usage updates of the queued frames, in order (merged when applied: each replaces, none adds). */
let usageQueue: UsageUpdate[] = [];
let frame: number | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;
const appliedListeners = new Set<AppliedListener>();
/** The live session's state while another session is displayed. */
let parked: SessionState | null = null;

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
  schedule();
}

function schedule(): void {
  if (frame !== null || timer !== null) return;
  if (typeof requestAnimationFrame === "function") frame = requestAnimationFrame(flushEvents);
  timer = setTimeout(flushEvents, 250);
}

/** Applies every queued event now. */
export function flushEvents(): void {
  if (frame !== null && typeof cancelAnimationFrame === "function") cancelAnimationFrame(frame);
  if (timer !== null) clearTimeout(timer);
  frame = null;
  timer = null;
  if (queue.length === 0 && usageQueue.length === 0) return;
  const events = queue;
  const usage = usageQueue;
  queue = [];
  usageQueue = [];
  const started = typeof performance !== "undefined" ? performance.now() : 0;
  let next: SessionState;
  if (parked !== null) {
    next = withUsage(reduceBatch(parked, events), usage);
    parked = next;
  } else {
    next = withUsage(reduceBatch(sessionStore.get(), events), usage);
    sessionStore.set(next);
  }
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

/** Called after each applied batch of the live session (for side effects such as notifications). */
export function onEventsApplied(listener: AppliedListener): () => void {
  appliedListeners.add(listener);
  return () => {
    appliedListeners.delete(listener);
  };
}

/** Forgets the current session (queued events and a parked live session included) before a new one starts. */
export function resetSession(): void {
  queue = [];
  usageQueue = [];
  parked = null;
  sessionStore.set(initialSession());
}

/**
 * Puts the live session aside (its events still apply to it) so `state`, a
 * past session, can be displayed. A live session already parked stays parked.
 */
export function showPastSession(state: SessionState): void {
  flushEvents();
  parked ??= sessionStore.get();
  sessionStore.set(state);
}

/** Displays the parked live session again; false when none was parked. */
export function showLiveSession(): boolean {
  flushEvents();
  if (parked === null) return false;
  const live = parked;
  parked = null;
  sessionStore.set(live);
  return true;
}

/**
 * The displayed session becomes the live one: a parked live session (which
 * the backend has just stopped) is forgotten, with anything still queued for it.
 */
export function adoptDisplayedSession(): void {
  queue = [];
  usageQueue = [];
  parked = null;
}

/** Whether a live session is parked behind a displayed past session. */
export function hasParkedSession(): boolean {
  return parked !== null;
}
