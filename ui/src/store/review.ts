/**
 * Stored sessions shown in the window: a past session under review (read-only),
 * or a stored session resumed and now live. Their events arrive a page at a
 * time (each agent's transcript separately), so the displayed state is rebuilt
 * from every event loaded so far: kept sorted by seq without repeats, and
 * reduced again whole whenever a page arrives (a page is at most 400 events).
 * Token usage is not in the events' reduction (Rust sums it): a book keeps the
 * latest figures it was sent (the stored session's, then a resumed session's
 * frames), and a state rebuilt from it carries them. The rules in force are
 * kept the same way for a resumed (live) session; a past session under review
 * has none in force. A stored session's file changes come from
 * `session_changes` (its transcript pages hold them too, a page at a time):
 * the book keeps that list, and a state rebuilt from it has them all; the
 * answers of worktree actions taken on a stored session (no event brings them
 * to the window) are kept the same way.
 *
 * Everything here is pure except `appendLive`, which appends in place (live
 * events arrive many times a second and are only read when a page arrives).
 */
import {
  TRANSCRIPT_EVENT_TYPES,
  type AgentChange,
  type AgentEvent,
  type AgentId,
  type ApprovalRule,
  type EventPage,
  type PastSession,
  type SessionRuns,
  type SessionDetail,
  type SessionId,
  type StoredAgent,
  type WorktreeUpdate,
} from "../bindings";
import { mergeChanges } from "../lib/changes";
import { withAgents } from "./session/agents";
import { initialSession, reduceBatch } from "./session/reducer";
import type { AgentWorktree, SessionState, SessionUsage } from "./session/types";
import { usageFrom } from "./session/usage";
import { createStore } from "./store";

export type PageStatus = "idle" | "loading" | "loaded" | "error";

/** How much of one agent's stored transcript is loaded. */
export interface AgentPages {
  status: PageStatus;
  /** Older transcript events exist before the oldest loaded one. */
  moreBefore: boolean;
  /** The seq of the oldest transcript event loaded; null while none is. */
  oldest: number | null;
  error: string | null;
}

export interface Book {
  sessionId: SessionId;
  detail: SessionDetail;
  /** Every event loaded (and, once resumed, received live), by seq, no repeats. */
  events: AgentEvent[];
  /**
   * Every agent as Rust last derived it (status, runs, turns, budget): as stored
   * when opened, then as a resumed session's frames change them.
   */
  agents: StoredAgent[];
  pages: Record<AgentId, AgentPages>;
  /** The latest usage figures: every agent's when opened, then as a resumed session's frames replace them. */
  usage: SessionUsage;
  /** The rules in force: none when opened (a stored session has none), then as a resumed session's frames list them. */
  rules: ApprovalRule[];
  /** Every file change of the session, as `session_changes` last answered; null until it has. */
  changes: AgentChange[] | null;
  /** Why `session_changes` failed, when it did. */
  changesError: string | null;
  /** The answers of worktree actions taken on this stored session, by agent. */
  worktreeActions: Record<AgentId, AgentWorktree>;
  /** Where it ran when opened: another process's session is shown as stored then, and cannot be continued here. */
  runs: SessionRuns;
  /**
   * Live here: the last event stored before its frames began (continued, or
   * joined after a reload). Every later event comes in a frame, merged chunks
   * and all, so a stored page stops there ({@link pageBefore}); null while stored only.
   */
  storedThrough: number | null;
}

const IDLE: AgentPages = { status: "idle", moreBefore: false, oldest: null, error: null };

/** `a` and `b` merged by seq, one event per seq (the one already in `a` wins). */
export function mergeEvents(a: readonly AgentEvent[], b: readonly AgentEvent[]): AgentEvent[] {
  if (b.length === 0) return a.slice();
  const incoming = isSorted(b) ? b : [...b].sort((x, y) => x.seq - y.seq);
  const out: AgentEvent[] = [];
  let i = 0;
  let j = 0;
  let last = -Infinity;
  const push = (ev: AgentEvent) => {
    if (ev.seq === last) return;
    out.push(ev);
    last = ev.seq;
  };
  while (i < a.length || j < incoming.length) {
    const x = a[i];
    const y = incoming[j];
    if (x !== undefined && (y === undefined || x.seq <= y.seq)) {
      push(x);
      i += 1;
    } else if (y !== undefined) {
      push(y);
      j += 1;
    }
  }
  return out;
}

