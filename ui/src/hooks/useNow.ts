/**
 * The current time, refreshed every `intervalMs` while `active`, from one clock
 * per interval that the whole window shares, ticking on the interval's wall-clock
 * boundaries: every timer on screen changes in the same frame. With an interval
 * of their own, timers ticked at the moment each mounted, and the page repainted
 * in a different frame for each: in this webview, which paints in software, two
 * dozen running agents' timers kept it repainting all second (docs/speed.md).
 * While a person types, a tick waits for them to pause (TYPING_HOLD_MS at
 * most, as the event stream does): no timer repaints in a keystroke's frame.
 */
import { useCallback, useSyncExternalStore } from "react";
import { heldForTyping, onTypingChange } from "../lib/typing";

interface Clock {
  /** The latest tick, on a boundary of the interval. */
  now: number;
  listeners: Set<() => void>;
  timer: ReturnType<typeof setTimeout> | null;
  /** A tick fell while a person typed: it is told when they pause. */
  held: boolean;
}

const clocks = new Map<number, Clock>();

function floorTo(t: number, intervalMs: number): number {
  return Math.floor(t / intervalMs) * intervalMs;
}

function clockOf(intervalMs: number): Clock {
  let c = clocks.get(intervalMs);
  if (!c) {
    c = { now: floorTo(Date.now(), intervalMs), listeners: new Set(), timer: null, held: false };
    clocks.set(intervalMs, c);
  }
  return c;
}

function schedule(c: Clock, intervalMs: number): void {
  const wait = intervalMs - (Date.now() % intervalMs);
  c.timer = setTimeout(() => {
    schedule(c, intervalMs);
    // Its age counted from when it fell due (the boundary after the last tick).
    if (heldForTyping(Date.now() - c.now - intervalMs)) c.held = true;
    else tick(c, intervalMs);
  }, wait);
}

function tick(c: Clock, intervalMs: number): void {
  c.held = false;
  c.now = floorTo(Date.now(), intervalMs);
  for (const l of c.listeners) l();
}

onTypingChange((typing) => {
  if (!typing) for (const [intervalMs, c] of clocks) if (c.held && c.listeners.size > 0) tick(c, intervalMs);
});

export function useNow(active: boolean, intervalMs = 1000): number {
  const subscribe = useCallback(
    (listener: () => void) => {
      if (!active) return () => undefined;
      const c = clockOf(intervalMs);
      if (c.listeners.size === 0) {
        // The clock was stopped: it reads the time again before anyone sees it.
        c.now = floorTo(Date.now(), intervalMs);
        schedule(c, intervalMs);
      }
      c.listeners.add(listener);
      return () => {
        c.listeners.delete(listener);
        if (c.listeners.size === 0 && c.timer !== null) {
          clearTimeout(c.timer);
          c.timer = null;
        }
      };
    },
    [active, intervalMs],
  );
  // Inactive, it is not told of ticks: what it shows of the time stays until it renders for another reason.
  const read = useCallback(() => clockOf(intervalMs).now, [intervalMs]);
  return useSyncExternalStore(subscribe, read);
}
