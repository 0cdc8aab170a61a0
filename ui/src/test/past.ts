/** Builders of stored sessions for tests: summaries, stored agents, PastSession answers. */
import type { AgentEvent, PastSession, SessionSummary, StoredAgent, UsageUpdate } from "../bindings";
import { figures, usageUpdate } from "./usage";

export const noUsage = figures(0).usage;

export function summary(extra: Partial<SessionSummary> = {}): SessionSummary {
  return {
    id: "s-past",
    workspace: "/home/me/code/pond",
    first_prompt: "Survey the pond",
    provider: "anthropic",
    model: "claude-test",
    started_at: new Date(2025, 2, 14, 10, 0).getTime(),
    ended_at: null,
    status: "completed",
    main_agent_id: "agent-main",
    agent_count: 2,
    event_count: 20,
    usage: figures(0),
    ...extra,
  };
}

export function storedAgent(id: string, parent: string | null, extra: Partial<StoredAgent> = {}): StoredAgent {
  return {
    id,
    parent_id: parent,
    parent_call_id: null,
    depth: parent === null ? 0 : 1,
    description: id,
    subagent_type: null,
    model: "claude-test",
    provider: "anthropic",
    background: false,
    status: "completed",
    started_at: 0,
    ended_at: 10,
    turns: 1,
    duration_ms: 10,
    usage: noUsage,
    files_modified: [],
    result: null,
    error: null,
    ...extra,
  };
}

export function pastSession(
  events: AgentEvent[],
  agents: StoredAgent[],
  extra: Partial<SessionSummary> = {},
  moreBefore = false,
  usage: UsageUpdate = usageUpdate([], figures(0)),
): PastSession {
  return {
    detail: { session: summary({ agent_count: agents.length, ...extra }), agents },
    events,
    agent: agents[0]?.id ?? null,
    more_before: moreBefore,
    usage,
    runs: { kind: "stored" },
  };
}