function isSorted(events: readonly AgentEvent[]): boolean {
  for (let i = 1; i < events.length; i++) if ((events[i]?.seq ?? 0) < (events[i - 1]?.seq ?? 0)) return false;
  return true;
}

/** A book opened from `open_session`: the tree and the main agent's newest page. */
export function bookFromPast(past: PastSession): Book {
  const pages: Record<AgentId, AgentPages> = {};
  if (past.agent !== null) {
    const oldest = past.events.find((e) => e.agent_id === past.agent && isTranscript(e))?.seq ?? null;
    pages[past.agent] = { status: "loaded", moreBefore: past.more_before, oldest, error: null };
  }
  return {
    sessionId: past.detail.session.id,
    detail: past.detail,
    events: mergeEvents([], past.events),
    agents: past.detail.agents.slice(),
    pages,
    usage: usageFrom(past.usage),
    rules: [],
    changes: null,
    changesError: null,
    worktreeActions: {},
    runs: past.runs,
    storedThrough: null,
  };
}

/**
 * The `before` to ask the store for a page of: `before` (the newest page when
 * null), but never past what the book's frames bring. A frame merges a run of
 * chunks into its first, so the same text read from the store as well would
 * show twice.
 */
export function pageBefore(book: Book, before: number | null): number | null {
  if (book.storedThrough === null) return before;
  const limit = book.storedThrough + 1;
  return before === null ? limit : Math.min(before, limit);
}

/** The session's changes as `session_changes` answered them (they replace the earlier answer). */
export function withChanges(book: Book, changes: readonly AgentChange[]): Book {
  return { ...book, changes: [...changes].sort((a, b) => a.seq - b.seq), changesError: null };
}

/** `session_changes` failed: what is loaded stays. */
export function withChangesError(book: Book, error: string): Book {
  return { ...book, changesError: error };
}

/**
 * A worktree action's answer on this stored session: the agent's worktree
 * state until a newer worktree event of the agent arrives.
 */
export function withWorktreeAction(book: Book, agentId: AgentId, update: WorktreeUpdate): Book {
  const seq = book.events.at(-1)?.seq ?? -1;
  const at: AgentWorktree = { seq, ts: Date.now(), update };
  return { ...book, worktreeActions: { ...book.worktreeActions, [agentId]: at } };
}

/** The worktrees the events left, with the book's action answers over any not newer than them. */
function overlayWorktrees(
  worktrees: Record<AgentId, AgentWorktree>,
  actions: Record<AgentId, AgentWorktree>,
): Record<AgentId, AgentWorktree> {
  let out: Record<AgentId, AgentWorktree> | null = null;
  for (const [id, action] of Object.entries(actions)) {
    const current = worktrees[id];
    if (current && current.seq > action.seq) continue;
    out ??= { ...worktrees };
    out[id] = action;
  }
  return out ?? worktrees;
}

// Rust decides which events are paged with a transcript (MCP status lines included).
const TRANSCRIPT_TYPES: ReadonlySet<AgentEvent["type"]> = new Set<AgentEvent["type"]>(TRANSCRIPT_EVENT_TYPES);

/** The event types that come in transcript pages (the rest come with the tree). */
export function isTranscript(ev: AgentEvent): boolean {
  return TRANSCRIPT_TYPES.has(ev.type);
}

export function pagesOf(book: Book, agentId: AgentId): AgentPages {
  return book.pages[agentId] ?? IDLE;
}

/** Adds a page of `agentId`'s transcript. */
export function addPage(book: Book, agentId: AgentId, page: EventPage): Book {
  const before = pagesOf(book, agentId);
  const first = page.events[0]?.seq ?? null;
  const extendsBack = before.oldest === null || (first !== null && first < before.oldest);
  const oldest = before.oldest === null ? first : first === null ? before.oldest : Math.min(first, before.oldest);
  const moreBefore = extendsBack ? page.more_before : before.moreBefore;
  return {
    ...book,
    events: mergeEvents(book.events, page.events),
    pages: { ...book.pages, [agentId]: { status: "loaded", moreBefore, oldest, error: null } },
  };
}

