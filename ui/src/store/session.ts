/**
 * The session store's state and its pure reducer: the agent tree, each agent's
 * output items, approvals and token totals, built from the ordered event stream.
 *
 * `reduceBatch` never mutates its input state. Inside one batch it copies each
 * touched agent (and each touched output item) once and then appends in place,
 * so a burst of chunks for one agent costs O(chunks), not O(chunks × items).
 * Rendering, side effects (notifications) and UI-only state live elsewhere.
 */
import type {
  AgentEvent,
  AgentId,
  AgentStatus,
  ApprovalScope,
  McpState,
  Value,
  SessionId,
  StoredAgent,
  Usage,
} from "../bindings";
import { firstStringArg, parseMcpTool } from "../lib/mcp";

export type EventType = AgentEvent["type"];
export type EventOf<T extends EventType> = Extract<AgentEvent, { type: T }>;

export interface ToolApproval {
  requestId: string;
  state: ApprovalState;
  scope: ApprovalScope | null;
}

export type ApprovalState = "pending" | "approved" | "denied" | "expired";

export type OutputItem =
  | { kind: "user"; key: string; text: string; ts: number }
  | { kind: "thoughts"; key: string; text: string; streaming: boolean; ts: number }
  | { kind: "response"; key: string; text: string; streaming: boolean; ts: number }
  | ToolItem
  | { kind: "notification"; key: string; taskId: AgentId; status: AgentStatus; summary: string; ts: number }
  | McpItem
  | FinishedItem;

/**
 * A status line of the agent's connection to an MCP server: added when it
 * connects or fails; a close marks the server's last "connected" line closed.
 */
export interface McpItem {
  kind: "mcp";
  key: string;
  server: string;
  state: McpState;
  pid: number | null;
  error: string | null;
  ts: number;
}

/** One agent's connection to one MCP server, as its last mcp_status left it. */
export interface McpConnection {
  state: McpState;
  pid: number | null;
  error: string | null;
}

export interface ToolItem {
  kind: "tool";
  key: string;
  callId: string;
  toolName: string;
  args: Value;
  /** Streamed output until the call ends, then its final content. */
  output: string;
  done: boolean;
  isError: boolean;
  approval: ToolApproval | null;
  ts: number;
}

export interface FinishedItem {
  kind: "finished";
  key: string;
  status: AgentStatus;
  result: string;
  error: string | null;
  turns: number;
  durationMs: number;
  filesModified: string[];
  /** The result is the text of the agent's last response, already in the transcript. */
  resultShown: boolean;
  ts: number;
}

export interface AgentNode {
  id: AgentId;
  /** False while only later events (not its agent_started) have been seen. */
  known: boolean;
  parentId: AgentId | null;
  parentCallId: string | null;
  depth: number;
  description: string;
  subagentType: string | null;
  model: string;
  provider: string;
  background: boolean;
  status: AgentStatus;
  startedAt: number;
  /** When the current (or last) run began and ended, by the session's clock. */
  runStartedAt: number | null;
  runEndedAt: number | null;
  children: AgentId[];
  usage: Usage;
  /** A one-line summary of its latest tool call ("Bash ls -la", "everything · echo hi"). */
  lastTool: string | null;
  /** The latest tool call's name, to mark an MCP tool in the tree. */
  lastToolName: string | null;
  items: OutputItem[];
  callIndex: Record<string, number>;
  /** Its connections to MCP servers, by server name. */
  mcp: Record<string, McpConnection>;
  /** The index of each server's latest status item in `items`. */
  mcpIndex: Record<string, number>;
  openThoughts: number | null;
  openResponse: number | null;
  finished: FinishedItem | null;
  /** Its task: a subagent's first user message, or the main agent's first prompt. */
  prompt: string | null;
  pendingApprovals: number;
}

export interface Approval {
  requestId: string;
  agentId: AgentId;
  callId: string;
  toolName: string;
  toolArgs: Value;
  agentPath: string[];
  ts: number;
  state: ApprovalState;
  scope: ApprovalScope | null;
}

