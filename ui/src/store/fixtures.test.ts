/**
 * The UI's reducer against the shared fixture (tests/fixtures/agent_states):
 * each event log, fed through the reducer as the app feeds it, must leave
 * every agent as Rust's one derivation (arbor-protocol state.rs) leaves it,
 * checked by a Rust test against the same files. When they disagree, the
 * reducer is what changes, never the fixture. Budgets and the wall time of
 * every run (elapsed_ms, run_started_at) are compared; usage is not: the UI
 * does not sum it (Rust sends the figures, and checks them against the same files).
 *
 * It runs under Node (no DOM needed), where `import.meta.url` is a file URL.
 * @vitest-environment node
 */
/// <reference types="node" />
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AgentEvent, StoredAgent } from "../bindings";
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

    it("agrees with Rust when the log arrives in one batch", () => {
      check(reduceBatch(initialSession(), log), want);
    });

    it("agrees with Rust when the events arrive one by one", () => {
      check(log.reduce(reduce, initialSession()), want);
    });
  });
});
