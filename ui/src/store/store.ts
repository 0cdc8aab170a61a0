/**
 * A minimal external store read through useSyncExternalStore. Holds a value,
 * replaces it on `set`, and tells subscribers; nothing else.
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

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    set(next) {
      const v = typeof next === "function" ? (next as (prev: T) => T)(value) : next;
      if (Object.is(v, value)) return;
      value = v;
      for (const l of [...listeners]) l();
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