export interface SessionState {
  sessionId: SessionId | null;
  mainId: AgentId | null;
  agents: Record<AgentId, AgentNode>;
  /** Agents without a (known) parent, in order of appearance. */
  roots: AgentId[];
  approvals: Record<string, Approval>;
  /** Request ids still waiting for an answer, oldest first. */
  pending: string[];
  totals: Usage;
  lastSeq: number;
  eventsApplied: number;
}

export const TERMINAL: ReadonlySet<AgentStatus> = new Set<AgentStatus>([
  "completed",
  "failed",
  "cancelled",
  "max_turns",
  "interrupted",
]);

export function isTerminal(status: AgentStatus): boolean {
  return TERMINAL.has(status);
}

export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: null };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
    cost_usd: a.cost_usd === null ? b.cost_usd : b.cost_usd === null ? a.cost_usd : a.cost_usd + b.cost_usd,
  };
}

export function totalTokens(u: Usage): number {
  return u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens;
}

export function initialSession(): SessionState {
  return {
    sessionId: null,
    mainId: null,
    agents: {},
    roots: [],
    approvals: {},
    pending: [],
    totals: emptyUsage(),
    lastSeq: -1,
    eventsApplied: 0,
  };
}

const clip = (line: string): string => (line.length > 80 ? `${line.slice(0, 79)}…` : line);

/**
 * A short, one-line summary of a tool call's arguments ("Read src/main.rs");
 * an MCP tool as "everything · echo" and its first string argument.
 */
export function toolSummary(toolName: string, args: Value): string {
  const mcp = parseMcpTool(toolName);
  if (mcp) {
    const label = `${mcp.server} · ${mcp.tool}`;
    const first = firstStringArg(args);
    return first ? `${label} ${clip(first)}` : label;
  }
  const a = args !== null && typeof args === "object" && !Array.isArray(args) ? args : {};
  const str = (k: string): string | null => {
    const v = a[k];
    return typeof v === "string" ? v : null;
  };
  // A Task call's own description would put the child's label on the parent's row.
  if (toolName === "Task") return `Task ${str("subagent_type") ?? "general-purpose"}`;
  const first = str("file_path") ?? str("command") ?? str("pattern") ?? str("path") ?? str("task_id") ?? str("description");
  if (!first) return toolName;
  const line = first.split("\n", 1)[0] ?? "";
  return `${toolName} ${clip(line)}`;
}

/** The mutable working copy of one batch; owns the objects it has copied. */
class Draft {
  state: SessionState;
  private owned = new WeakSet<object>();
  private agentsCopied = false;
  private approvalsCopied = false;
  private pendingCopied = false;
  private rootsCopied = false;

  constructor(base: SessionState) {
    this.state = { ...base };
  }

  agent(id: AgentId, ts: number): AgentNode {
    const current = this.state.agents[id];
    if (current && this.owned.has(current)) return current;
    if (!this.agentsCopied) {
      this.state.agents = { ...this.state.agents };
      this.agentsCopied = true;
    }
    let node: AgentNode;
    if (current) {
      node = { ...current };
    } else {
      node = placeholder(id, ts);
      this.roots().push(id);
    }
    this.owned.add(node);
    this.state.agents[id] = node;
    return node;
  }

  items(node: AgentNode): OutputItem[] {
    if (!this.owned.has(node.items)) {
      node.items = node.items.slice();
      this.owned.add(node.items);
    }
    return node.items;
  }

  /** The item at `index`, copied into this batch so it may be changed in place. */
  item(node: AgentNode, index: number): OutputItem | undefined {
    const items = this.items(node);
    const it = items[index];
    if (!it || this.owned.has(it)) return it;
    const copy = { ...it };
    this.owned.add(copy);
    items[index] = copy;
    return copy;
  }

  push(node: AgentNode, item: OutputItem): number {
    this.owned.add(item);
    return this.items(node).push(item) - 1;
  }

  callIndex(node: AgentNode): Record<string, number> {
    if (!this.owned.has(node.callIndex)) {
      node.callIndex = { ...node.callIndex };
      this.owned.add(node.callIndex);
    }
    return node.callIndex;
  }

