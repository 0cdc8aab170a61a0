/**
 * The shared fixture (tests/fixtures/agent_states) on the UI's side. Rust
 * derives each agent's state from these logs (arbor-protocol state.rs, checked
 * by a Rust test against the same files) and sends it with the frames; here:
 * - the reducer's tree and the agents Rust sends, together (withAgents), show
 *   every agent as Rust's expected state has it: the reducer builds where it
 *   sits and its result, the agents give its status, runs, turns and budget;
 * - the tests' stand-in for Rust's derivation (test/agents.ts) gives exactly
 *   Rust's expected agents, so the component tests it feeds see what Rust sends.
 * Usage is not compared: the UI never sums it (Rust sends the figures, and checks
 * them against the same files).
 *
 * It runs under Node (no DOM needed), where `import.meta.url` is a file URL.
 * @vitest-environment node
 */
/// <reference types="node" />
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AgentEvent, StoredAgent } from "../bindings";
import { derivedAgents } from "../test/agents";
import { withAgents } from "./session/agents";
import { initialSession, reduce, reduceBatch } from "./session/reducer";
import type { AgentNode, SessionState } from "./session/types";

interface Expected {
  agents: StoredAgent[];
}

const DIR = new URL("../../../tests/fixtures/agent_states/", import.meta.url);
const NAMES = readdirSync(DIR)
  .filter((f) => f.endsWith(".events.jsonl"))
  .map((f) => f.slice(0, -".events.jsonl".length))
  .sort();

function events(name: string): AgentEvent[] {
  return readFileSync(new URL(`${name}.events.jsonl`, DIR), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as AgentEvent);
}

function expected(name: string): Expected {
  return JSON.parse(readFileSync(new URL(`${name}.expected.json`, DIR), "utf8")) as Expected;
}

/** The fields of a StoredAgent the reducer has, as Rust names them. */
function summary(node: AgentNode) {
  return {
    status: node.status,
    parent_id: node.parentId,
    parent_call_id: node.parentCallId,
    depth: node.depth,
    description: node.description,
    subagent_type: node.subagentType,
    model: node.model,
    provider: node.provider,
    background: node.background,
    turns: node.turns,
    files_modified: node.finished?.filesModified ?? [],
    result: node.finished?.result ?? null,
    error: node.finished?.error ?? null,
    started_at: node.startedAt,
    ended_at: node.endedAt,
    duration_ms: node.durationMs,
    budget: node.budget,
    elapsed_ms: node.wallElapsedMs,
    run_started_at: node.wallRunStartedAt,
  };
}

function check(state: SessionState, want: Expected): void {
  for (const agent of want.agents) {
    const node = state.agents[agent.id];
    expect(node, agent.id).toBeDefined();
    if (!node) continue;
    expect(node.known, `${agent.id} announced`).toBe(true);
    expect(summary(node), agent.id).toEqual({
      status: agent.status,
      parent_id: agent.parent_id,
      parent_call_id: agent.parent_call_id,
      depth: agent.depth,
      description: agent.description,
      subagent_type: agent.subagent_type,
      model: agent.model,
      provider: agent.provider,
      background: agent.background,
      turns: agent.turns,
      files_modified: agent.files_modified,
      result: agent.result,
      error: agent.error,
      started_at: agent.started_at,
      ended_at: agent.ended_at,
      duration_ms: agent.duration_ms,
      budget: agent.budget,
      elapsed_ms: agent.elapsed_ms,
      run_started_at: agent.run_started_at,
    });
  }
}

describe("the shared agent-state fixture", () => {
  it("has logs to check", () => {
    expect(NAMES.length).toBeGreaterThan(0);
  });

  describe.each(NAMES)("%s", (name) => {
    const log = events(name);
    const want = expected(name);

    it("shows every agent as Rust has it when the log arrives in one batch", () => {
      check(withAgents(reduceBatch(initialSession(), log), want.agents), want);
    });

    it("shows every agent as Rust has it when the events arrive one by one, each with its agents", () => {
      check(
        log.reduce((s, ev) => withAgents(reduce(s, ev), want.agents.filter((a) => a.id === ev.agent_id)), initialSession()),
        want,
      );
    });

    it("the tests' stand-in derives exactly Rust's agents", () => {
      const usage = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: null };
      const byId = new Map(derivedAgents(log).map((a) => [a.id, a]));
      for (const agent of want.agents) {
        expect(byId.get(agent.id), agent.id).toEqual({ ...agent, usage, budget_exhausted: agent.budget_exhausted ?? null });
      }
    });
  });
});
