/**
 * The session timelines the window holds, as Rust derives them (arbor-protocol
 * timeline.rs): for each agent its lane of segments (queued, model turns, tool
 * calls, waits for a person) and the time it waited for a person, and the
 * session's waiting time. The UI never works out a segment: a live session's
 * frames upsert the segments they began or changed (by index in the agent's
 * lane), and a stored session's timeline comes whole from `session_timeline`;
 * the frames' upserts are idempotent on top of it.
 *
 * Keyed by session (the live one, and a past one under review), then by
 * agent. Applying a batch copies only the lanes it touched, once each.
 */
import type { AgentId, LiveWait, Segment, SessionId, Timeline, TimelineUpdate } from "../bindings";
import { isTerminal } from "./session/status";
import type { AgentNode } from "./session/types";
import { createStore } from "./store";

export interface TimelineLane {
  /**
   * Segments by their index in Rust's lane, in the order they started. A
   * resumed session's frames may name indices past what is loaded: until its
   * stored timeline arrives the array has holes there.
   */
  segments: readonly (Segment | undefined)[];
  /** Time its calls waited for a person (Rust's sum: overlapping waits counted once). */
  waitingMs: number;
}

/** Whether the stored timeline was asked for: a session started in this window streams all of it. */
export type TimelineLoad = "none" | "loading" | "loaded" | "error";

export interface SessionTimeline {
  sessionId: SessionId;
  lanes: Readonly<Record<AgentId, TimelineLane>>;
  /** Time any agent waited for a person, as Rust last sent it (waits that ended). */
  waitingMs: number;
  /** While a call waits for a person: how Rust says to count that time as it passes. */
  liveWait: LiveWait | null;
  load: TimelineLoad;
  error: string | null;
}

export type Timelines = Readonly<Record<SessionId, SessionTimeline>>;

export const timelineStore = createStore<Timelines>({});

export function emptyTimeline(sessionId: SessionId): SessionTimeline {
  return { sessionId, lanes: {}, waitingMs: 0, liveWait: null, load: "none", error: null };
}

const NO_LANE: TimelineLane = { segments: [], waitingMs: 0 };

/**
 * `updates` (a flush's frames, in order) upserted into `t`: each segment goes
 * to its index of its agent's lane, waiting times replace the lanes' and the
 * session's. Each touched lane is copied once; `t` itself when nothing came.
 */
export function applyTimelineUpdates(t: SessionTimeline, updates: readonly TimelineUpdate[]): SessionTimeline {
  let lanes: Record<AgentId, TimelineLane> | null = null;
  /** The lanes already copied in this batch (their arrays may be written). */
  const own = new Map<AgentId, { segments: (Segment | undefined)[]; waitingMs: number }>();
  const lane = (id: AgentId) => {
    let l = own.get(id);
    if (!l) {
      const before = t.lanes[id] ?? NO_LANE;
      l = { segments: before.segments.slice(), waitingMs: before.waitingMs };
      own.set(id, l);
      lanes ??= { ...t.lanes };
      lanes[id] = l;
    }
    return l;
  };
  let waitingMs = t.waitingMs;
  let liveWait = t.liveWait;
  for (const u of updates) {
    for (const s of u.segments) lane(s.agent_id).segments[s.index] = s.segment;
    for (const [id, ms] of u.waiting) lane(id).waitingMs = ms;
    if (u.session_waiting_ms !== null) waitingMs = u.session_waiting_ms;
    // Absent from frames of a backend older than live waits.
    if (u.live_wait_changed) liveWait = u.live_wait ?? null;
  }
  if (lanes === null && waitingMs === t.waitingMs && liveWait === t.liveWait) return t;
  return { ...t, lanes: lanes ?? t.lanes, waitingMs, liveWait };
}

/** Which of two versions of one segment is the later: a closed one over an open one, else `ours` (frames are newer). */
function later(ours: Segment, stored: Segment): Segment {
  return ours.end === null && stored.end !== null ? stored : ours;
}

/**
 * A stored timeline (`session_timeline`) under what frames already brought:
 * a segment both have is the later version of it, a lane's waiting time and
 * the session's the larger (they only grow).
 */