  mcp(node: AgentNode): Record<string, McpConnection> {
    if (!this.owned.has(node.mcp)) {
      node.mcp = { ...node.mcp };
      this.owned.add(node.mcp);
    }
    return node.mcp;
  }

  mcpIndex(node: AgentNode): Record<string, number> {
    if (!this.owned.has(node.mcpIndex)) {
      node.mcpIndex = { ...node.mcpIndex };
      this.owned.add(node.mcpIndex);
    }
    return node.mcpIndex;
  }

  children(node: AgentNode): AgentId[] {
    if (!this.owned.has(node.children)) {
      node.children = node.children.slice();
      this.owned.add(node.children);
    }
    return node.children;
  }

  roots(): AgentId[] {
    if (!this.rootsCopied) {
      this.state.roots = this.state.roots.slice();
      this.rootsCopied = true;
    }
    return this.state.roots;
  }

  approvals(): Record<string, Approval> {
    if (!this.approvalsCopied) {
      this.state.approvals = { ...this.state.approvals };
      this.approvalsCopied = true;
    }
    return this.state.approvals;
  }

  pending(): string[] {
    if (!this.pendingCopied) {
      this.state.pending = this.state.pending.slice();
      this.pendingCopied = true;
    }
    return this.state.pending;
  }
}

function placeholder(id: AgentId, ts: number): AgentNode {
  return {
    id,
    known: false,
    parentId: null,
    parentCallId: null,
    depth: 0,
    description: id,
    subagentType: null,
    model: "",
    provider: "",
    background: false,
    status: "queued",
    startedAt: ts,
    runStartedAt: null,
    runEndedAt: null,
    children: [],
    usage: emptyUsage(),
    lastTool: null,
    lastToolName: null,
    items: [],
    callIndex: {},
    mcp: {},
    mcpIndex: {},
    openThoughts: null,
    openResponse: null,
    finished: null,
    prompt: null,
    pendingApprovals: 0,
  };
}

function setStatus(node: AgentNode, status: AgentStatus, ts: number): void {
  const wasActive = node.status === "running" || node.status === "waiting_approval";
  if ((status === "running" || status === "waiting_approval") && (!wasActive || node.runStartedAt === null)) {
    node.runStartedAt = ts;
    node.runEndedAt = null;
  }
  if (isTerminal(status) && node.runEndedAt === null && node.runStartedAt !== null) node.runEndedAt = ts;
  node.status = status;
}

function streamText(d: Draft, node: AgentNode, kind: "thoughts" | "response", ev: AgentEvent, content: string, final: boolean) {
  const openKey = kind === "thoughts" ? "openThoughts" : "openResponse";
  const open = node[openKey];
  const it = open === null ? undefined : d.item(node, open);
  if (it && (it.kind === "thoughts" || it.kind === "response") && it.kind === kind) {
    it.text = final ? content : it.text + content;
    it.streaming = !final;
  } else {
    const index = d.push(node, { kind, key: `e${ev.seq}`, text: content, streaming: !final, ts: ev.ts });
    node[openKey] = final ? null : index;
    return;
  }
  if (final) node[openKey] = null;
}

function setToolApproval(d: Draft, node: AgentNode, callId: string, approval: ToolApproval): void {
  const index = node.callIndex[callId];
  if (index === undefined) return;
  const it = d.item(node, index);
  if (it?.kind === "tool") it.approval = approval;
}

function resolveApproval(d: Draft, requestId: string, state: ApprovalState, scope: ApprovalScope | null, ts: number) {
  const existing = d.state.approvals[requestId];
  if (!existing || existing.state !== "pending") return;
  d.approvals()[requestId] = { ...existing, state, scope };
  const pending = d.pending();
  const at = pending.indexOf(requestId);
  if (at >= 0) pending.splice(at, 1);
  const node = d.agent(existing.agentId, ts);
  node.pendingApprovals = Math.max(0, node.pendingApprovals - 1);
  setToolApproval(d, node, existing.callId, { requestId, state, scope });
}

