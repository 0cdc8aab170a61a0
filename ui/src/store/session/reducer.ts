/**
 * The session store's pure reducer: applies the ordered event stream to the
 * session state (tree, outputs, approvals), building each agent's output items
 * through items.ts and its approvals through approvals.ts. It never mutates the
 * state it is given (see draft.ts). What Rust derives, it does not: an agent's
 * status, runs, wall time, turns, end and budget come from Rust's one
 * derivation beside the events (agents.ts), token usage and budget standings
 * likewise (usage.ts), and the rules in force (rules.ts). Rendering and side
 * effects (notifications) live elsewhere.
 */
import type { AgentEvent, AgentId } from "../../bindings";
import { addRequest, markStale, resolveRequest, revokeRule } from "./approvals";
import { Draft } from "./draft";
import {
  addBudgetWarning,
  addFinished,
  addImportedEntry,
  addCompaction,
  addHookRun,
  addPlan,
  addNotification,
  addChange,
  addToolCall,
  appendToolOutput,
  cutToolInputs,
  endToolOutput,
  mcpStatus,
  setWorktree,
  streamText,
  streamToolInput,
} from "./items";
import type { AgentNode, QueuedMessage, SessionState } from "./types";
import { noUsage } from "./usage";

export function initialSession(): SessionState {
  return {
    sessionId: null,
    mainId: null,
    agents: {},
    roots: [],
    approvals: {},
    pending: [],
    usage: noUsage(),
    rules: [],
    revokedRules: {},
    changes: [],
    worktrees: {},
    queued: [],
    lastSeq: -1,
    eventsApplied: 0,
  };
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

function apply(d: Draft, ev: AgentEvent): void {
  const s = d.state;
  if (s.sessionId === null) s.sessionId = ev.session_id;
  else if (ev.session_id !== s.sessionId) return;
  if (ev.seq <= s.lastSeq) return;
  s.lastSeq = ev.seq;
  s.eventsApplied += 1;
  // What these change (status, runs, turns) comes from Rust (agents.ts); tokens and cost in the frame's UsageUpdate.
  if (ev.type === "agent_status" || ev.type === "usage") return;

  const node = d.agent(ev.agent_id, ev.ts);
  switch (ev.type) {
    case "agent_started": {
      const oldParent = node.known ? node.parentId : null;
      const wasRoot = !node.known || node.parentId === null;
      // Announced again (a merged log): where it sits changes, when it started does not.
      if (!node.known) node.startedAt = ev.ts;
      node.known = true;
      // Where it sits in the tree; what it is and how it stands come from Rust (agents.ts).
      node.parentId = ev.parent_id;
      node.parentCallId = ev.parent_call_id;
      node.callSeq = ev.call_seq ?? null;
      if (oldParent !== null && oldParent !== ev.parent_id) {
        // Moved (a merged log): its old parent's subtree no longer holds it.
        const old = d.agent(oldParent, ev.ts);
        const at = old.children.indexOf(node.id);
        if (at >= 0) d.children(old).splice(at, 1);
      }
      if (ev.parent_id !== null) {
        if (wasRoot) {
          const roots = d.roots();
          const at = roots.indexOf(node.id);
          if (at >= 0) roots.splice(at, 1);
        }
        if (oldParent !== ev.parent_id) {
          const parent = d.agent(ev.parent_id, ev.ts);
          if (!parent.children.includes(node.id)) insertByCall(d.children(parent), node, (id) => s.agents[id]);
        }
      } else {
        if (!wasRoot) d.roots().push(node.id);
        if (s.mainId === null) s.mainId = node.id;
      }
      break;
    }
    case "user_message": {
      // Absent from events stored before messages said who wrote them: Rust reads those as a person's.
      const from = ev.from ?? "person";
      // Announced as the agent takes it: what this window sent is no longer queued.
      if (from === "person") unqueue(d, node.id, ev.content);
      // A subagent's first message is the task it was given (shown above its
      // output); the main agent's prompts and every later message are items.
      const sub = node.known && node.parentId !== null;
      if (sub && node.prompt === null && node.items.length === 0) {
        node.prompt = ev.content;
        break;
      }
      if (!sub && node.prompt === null) node.prompt = ev.content;
      d.push(node, { kind: "user", key: `e${ev.seq}`, text: ev.content, from, ts: ev.ts });
      node.openThoughts = null;
      node.openResponse = null;
      break;
    }
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
    case "tool_input_chunk":
      streamToolInput(d, node, ev);
      break;
    case "tool_call":
      addToolCall(d, node, ev);
      break;
    case "tool_output_chunk":
      appendToolOutput(d, node, ev);
      break;
    case "tool_output":
      endToolOutput(d, node, ev);
      break;
    case "approval_request":
      addRequest(d, node, ev);
      break;
    case "approval_stale":
      markStale(d, ev);
      break;
    case "approval_resolved":
      resolveRequest(d, ev);
      break;
    case "rule_revoked":
      revokeRule(d, ev);
      break;
    case "task_notification":
      addNotification(d, node, ev);
      break;
    case "mcp_status":
      mcpStatus(d, node, ev);
      break;
    case "file_changed":
      addChange(d, node, ev);
      break;
    case "worktree":
      setWorktree(d, node, ev);
      break;
    case "budget_set":
      // The budget itself comes from Rust (agents.ts); where it came from and what was carved, from here.
      node.budgetOrigin = ev.origin;
      node.budgetCarved = ev.carved;
      break;
    case "budget_warning":
      addBudgetWarning(d, node, ev);
      break;
    case "imported_entry":
      addImportedEntry(d, node, ev);
      break;
    case "context_compacted":
      addCompaction(d, node, ev);
      break;
    case "hook_ran":
      addHookRun(d, node, ev);
      break;
    case "plan":
      addPlan(d, node, ev);
      break;
    case "context_window":
      // How full its context is, and its window, come from Rust with the agent (agents.ts).
      break;
    case "agent_finished": {
      cutToolInputs(d, node);
      // Whatever it never took stays unread: it is not waiting any more.
      if (s.queued.some((q) => q.agentId === node.id)) s.queued = s.queued.filter((q) => q.agentId !== node.id);
      node.finished = addFinished(d, node, ev);
      node.openThoughts = null;
      node.openResponse = null;
      break;
    }
    default: {
      const never: never = ev;
      void never;
    }
  }
}

let nextQueued = 1;

/** Marks a message sent to `agentId` as queued until a `user_message` announces it was taken. */
export function withQueued(state: SessionState, agentId: AgentId, text: string): SessionState {
  return { ...state, queued: [...state.queued, { id: nextQueued++, agentId, text }] };
}

/** A message that was never delivered (the command failed): not queued after all. */
export function withoutQueued(state: SessionState, agentId: AgentId, text: string): SessionState {
  const queued = dropQueued(state.queued, agentId, text);
  return queued === state.queued ? state : { ...state, queued };
}

function unqueue(d: Draft, agentId: AgentId, text: string): void {
  d.state.queued = dropQueued(d.state.queued, agentId, text);
}

/** `queued` without the first message of `agentId` reading `text` (the same list when there is none). */
function dropQueued(queued: QueuedMessage[], agentId: AgentId, text: string): QueuedMessage[] {
  const at = queued.findIndex((q) => q.agentId === agentId && q.text === text);
  return at < 0 ? queued : queued.filter((_, i) => i !== at);
}

/**
 * Puts a child among its siblings in the order its parent made the calls that
 * started them (Rust's `call_seq`; calls made at once start in any order), after
 * them the ones a person delegated, in the order they started.
 */
function insertByCall(siblings: AgentId[], child: AgentNode, nodeOf: (id: AgentId) => AgentNode | undefined): void {
  const key = child.callSeq;
  if (key === null) {
    siblings.push(child.id);
    return;
  }
  const at = siblings.findIndex((id) => {
    const other = nodeOf(id)?.callSeq ?? null;
    return other === null || other > key;
  });
  if (at < 0) siblings.push(child.id);
  else siblings.splice(at, 0, child.id);
}
