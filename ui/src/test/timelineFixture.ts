/**
 * A synthetic session for measuring the timeline: 200 agents (a tree four
 * wide) and 40,000 segments (queued time, model turns, tool calls of eight
 * tools, one in ten calls waiting for approval) over about an hour, as a
 * stored session of 100,000 events would make. Deterministic.
 *
 * Tests use `timelineFixture`. To measure first paint in the real WebView,
 * from the dev server's console (`npm run dev`, then the app's devtools):
 *
 *   const f = await import("/src/test/timelineFixture.ts");
 *   await f.measureTimelineFirstPaint();   // ms from filling the stores to the painted frame
 *
 * Pan with the mouse afterwards and read `window.__arborPerf.frames` (with
 * `localStorage.arborPerf = "1"`) for frame times.
 */
import type { AgentEvent, AgentId, Segment, Timeline } from "../bindings";
import { initialSession, reduceBatch } from "../store/session/reducer";
import { resetSession, sessionStore } from "../store/sessionStore";
import { timelineStore, withStoredTimeline, emptyTimeline } from "../store/timeline";
import { patchUi } from "../store/ui";

export interface TimelineFixture {
  sessionId: string;
  /** Each agent's start and end (agent_started, agent_status, agent_finished), parents first. */
  events: AgentEvent[];
  timeline: Timeline;
  agents: AgentId[];
}

const TOOLS = ["Bash", "Read", "Edit", "Write", "Grep", "Glob", "Task", "WebFetch"];

export function timelineFixture(agentCount = 200, segmentCount = 40_000, sessionId = "s-bench"): TimelineFixture {
  let seed = 42;
  // A small LCG: the same fixture every run.
  const rand = () => {
    seed = (seed * 1_664_525 + 1_013_904_223) >>> 0;
    return seed / 2 ** 32;
  };
  const t0 = 1_700_000_000_000;
  const perLane = Math.floor(segmentCount / agentCount);
  const agents: AgentId[] = Array.from({ length: agentCount }, (_, i) => (i === 0 ? "agent-main" : `agent-${i.toString(16).padStart(4, "0")}`));
  const events: AgentEvent[] = [];
  let seq = 0;
  const event = (agent_id: AgentId, ts: number, kind: Record<string, unknown> & { type: string }) =>
    events.push({ agent_id, session_id: sessionId, seq: ++seq, ts, ...kind } as AgentEvent);
  const lanes: Timeline["lanes"] = [];
  let sessionWaiting = 0;
  agents.forEach((id, i) => {
    const parent = i === 0 ? null : (agents[Math.floor((i - 1) / 4)] ?? null);
    const start = t0 + i * 15_000;
    event(id, start, {
      type: "agent_started",
      parent_id: parent,
      parent_call_id: null,
      depth: parent === null ? 0 : Math.floor(Math.log(i * 3 + 1) / Math.log(4)),
      description: i === 0 ? "main" : `Subtask ${i}`,
      subagent_type: null,
      model: "claude-test",
      provider: "anthropic",
      background: false,
    });
    const segments: Segment[] = [];
    let t = start;
    let waiting = 0;
    const queued = 500 + rand() * 20_000;
    segments.push({ kind: "queued", start: t, end: t + queued, label: "", seq: seq, call_id: null });
    t += queued;
    let call = 0;
    while (segments.length < perLane) {
      const model = 300 + rand() * 6_000;
      segments.push({ kind: "model", start: t, end: t + model, label: "", seq: seq + segments.length, call_id: null });
      t += model;
      if (segments.length >= perLane) break;
      const tool = TOOLS[Math.floor(rand() * TOOLS.length)] ?? "Bash";
      const d = 50 + rand() * 4_000;
      const callId = `c${i}-${call++}`;
      segments.push({ kind: "tool", start: t, end: t + d, label: tool, seq: seq + segments.length, call_id: callId });
      if (call % 10 === 0 && segments.length < perLane) {
        const w = d * 0.6;
        segments.push({ kind: "approval", start: t + d * 0.1, end: t + d * 0.1 + w, label: tool, seq: seq + segments.length, call_id: callId });
        waiting += w;
      }
      t += d;
    }
    sessionWaiting += waiting;
    lanes.push({ agent_id: id, segments, waiting_ms: Math.round(waiting) });
    event(id, t, { type: "agent_status", status: "completed" });
    event(id, t, {
      type: "agent_finished",
      status: "completed",
      result: "done",
      error: null,
      turns: Math.floor(perLane / 2),
      duration_ms: Math.round(t - start),
      files_modified: [],
    });
  });
  events.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
  events.forEach((e, i) => (e.seq = i + 1));
  // Overlapping waits are counted once by Rust; the fixture's do not overlap within a lane, and the sum will do.
  return { sessionId, events, timeline: { lanes, waiting_ms: Math.round(sessionWaiting) }, agents };
}

/** Fills the stores with the fixture (as a finished session) and shows the timeline. */
export function seedTimelineFixture(fixture: TimelineFixture = timelineFixture()): TimelineFixture {
  resetSession();
  sessionStore.set(reduceBatch(initialSession(), fixture.events));
  timelineStore.set({ [fixture.sessionId]: withStoredTimeline(emptyTimeline(fixture.sessionId), fixture.timeline) });
  patchUi({ view: "session", sessionView: "timeline", selected: null, collapsed: {} });
  return fixture;
}

/** Milliseconds from filling the stores to the frame after the timeline's first paint (a real window only). */
export async function measureTimelineFirstPaint(fixture: TimelineFixture = timelineFixture()): Promise<number> {
  patchUi({ sessionView: "agent" });
  await new Promise((r) => requestAnimationFrame(() => r(null)));
  const started = performance.now();
  seedTimelineFixture(fixture);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(null))));
  return performance.now() - started;
}