export function withStoredTimeline(t: SessionTimeline, stored: Timeline): SessionTimeline {
  const lanes: Record<AgentId, TimelineLane> = { ...t.lanes };
  for (const l of stored.lanes) {
    const ours = t.lanes[l.agent_id];
    if (!ours) {
      lanes[l.agent_id] = { segments: l.segments, waitingMs: l.waiting_ms };
      continue;
    }
    const segments: (Segment | undefined)[] = l.segments.slice();
    ours.segments.forEach((s, i) => {
      if (s === undefined) return;
      const theirs = segments[i];
      segments[i] = theirs === undefined ? s : later(s, theirs);
    });
    lanes[l.agent_id] = { segments, waitingMs: Math.max(ours.waitingMs, l.waiting_ms) };
  }
  // Frames are newer than the stored timeline: their live wait, if they brought one, stands.
  const liveWait = t.load === "none" && t.liveWait === null ? (stored.live_wait ?? null) : t.liveWait;
  return { ...t, lanes, waitingMs: Math.max(t.waitingMs, stored.waiting_ms), liveWait, load: "loaded", error: null };
}

export function withLoad(t: SessionTimeline, load: TimelineLoad, error: string | null = null): SessionTimeline {
  return { ...t, load, error };
}

/** `change` applied to the session's timeline (an empty one when it has none yet). */
export function updateTimeline(sessionId: SessionId, change: (t: SessionTimeline) => SessionTimeline): void {
  timelineStore.set((all) => {
    const before = all[sessionId] ?? emptyTimeline(sessionId);
    const next = change(before);
    return next === all[sessionId] ? all : { ...all, [sessionId]: next };
  });
}

/** A live flush's timeline updates, for its session. */
export function applyFrames(sessionId: SessionId, updates: readonly TimelineUpdate[]): void {
  if (updates.length > 0) updateTimeline(sessionId, (t) => applyTimelineUpdates(t, updates));
}

/** Forgets the timelines of every session but `keep` (the live and the displayed ones). */
export function keepTimelines(keep: readonly (SessionId | null)[]): void {
  timelineStore.set((all) => {
    const ids = Object.keys(all);
    if (ids.every((id) => keep.includes(id))) return all;
    const out: Record<SessionId, SessionTimeline> = {};
    for (const id of ids) {
      const t = all[id];
      if (t && keep.includes(id)) out[id] = t;
    }
    return out;
  });
}

export function clearTimelines(): void {
  timelineStore.set((all) => (Object.keys(all).length === 0 ? all : {}));
}

export function timelineOf(all: Timelines, sessionId: SessionId | null): SessionTimeline | null {
  return sessionId === null ? null : (all[sessionId] ?? null);
}

/** A lane's waiting time, 0 while it has none. */
export function laneWaiting(all: Timelines, sessionId: SessionId | null, agentId: AgentId): number {
  return timelineOf(all, sessionId)?.lanes[agentId]?.waitingMs ?? 0;
}

const activeMemo = new WeakMap<Record<AgentId, AgentNode>, boolean>();

/** Some agent of the session has not ended: its open segments grow until "now". */
export function anyAgentActive(agents: Record<AgentId, AgentNode>): boolean {
  let v = activeMemo.get(agents);
  if (v === undefined) {
    v = Object.values(agents).some((a) => a.known && !isTerminal(a.status));
    activeMemo.set(agents, v);
  }
  return v;
}

/**
 * An agent's wall time: every run that ended, and the current one so far
 * (the store's mirror of Rust's StoredAgent `elapsed_ms` and `run_started_at`).
 */
export function wallTimeMs(node: Pick<AgentNode, "wallElapsedMs" | "wallRunStartedAt">, now: number): number {
  return node.wallElapsedMs + (node.wallRunStartedAt === null ? 0 : Math.max(0, now - node.wallRunStartedAt));
}

/**
 * The session's time waiting for a person at `now`: the ended waits' (Rust's
 * union) while none is open, else counted on from Rust's live wait.
 */
export function waitedAt(t: SessionTimeline | null, now: number): number {
  if (!t) return 0;
  const live = t.liveWait;
  return live === null ? t.waitingMs : live.before_ms + Math.max(0, now - live.since);
}
