/**
 * Building an agent's output items from its events: streamed thinking and
 * responses, tool calls with their output and approval state, background
 * task notifications, MCP connection lines, file change lines, budget
 * warnings, rows of an imported transcript, plans and the final result; and the
 * agent's worktree state. Each function changes the batch's draft only (see
 * draft.ts).
 */
import { Allow, parse as parsePartialJson } from "partial-json";
import type { AgentEvent, ContextCompacted, DecidedBy, HookRan, McpToolRef, Value } from "../../bindings";
import { fileChangedOf, worktreeUpdateOf } from "../../lib/changes";
import type { Draft } from "./draft";
import { toolSummary } from "./toolSummary";
import type { AgentNode, EventOf, FinishedItem, PlanItem, ToolApproval, ToolItem } from "./types";

/**
 * Appends streamed text to the agent's open thinking or response item, or
 * starts one; the complete text (`final`) replaces what streamed and closes it.
 */
export function streamText(
  d: Draft,
  node: AgentNode,
  kind: "thoughts" | "response",
  ev: AgentEvent,
  content: string,
  final: boolean,
): void {
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

/**
 * A piece of a call's input as the model writes it: the call's item appears with
 * the first piece, and its arguments are what the JSON so far parses to (a
 * Task's description and prompt, a Write's content, growing as they stream).
 */
export function streamToolInput(d: Draft, node: AgentNode, ev: EventOf<"tool_input_chunk">): void {
  const index = node.callIndex[ev.call_id];
  const it = index === undefined ? undefined : d.item(node, index);
  if (it?.kind === "tool") {
    if (it.input !== "writing") return;
    it.streamedInput += ev.content;
    it.toolName = ev.tool_name;
    it.args = partialArgs(it.streamedInput);
    return;
  }
  const at = d.push(node, {
    ...newCall(ev, ev.tool_name, null),
    input: "writing",
    streamedInput: ev.content,
    args: partialArgs(ev.content),
  });
  // The response's text stays open: its complete text (the `response` event, after every
  // piece of the calls) replaces what streamed, in its place above the calls.
  d.callIndex(node)[ev.call_id] = at;
}

/** Calls whose input the model never finished (its response broke off): they did not run. */
export function cutToolInputs(d: Draft, node: AgentNode): void {
  for (const index of Object.values(node.callIndex)) {
    const seen = node.items[index];
    // Only the ones still being written: copying the others would re-render every card.
    if (seen?.kind !== "tool" || seen.input !== "writing") continue;
    const it = d.item(node, index);
    if (it?.kind === "tool" && it.input === "writing") it.input = "cut";
  }
}

/** A call's item as its first event makes it: complete, not run yet. */
function newCall(ev: AgentEvent & { call_id: string }, toolName: string, mcp: McpToolRef | null): ToolItem {
  return {
    kind: "tool",
    key: `e${ev.seq}`,
    callId: ev.call_id,
    toolName,
    mcp,
    input: "complete",
    streamedInput: "",
    args: {},
    output: "",
    done: false,
    isError: false,
    approval: null,
    decidedBy: null,
    hooks: [],
    ts: ev.ts,
  };
}

/** What a call's input parses to so far: every complete value, and the strings being written. */
function partialArgs(json: string): Value {
  try {
    const v: unknown = parsePartialJson(json, Allow.STR | Allow.OBJ | Allow.ARR);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Value) : {};
  } catch {
    return {};
  }
}

/** A tool call: its item (the one its streamed input made, completed), found again by call id, and the agent's latest tool. */
export function addToolCall(d: Draft, node: AgentNode, ev: EventOf<"tool_call">): void {
  // Absent from transcripts stored before tool calls named their MCP server.
  const mcp = ev.mcp ?? null;
  node.lastTool = toolSummary(ev.tool_name, ev.tool_args, mcp);
  node.lastToolMcp = mcp !== null;
  node.lastToolCall = ev.call_id;
  const streamed = node.callIndex[ev.call_id];
  const it = streamed === undefined ? undefined : d.item(node, streamed);
  if (it?.kind === "tool" && it.input === "writing") {
    it.toolName = ev.tool_name;
    it.mcp = mcp;
    it.args = ev.tool_args;
    it.input = "complete";
    it.streamedInput = "";
    return;
  }
  const index = d.push(node, { ...newCall(ev, ev.tool_name, mcp), args: ev.tool_args });
  d.callIndex(node)[ev.call_id] = index;
}

/** Streamed output of a call still running; a chunk arriving after its end is dropped. */
export function appendToolOutput(d: Draft, node: AgentNode, ev: EventOf<"tool_output_chunk">): void {
  const index = node.callIndex[ev.call_id];
  const it = index === undefined ? undefined : d.item(node, index);
  if (it?.kind === "tool" && !it.done) it.output += ev.content;
}

/** A call's final output, which replaces whatever streamed. */
export function endToolOutput(d: Draft, node: AgentNode, ev: EventOf<"tool_output">): void {
  const index = node.callIndex[ev.call_id];
  const it = index === undefined ? undefined : d.item(node, index);
  if (it?.kind === "tool") {
    it.output = ev.content;
    it.done = true;
    it.isError = ev.is_error;
    // Absent from transcripts stored before calls named what decided them.
    it.decidedBy = ev.decided_by ?? it.decidedBy;
  }
}