/** Marks a page request of `agentId` as under way or failed (what is loaded stays). */
export function setPageStatus(book: Book, agentId: AgentId, status: "loading" | "error", error: string | null = null): Book {
  const before = pagesOf(book, agentId);
  const loadedBefore = before.oldest !== null || before.status === "loaded";
  const next: AgentPages =
    status === "error" && loadedBefore ? { ...before, status: "loaded", error } : { ...before, status, error };
  return { ...book, pages: { ...book.pages, [agentId]: next } };
}

/** Whether `agentId` is a stored agent whose transcript was never asked for. */
export function needsTranscript(book: Book, agentId: AgentId): boolean {
  return book.detail.agents.some((a) => a.id === agentId) && pagesOf(book, agentId).status === "idle";
}

/** The `before` of the next "Load earlier" page of `agentId`, or null when there is none. */
export function earlierBefore(book: Book, agentId: AgentId): number | null {
  const p = pagesOf(book, agentId);
  return p.status === "loaded" && p.moreBefore && p.oldest !== null ? p.oldest : null;
}

/** Whether the transcript event `seq` of `agentId` is among the loaded ones. */
export function covers(book: Book, agentId: AgentId, seq: number): boolean {
  const p = pagesOf(book, agentId);
  if (p.oldest === null) return p.status === "loaded" && !p.moreBefore;
  return !p.moreBefore || p.oldest <= seq;
}

/**
 * The session state the book's events make, its agents as Rust last derived
 * them; with the book's usage figures and rules in force, its session's file
 * changes, and its worktree action answers.
 */
export function reduceBook(book: Book): SessionState {
  const state = withAgents(reduceBatch(initialSession(), book.events), book.agents);
  return {
    ...state,
    usage: book.usage,
    rules: book.rules,
    changes: book.changes ? mergeChanges(state.changes, book.changes) : state.changes,
    worktrees: overlayWorktrees(state.worktrees, book.worktreeActions),
  };
}

/**
 * Records live events of the resumed session, in place. They come in seq
 * order after everything stored; any that are not are merged. `state` is the
 * live session's after them: the book takes its usage figures and rules as
 * they are (the same objects, so a frame costs no copy here); `agents`, those
 * the events changed, replace the book's.
 */
export function appendLive(
  book: Book,
  events: readonly AgentEvent[],
  state: SessionState,
  agents: readonly StoredAgent[],
): void {
  if (state.sessionId === book.sessionId) {
    book.usage = state.usage;
    book.rules = state.rules;
  }
  const mine = events.filter((e) => e.session_id === book.sessionId);
  if (mine.length === 0) return;
  for (const a of agents) {
    const at = book.agents.findIndex((b) => b.id === a.id);
    if (at >= 0) book.agents[at] = a;
    else book.agents.push(a);
  }
  const last = book.events.at(-1)?.seq ?? -1;
  const first = mine[0];
  if (first && first.seq > last && isSorted(mine)) {
    for (const e of mine) book.events.push(e);
  } else {
    book.events = mergeEvents(book.events, mine);
  }
}

export interface Books {
  /** The past session displayed read-only; null when the live session (or none) is displayed. */
  review: Book | null;
  /** The live session's book when it was resumed from a stored one. */
  live: Book | null;
}

export const bookStore = createStore<Books>({ review: null, live: null });

/** The book of the displayed session, if it is a stored one. */
export function displayedBook(books: Books): Book | null {
  return books.review ?? books.live;
}

/** Bumped by each open of a past session and whenever the window leaves a review: an older open's answer is dropped. */
let reviewGeneration = 0;

/** A new generation: what an open still under way brings is dropped. */
export function nextReviewGeneration(): number {
  return ++reviewGeneration;
}

export function currentReviewGeneration(): number {
  return reviewGeneration;
}
