/**
 * A minimal external store read through useSyncExternalStore. Holds a value,
 * replaces it on `set`, and tells subscribers; within `batch`, it tells them
 * once the batch is over, so that they read every store's new value together.
 */
import { useSyncExternalStore } from "react";

/** What a reader needs: a store, or a view derived from stores (see sessionStore's `liveSession`). */
export interface Readable<T> {
  get(): T;
  subscribe(listener: () => void): () => void;
}

export interface Store<T> extends Readable<T> {
  set(next: T | ((prev: T) => T)): void;
}

/** The depth of `batch` calls under way, and the stores changed in them, to be told of in order. */
let batching = 0;
const due = new Set<() => void>();

/**
 * Runs `change`, which may set several stores, and tells each store's
 * subscribers once, after it, in the order the stores first changed. A change
 * that spans stores (showing another session sets the registry, the displayed
 * session, its book and the window's view) is then read whole: told of each
 * store in turn, a reader would see the new registry with the old session in
 * it, and React would render whatever read it for a state that never was.
 */
export function batch<R>(change: () => R): R {
  batching += 1;
  try {
    return change();
  } finally {
    batching -= 1;
    if (batching === 0) {
      for (const tell of due) {
        due.delete(tell);
        tell();
      }
    }
  }
}

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  const tell = () => {
    for (const l of [...listeners]) l();
  };
  return {
    get: () => value,
    set(next) {
      const v = typeof next === "function" ? (next as (prev: T) => T)(value) : next;
      if (Object.is(v, value)) return;
      value = v;
      if (batching > 0) due.add(tell);
      else tell();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** Reads `selector(store value)`; the selector must return stable values for unchanged input. */
export function useStore<T, S>(store: Readable<T>, selector: (value: T) => S): S {
  const get = () => selector(store.get());
  return useSyncExternalStore(store.subscribe, get, get);
}
