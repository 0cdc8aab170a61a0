/**
 * The history panel's state: the stored sessions listed (with their filter,
 * loading and error states) and the last transcript search with its hits.
 * Filled by the actions in ipc/history.ts.
 */
import type { SearchHit, SessionStatus, SessionSummary } from "../bindings";
import { createStore } from "./store";

export interface HistoryState {
  filter: string;
  status: SessionStatus | null;
  sessions: SessionSummary[];
  loading: boolean;
  error: string | null;
  /** The last request returned a full page: more rows may follow. */
  more: boolean;
  /** Which request's answer is current (older answers are dropped). */
  request: number;
  search: string;
  /** The text of the last search run; null when no search is shown. */
  searched: string | null;
  hits: SearchHit[];
  searching: boolean;
  searchError: string | null;
}

export function initialHistory(): HistoryState {
  return {
    filter: "",
    status: null,
    sessions: [],
    loading: false,
    error: null,
    more: false,
    request: 0,
    search: "",
    searched: null,
    hits: [],
    searching: false,
    searchError: null,
  };
}

export const historyStore = createStore<HistoryState>(initialHistory());

export function patchHistory(patch: Partial<HistoryState>): void {
  historyStore.set((s) => ({ ...s, ...patch }));
}
