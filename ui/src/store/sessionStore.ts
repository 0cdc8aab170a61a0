/**
 * The live session state and the event queue in front of it. Events from the
 * backend are queued as they arrive and applied once per animation frame (with
 * a timer fallback for hidden windows, where frames stop), so bursts of
 * thousands of events cost one reduce and one render per frame.
 */
import type { AgentEvent } from "../bindings";
import { reduceBatch, initialSession, type SessionState } from "./session";
import { createStore } from "./store";

export const sessionStore = createStore<SessionState>(initialSession());

type AppliedListener = (events: readonly AgentEvent[], state: SessionState) => void;

let queue: AgentEvent[] = [];
let frame: number | null = null;
let timer: ReturnType<typeof setTimeout> | null = null;
const appliedListeners = new Set<AppliedListener>();

declare global {
  interface Window {
    __arborEventsApplied?: number;
  }
}

/** Queues a batch from the backend; it is applied on the next frame. */
export function enqueueEvents(batch: readonly AgentEvent[]): void {
  for (const ev of batch) queue.push(ev);
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
  if (queue.length === 0) return;
  const events = queue;
  queue = [];
  const started = typeof performance !== "undefined" ? performance.now() : 0;
  const before = sessionStore.get();
  const next = reduceBatch(before, events);
  sessionStore.set(next);
  if (typeof window !== "undefined") {
    window.__arborEventsApplied = (window.__arborEventsApplied ?? 0) + events.length;
    const probe = window.__arborPerf;
    // React renders an external store's update in a microtask queued by `set`:
    // a microtask queued after it sees the render done.
    if (probe) queueMicrotask(() => probe.work.push(performance.now() - started));
  }
  for (const l of appliedListeners) l(events, next);
}

/** Called after each applied batch (for side effects such as notifications). */
export function onEventsApplied(listener: AppliedListener): () => void {
  appliedListeners.add(listener);
  return () => {
    appliedListeners.delete(listener);
  };
}

/** Forgets the current session (queued events included) before a new one starts. */
export function resetSession(initialPrompt: string | null): void {
  queue = [];
  sessionStore.set(initialSession(initialPrompt));
}