function apply(d: Draft, ev: AgentEvent): void {
  const s = d.state;
  if (s.sessionId === null) s.sessionId = ev.session_id;
  else if (ev.session_id !== s.sessionId) return;
  if (ev.seq <= s.lastSeq) return;
  s.lastSeq = ev.seq;
  s.eventsApplied += 1;

  const node = d.agent(ev.agent_id, ev.ts);
  switch (ev.type) {
    case "agent_started": {
      const oldParent = node.known ? node.parentId : null;
      const wasRoot = !node.known || node.parentId === null;
      node.known = true;
      node.parentId = ev.parent_id;
      node.parentCallId = ev.parent_call_id;
      node.depth = ev.depth;
      node.description = ev.description;
      node.subagentType = ev.subagent_type;
      node.model = ev.model;
      node.provider = ev.provider;
      node.background = ev.background;
      node.startedAt = ev.ts;
      if (ev.parent_id !== null) {
        if (wasRoot) {
          const roots = d.roots();
          const at = roots.indexOf(node.id);
          if (at >= 0) roots.splice(at, 1);
        }
        if (oldParent !== ev.parent_id) {
          const parent = d.agent(ev.parent_id, ev.ts);
          if (!parent.children.includes(node.id)) d.children(parent).push(node.id);
        }
      } else if (s.mainId === null) {
        s.mainId = node.id;
      }
      break;
    }
    case "user_message": {
      // A subagent's first message is the task it was given (shown above its
      // output); the main agent's prompts and every later message are "You" items.
      const sub = node.known && node.parentId !== null;
      if (sub && node.prompt === null && node.items.length === 0) {
        node.prompt = ev.content;
        break;
      }
      if (!sub && node.prompt === null) node.prompt = ev.content;
      d.push(node, { kind: "user", key: `e${ev.seq}`, text: ev.content, ts: ev.ts });
      node.openThoughts = null;
      node.openResponse = null;
      break;
    }
    case "agent_status":
      setStatus(node, ev.status, ev.ts);
      break;
    case "thoughts_chunk":
      streamText(d, node, "thoughts", ev, ev.content, false);
      break;
    case "thoughts":
      streamText(d, node, "thoughts", ev, ev.content, true);
      break;
    case "response_chunk":
      streamText(d, node, "response", ev, ev.content, false);
      break;
    case "response":
      streamText(d, node, "response", ev, ev.content, true);
      break;
    case "tool_call": {
      const index = d.push(node, {
        kind: "tool",
        key: `e${ev.seq}`,
        callId: ev.call_id,
        toolName: ev.tool_name,
        args: ev.tool_args,
        output: "",
        done: false,
        isError: false,
        approval: null,
        ts: ev.ts,
      });
      d.callIndex(node)[ev.call_id] = index;
      node.lastTool = toolSummary(ev.tool_name, ev.tool_args);
      node.lastToolName = ev.tool_name;
      break;
    }
    case "tool_output_chunk": {
      const index = node.callIndex[ev.call_id];
      const it = index === undefined ? undefined : d.item(node, index);
      if (it?.kind === "tool" && !it.done) it.output += ev.content;
      break;
    }
    case "tool_output": {
      const index = node.callIndex[ev.call_id];
      const it = index === undefined ? undefined : d.item(node, index);
      if (it?.kind === "tool") {
        it.output = ev.content;
        it.done = true;
        it.isError = ev.is_error;
      }
      break;
    }
    case "approval_request": {
      if (s.approvals[ev.request_id]) break;
      d.approvals()[ev.request_id] = {
        requestId: ev.request_id,
        agentId: ev.agent_id,
        callId: ev.call_id,
        toolName: ev.tool_name,
        toolArgs: ev.tool_args,
        agentPath: ev.agent_path,
        ts: ev.ts,
        state: "pending",
        scope: null,
      };
      d.pending().push(ev.request_id);
      node.pendingApprovals += 1;
      setToolApproval(d, node, ev.call_id, { requestId: ev.request_id, state: "pending", scope: null });
      break;
    }
    case "approval_resolved":
      resolveApproval(d, ev.request_id, ev.approved ? "approved" : "denied", ev.scope, ev.ts);
      break;
    case "usage": {
      const u: Usage = {
        input_tokens: ev.input_tokens,
        output_tokens: ev.output_tokens,
        cache_read_tokens: ev.cache_read_tokens,
        cache_write_tokens: ev.cache_write_tokens,
        cost_usd: ev.cost_usd,
      };
      node.usage = addUsage(node.usage, u);
      s.totals = addUsage(s.totals, u);
      break;
    }
    case "task_notification":
      d.push(node, {
        kind: "notification",
        key: `e${ev.seq}`,
        taskId: ev.task_id,
        status: ev.status,
        summary: ev.summary,
        ts: ev.ts,
      });
      break;
    case "mcp_status":
      mcpStatus(d, node, ev);
      break;
    case "agent_finished": {
      const item: FinishedItem = {
        kind: "finished",
        key: `e${ev.seq}`,
        status: ev.status,
        result: ev.result,
        error: ev.error,
        turns: ev.turns,
        durationMs: ev.duration_ms,
        filesModified: ev.files_modified,
        resultShown: ev.result !== "" && lastResponse(node) === ev.result,
        ts: ev.ts,
      };
      d.push(node, item);
      node.finished = item;
      node.openThoughts = null;
      node.openResponse = null;
      setStatus(node, ev.status, ev.ts);
      // A finished agent can no longer use an answer to a request it left open.
      if (node.pendingApprovals > 0) {
        for (const id of s.pending.slice()) {
          if (s.approvals[id]?.agentId === node.id) resolveApproval(d, id, "expired", null, ev.ts);
        }
      }
      break;
    }
    default: {
      const never: never = ev;
      void never;
    }
  }
}

