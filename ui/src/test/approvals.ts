/** Builders of approval events for tests: requests with previews, answers by a person or a rule, rules, revocations. */
import type {
  AgentEvent,
  AgentOption,
  AgentId,
  ApprovalOutcome,
  ApprovalPreview,
  ApprovalRule,
  ApprovalScope,
  DecidedBy,
  EventKind,
  SpawnEdit,
  SpawnPlan,
  Value,
} from "../bindings";

type Make = (agentId: AgentId, kind: EventKind) => AgentEvent;

export interface RequestSpec {
  tool?: string;
  args?: Value;
  path?: string[];
  preview?: ApprovalPreview | null;
  /** An external agent's own answers. */
  options?: AgentOption[];
}

/** A tool_call and its approval_request (call id `c-<id>`). */
export function askFor(make: Make, agentId: AgentId, requestId: string, spec: RequestSpec = {}): AgentEvent[] {
  const tool = spec.tool ?? "Write";
  const args = spec.args ?? { file_path: "a.txt", content: "hi\n" };
  const callId = `c-${requestId}`;
  return [
    make(agentId, { type: "tool_call", call_id: callId, tool_name: tool, tool_args: args }),
    make(agentId, {
      type: "approval_request",
      request_id: requestId,
      call_id: callId,
      tool_name: tool,
      tool_args: args,
      agent_path: spec.path ?? ["main"],
      preview: spec.preview ?? null,
      options: spec.options ?? [],
    }),
  ];
}

export interface AnswerSpec {
  scope?: ApprovalScope;
  decidedBy?: DecidedBy | null;
  reason?: string | null;
  rule?: ApprovalRule | null;
  edit?: SpawnEdit | null;
}

export function answered(make: Make, agentId: AgentId, requestId: string, outcome: ApprovalOutcome, spec: AnswerSpec = {}): AgentEvent {
  return make(agentId, {
    type: "approval_resolved",
    request_id: requestId,
    outcome,
    scope: spec.scope ?? "once",
    decided_by: spec.decidedBy === undefined ? (outcome === "withdrawn" ? null : { kind: "person" }) : spec.decidedBy,
    reason: spec.reason ?? null,
    rule: spec.rule ?? null,
    edit: spec.edit ?? null,
  });
}

export function rule(ruleId: string, extra: Partial<ApprovalRule> = {}): ApprovalRule {
  return {
    rule_id: ruleId,
    tool: "Write",
    scope: "subtree",
    agent_id: "agent-main",
    approved: true,
    request_id: "r-1",
    created_at: new Date(2025, 2, 14, 14, 2).getTime(),
    ...extra,
  };
}

/** A call's output, and what let it run. */
export function ran(make: Make, agentId: AgentId, callId: string, decidedBy: DecidedBy | null, content = "ok"): AgentEvent {
  return make(agentId, { type: "tool_output", call_id: callId, content, is_error: false, decided_by: decidedBy });
}

export function filePreview(path: string, before: string | null, after: string | null, note: string | null = null): ApprovalPreview {
  return { kind: "file", path, before, after, note };
}

export function spawnPlan(extra: Partial<SpawnPlan> = {}): SpawnPlan {
  return {
    subagent_type: "general-purpose",
    description: "Update changelog",
    model: "claude-test",
    provider: "anthropic",
    tools: ["Read", "Write", "Bash"],
    max_turns: 20,
    background: false,
    prompt: "Add the release notes",
    ...extra,
  };
}
