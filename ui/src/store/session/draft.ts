/**
 * The mutable working copy of one reducer batch. The reducer never mutates the
 * state it was given: the first time a batch touches an agent, an item, an
 * index or a list, the draft copies it once and owns the copy, so later events
 * of the same batch change it in place. A burst of chunks for one agent then
 * costs O(chunks), not O(chunks × items).
 */
import type { AgentChange, AgentId } from "../../bindings";
import type { AgentNode, AgentWorktree, Approval, McpConnection, OutputItem, SessionState } from "./types";

export class Draft {
  state: SessionState;
  private owned = new WeakSet<object>();
  private agentsCopied = false;
  private approvalsCopied = false;
  private pendingCopied = false;
  private rootsCopied = false;
  private changesCopied = false;
  private worktreesCopied = false;

  constructor(base: SessionState) {
    this.state = { ...base };
  }

  /** The agent, copied into this batch; an agent not seen before becomes a placeholder root. */
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

  changes(): AgentChange[] {
    if (!this.changesCopied) {
      this.state.changes = this.state.changes.slice();
      this.changesCopied = true;
    }
    return this.state.changes;
  }

  worktrees(): Record<AgentId, AgentWorktree> {
    if (!this.worktreesCopied) {
      this.state.worktrees = { ...this.state.worktrees };
      this.worktreesCopied = true;
    }
    return this.state.worktrees;
  }

  pending(): string[] {
    if (!this.pendingCopied) {
      this.state.pending = this.state.pending.slice();
      this.pendingCopied = true;
    }
    return this.state.pending;
  }
}

/** An agent known only from an event that is not its agent_started (yet). */
function placeholder(id: AgentId, ts: number): AgentNode {
  return {
    id,
    known: false,
    parentId: null,
    parentCallId: null,
    callSeq: null,
    depth: 0,
    description: id,
    subagentType: null,
    model: "",
    provider: "",
    background: false,
    fork: null,
    external: null,
    status: "queued",
    startedAt: ts,
    endedAt: null,
    durationMs: null,
    turns: 0,
    budget: null,
    budgetOrigin: null,
    budgetCarved: [],
    wallElapsedMs: 0,
    wallRunStartedAt: null,
    contextUsed: 0,
    contextWindow: null,
    children: [],
    lastTool: null,
    lastToolMcp: false,
    lastToolCall: null,
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
