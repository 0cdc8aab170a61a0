/** Builders of timeline segments and of the timeline part of frames, for tests. */
import type { AgentId, Segment, SegmentKind, Timeline, TimelineUpdate } from "../bindings";

export function seg(kind: SegmentKind, start: number, end: number | null, extra: Partial<Segment> = {}): Segment {
  return { kind, start, end, label: "", seq: 0, call_id: null, ...extra };
}

/** A frame's timeline: segments at their lane indices, lanes' waiting times, the session's. */
export function timelineUpdate(
  segments: [AgentId, number, Segment][],
  waiting: [AgentId, number][] = [],
  session: number | null = null,
): TimelineUpdate {
  return {
    segments: segments.map(([agent_id, index, segment]) => ({ agent_id, index, segment })),
    waiting,
    session_waiting_ms: session,
  };
}

/** A stored timeline (`session_timeline`'s answer). */
export function storedTimeline(lanes: Record<AgentId, { segments: Segment[]; waiting?: number }>, waiting = 0): Timeline {
  return {
    lanes: Object.entries(lanes).map(([agent_id, l]) => ({ agent_id, segments: l.segments, waiting_ms: l.waiting ?? 0 })),
    waiting_ms: waiting,
  };
}