/**
 * Records the agent's connection state; "connected" and "failed" add a status
 * item, "closed" marks the server's last "connected" item (a failure stays shown).
 */
function mcpStatus(d: Draft, node: AgentNode, ev: EventOf<"mcp_status">): void {
  d.mcp(node)[ev.server] = { state: ev.state, pid: ev.pid, error: ev.error };
  if (ev.state === "closed") {
    const index = node.mcpIndex[ev.server];
    if (index === undefined || node.items[index]?.kind !== "mcp") return;
    const it = d.item(node, index);
    if (it?.kind === "mcp" && it.state === "connected") it.state = "closed";
    return;
  }
  const index = d.push(node, {
    kind: "mcp",
    key: `e${ev.seq}`,
    server: ev.server,
    state: ev.state,
    pid: ev.pid,
    error: ev.error,
    ts: ev.ts,
  });
  d.mcpIndex(node)[ev.server] = index;
}

function lastResponse(node: AgentNode): string | undefined {
  for (let i = node.items.length - 1; i >= 0; i--) {
    const it = node.items[i];
    if (it?.kind === "response") return it.text;
    if (it?.kind === "user" || it?.kind === "finished") return undefined;
  }
  return undefined;
}

/** Applies events in order; returns `state` itself when no event changed anything. */
export function reduceBatch(state: SessionState, events: readonly AgentEvent[]): SessionState {
  if (events.length === 0) return state;
  const d = new Draft(state);
  for (const ev of events) apply(d, ev);
  return d.state.eventsApplied === state.eventsApplied ? state : d.state;
}

export function reduce(state: SessionState, event: AgentEvent): SessionState {
  return reduceBatch(state, [event]);
}

/**
 * Sets each stored agent's status as the store last left it, where the events
 * say otherwise: an agent whose process died mid-run has `running` as its last
 * event but is `interrupted` in the store. Its run is then over.
 */
export function withStoredStatuses(state: SessionState, agents: readonly StoredAgent[]): SessionState {
  let copied: Record<AgentId, AgentNode> | null = null;
  for (const a of agents) {
    const node = state.agents[a.id];
    if (!node || node.status === a.status) continue;
    copied ??= { ...state.agents };
    const next: AgentNode = { ...node, status: a.status };
    if (isTerminal(a.status) && next.runEndedAt === null) {
      next.runEndedAt = a.ended_at;
      if (next.runEndedAt === null) next.runStartedAt = null;
    }
    copied[a.id] = next;
  }
  return copied ? { ...state, agents: copied } : state;
}
