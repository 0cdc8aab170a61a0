/** Builders of wire events for tests: a session with increasing seq and ts. */
import type {
  AgentEvent,
  AgentId,
  AgentStatus,
  ApprovalOutcome,
  EventKind,
  FileChanged,
  McpState,
  WorktreeState,
  WorktreeUpdate,
} from "../bindings";

let changeIds = 0;

/** A file change as Rust sends it: `before` → `after` as text (null: absent), counts as given. */
export function fileChange(path: string, before: string | null, after: string | null, extra: Partial<FileChanged> = {}): FileChanged {
  changeIds += 1;
  const kind = before === null ? "created" : after === null ? "deleted" : "modified";
  return {
    change_id: `ch-${changeIds}`,
    call_id: "c1",
    root: "/work/demo",
    path,
    kind,
    before_hash: before === null ? null : `h-${before.length}`,
    after_hash: after === null ? null : `h-${after.length}`,
    lines_added: 1,
    lines_removed: before === null ? 0 : 1,
    before: before === null ? { kind: "absent" } : { kind: "text", text: before },
    after: after === null ? { kind: "absent" } : { kind: "text", text: after },
    ambiguous_with: [],
    revert_of: [],
    ...extra,
  };
}

export function worktreeUpdate(state: WorktreeState, extra: Partial<WorktreeUpdate> = {}): WorktreeUpdate {
  return {
    state,
    branch: "arbor/agent-a",
    path: "/work/demo/.arbor/worktrees/agent-a",
    parent_root: "/work/demo",
    base: "abc123",
    files: [],
    conflicts: [],
    ...extra,
  };
}

export function eventMaker(sessionId = "s-1") {
  let seq = 0;
  const make = (agentId: AgentId, kind: EventKind): AgentEvent => {
    seq += 1;
    return { agent_id: agentId, session_id: sessionId, seq, ts: 1_000 + seq * 100, ...kind };
  };
  return {
    make,
    started: (id: AgentId, parent: AgentId | null, description: string, extra: Partial<Extract<EventKind, { type: "agent_started" }>> = {}) =>
      make(id, {
        type: "agent_started",
        parent_id: parent,
        parent_call_id: null,
        depth: parent === null ? 0 : 1,
        description,
        subagent_type: null,
        model: "claude-test",
        provider: "anthropic",
        background: false,
        call_seq: null,
        ...extra,
      }),
    status: (id: AgentId, status: AgentStatus) => make(id, { type: "agent_status", status }),
    usage: (id: AgentId, input: number, output: number, cost: number | null = null) =>
      make(id, {
        type: "usage",
        input_tokens: input,
        output_tokens: output,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        cost_usd: cost,
      }),
    approval: (id: AgentId, requestId: string, callId: string, path: string[], tool = "Write") =>
      make(id, {
        type: "approval_request",
        request_id: requestId,
        call_id: callId,
        tool_name: tool,
        tool_args: { file_path: "a.txt", content: "hi\n" },
        agent_path: path,
      }),
    resolved: (id: AgentId, requestId: string, outcome: ApprovalOutcome) =>
      make(id, { type: "approval_resolved", request_id: requestId, outcome, scope: "once" }),
    mcp: (id: AgentId, server: string, state: McpState, pid: number | null = null, error: string | null = null) =>
      make(id, { type: "mcp_status", server, state, pid, error }),
    changed: (id: AgentId, change: FileChanged) => make(id, { type: "file_changed", ...change }),
    worktree: (id: AgentId, update: WorktreeUpdate) => make(id, { type: "worktree", ...update }),
  };
}