/** The call's approval state; `decidedBy`, when given, is who answered its request. */
export function setToolApproval(
  d: Draft,
  node: AgentNode,
  callId: string,
  approval: ToolApproval,
  decidedBy: DecidedBy | null = null,
): void {
  const index = node.callIndex[callId];
  if (index === undefined) return;
  const it = d.item(node, index);
  if (it?.kind !== "tool") return;
  it.approval = approval;
  if (decidedBy !== null) it.decidedBy = decidedBy;
}

export function addNotification(d: Draft, node: AgentNode, ev: EventOf<"task_notification">): void {
  d.push(node, {
    kind: "notification",
    key: `e${ev.seq}`,
    taskId: ev.task_id,
    status: ev.status,
    summary: ev.summary,
    ts: ev.ts,
  });
}

/**
 * Records the agent's connection state; "connected" and "failed" add a status
 * item, "closed" marks the server's last "connected" item (a failure stays shown).
 */
export function mcpStatus(d: Draft, node: AgentNode, ev: EventOf<"mcp_status">): void {
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

/**
 * A file change: recorded in the session's list (for the Changes view) and
 * shown as a compact line in the agent's output.
 */
export function addChange(d: Draft, node: AgentNode, ev: EventOf<"file_changed">): void {
  const change = fileChangedOf(ev);
  d.changes().push({ seq: ev.seq, ts: ev.ts, agent_id: ev.agent_id, change });
  d.push(node, { kind: "change", key: `e${ev.seq}`, change, ts: ev.ts });
}

/** The agent's worktree as this event leaves it (the latest one is its state). */
export function setWorktree(d: Draft, node: AgentNode, ev: EventOf<"worktree">): void {
  d.worktrees()[node.id] = { seq: ev.seq, ts: ev.ts, update: worktreeUpdateOf(ev) };
}

/** The result item; its text is marked shown when the last response already says it. */
export function addFinished(d: Draft, node: AgentNode, ev: EventOf<"agent_finished">): FinishedItem {
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
  return item;
}

/** The text of the response that ends the current run, if the run ended with one. */
function lastResponse(node: AgentNode): string | undefined {
  for (let i = node.items.length - 1; i >= 0; i--) {
    const it = node.items[i];
    if (it?.kind === "response") return it.text;
    if (it?.kind === "user" || it?.kind === "finished") return undefined;
  }
  return undefined;
}

/** A budget warning of the agent's own budget: a line in its output, with the figures Rust sent. */
export function addBudgetWarning(d: Draft, node: AgentNode, ev: EventOf<"budget_warning">): void {
  d.push(node, { kind: "budget", key: `e${ev.seq}`, limit: ev.kind, standing: ev.standing, ts: ev.ts });
}

/** A row of an imported transcript that no other event holds: a compact line, its text folded under it. */
export function addCompaction(d: Draft, node: AgentNode, ev: EventOf<"context_compacted">): void {
  const compaction: ContextCompacted = {
    trigger: ev.trigger,
    before_tokens: ev.before_tokens,
    window_tokens: ev.window_tokens,
    after_tokens: ev.after_tokens,
    cleared_results: ev.cleared_results,
    summarized_messages: ev.summarized_messages,
    summary: ev.summary,
    usage: ev.usage,
  };
  d.push(node, { kind: "compacted", key: `e${ev.seq}`, compaction, ts: ev.ts });
}

export function addImportedEntry(d: Draft, node: AgentNode, ev: EventOf<"imported_entry">): void {
  d.push(node, { kind: "imported", key: `e${ev.seq}`, entry: ev.kind, content: ev.content, ts: ev.ts });
}

/** A hook's run: a line on the card of the call it ran for, else a line in the agent's output where it happened. */
export function addHookRun(d: Draft, node: AgentNode, ev: EventOf<"hook_ran">): void {
  const ran: HookRan = {
    hook_event: ev.hook_event,
    source: ev.source,
    origin: ev.origin,
    matcher: ev.matcher ?? null,
    command: ev.command,
    call_id: ev.call_id ?? null,
    exit_code: ev.exit_code ?? null,
    duration_ms: ev.duration_ms,
    decision: ev.decision,
    message: ev.message ?? null,
  };
  const callId = ran.call_id ?? null;
  const index = callId === null ? undefined : node.callIndex[callId];
  const it = index === undefined ? undefined : d.item(node, index);
  if (it?.kind === "tool") {
    it.hooks = [...it.hooks, ran];
    return;
  }
  d.push(node, { kind: "hook", key: `e${ev.seq}`, ran, ts: ev.ts });
}

/**
 * The agent's plan: each is the whole list (ACP's rule). One that follows the
 * previous plan with nothing between updates that card; else it is a new card
 * where it came, so the output keeps how the plan moved along with the work.
 */
export function addPlan(d: Draft, node: AgentNode, ev: EventOf<"plan">): void {
  const item: PlanItem = { kind: "plan", key: `e${ev.seq}`, plan: { entries: ev.entries }, ts: ev.ts };
  const last = node.items.length - 1;
  if (node.items[last]?.kind === "plan") {
    d.items(node)[last] = { ...item, key: node.items[last].key };
    return;
  }
  d.push(node, item);
}
