/**
 * A stand-in for Rust's one derivation of an agent's state (arbor-protocol
 * state.rs `AgentStates`), for tests that feed the stores events without the
 * runtime: it gives the agents a frame from Rust would carry. Product code
 * never derives these (store/session/agents.ts takes them as Rust sends them);
 * this copy is checked against Rust on the shared fixture (store/fixtures.test.ts),
 * so it cannot drift unseen.
 */
import type { AgentEvent, StoredAgent } from "../bindings";
import { withAgents } from "../store/session/agents";
import { reduceBatch as reduceEvents } from "../store/session/reducer";
import { isTerminal } from "../store/session/status";
import type { SessionState } from "../store/session/types";

/** Every agent seen so far, by session and id. */
const known = new Map<string, StoredAgent>();

export function resetDerivedAgents(): void {
  known.clear();
}

/** Its current run, if any, ended at `ts`: its wall time adds to the total. */
function endRun(a: StoredAgent, ts: number): void {
  if (a.run_started_at === null || a.run_started_at === undefined) return;
  a.elapsed_ms = (a.elapsed_ms ?? 0) + Math.max(0, ts - a.run_started_at);
  a.run_started_at = null;
}

type Started = Extract<AgentEvent, { type: "agent_started" }>;

/** What an `agent_started` says of its agent: where it sits and what it runs on. */
function announced(ev: Started): Pick<
  StoredAgent,
  "parent_id" | "parent_call_id" | "depth" | "description" | "subagent_type" | "model" | "provider" | "background" | "fork" | "external"
> {
  return {
    parent_id: ev.parent_id,
    parent_call_id: ev.parent_call_id,
    depth: ev.depth,
    description: ev.description,
    subagent_type: ev.subagent_type,
    model: ev.model,
    provider: ev.provider,
    background: ev.background,
    fork: ev.fork ?? null,
    external: ev.external ?? null,
  };
}

function applyOne(a: StoredAgent, ev: AgentEvent): void {
  switch (ev.type) {
    case "agent_started":
      Object.assign(a, announced(ev));
      break;
    case "agent_status":
      a.status = ev.status;
      if (!isTerminal(ev.status)) a.ended_at = null;
      if ((ev.status === "running" || ev.status === "waiting_approval") && (a.run_started_at ?? null) === null) a.run_started_at = ev.ts;
      if (isTerminal(ev.status)) endRun(a, ev.ts);
      break;
    case "budget_set":
      a.budget = ev.budget;
      a.budget_exhausted = null;
      break;
    case "budget_warning":
      if (ev.standing.exhausted !== null) a.budget_exhausted = ev.standing.exhausted;
      break;
    case "usage":
      a.turns += 1;
      a.context_used = ev.input_tokens + ev.cache_read_tokens + ev.cache_write_tokens;
      break;
    case "context_window":
      a.context_window = { tokens: ev.tokens, source: ev.source };
      break;
    case "context_compacted":
      a.context_used = ev.after_tokens;
      if (ev.usage !== null) a.turns = Math.max(0, a.turns - 1);
      if (ev.trigger === "overflow" && ev.window_tokens !== null) a.context_window = { tokens: ev.window_tokens, source: "provider" };
      break;
    case "agent_finished":
      a.status = ev.status;
      a.result = ev.result;
      a.error = ev.error;
      a.duration_ms = ev.duration_ms;
      a.files_modified = ev.files_modified;
      a.ended_at = ev.ts;
      endRun(a, ev.ts);
      break;
    default:
      break;
  }
}

/** The agents `events` changed, as Rust would send them in their frame. */
export function derivedAgents(events: readonly AgentEvent[]): StoredAgent[] {
  const touched = new Map<string, StoredAgent>();
  for (const ev of events) {
    const key = `${ev.session_id}/${ev.agent_id}`;
    let a = known.get(key);
    if (!a && ev.type === "agent_started") {
      a = {
        id: ev.agent_id,
        ...announced(ev),
        status: "queued",
        started_at: ev.ts,
        ended_at: null,
        turns: 0,
        duration_ms: null,
        usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: null },
        files_modified: [],
        result: null,
        error: null,
        budget: null,
        elapsed_ms: 0,
        run_started_at: null,
        budget_exhausted: null,
        context_used: 0,
        context_window: null,
      };
      known.set(key, a);
      touched.set(key, a);
      continue;
    }
    if (!a) continue;
    applyOne(a, ev);
    touched.set(key, a);
  }
  // Copies: a frame's agents are values, not the stand-in's own records.
  return [...touched.values()].map((a) => ({ ...a }));
}

/** The reducer as a frame from Rust drives it: `events`, then the agents they changed. */
export function reduceBatch(state: SessionState, events: readonly AgentEvent[]): SessionState {
  return withAgents(reduceEvents(state, events), derivedAgents(events));
}

export function reduce(state: SessionState, event: AgentEvent): SessionState {
  return reduceBatch(state, [event]);
}
