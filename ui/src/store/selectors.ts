/**
 * Derived data over the session state: subtree sizes, status counts, pending
 * approvals (and the MCP tool each is about), visible tree rows (with their
 * place among their siblings) and how each agent's latest tool call went, an agent's
 * output items, file changes per agent and subtree, worktrees, budgets and
 * their standings. (Usage totals and budget standings are not derived here:
 * Rust sends them, see session/usage.ts.) Each selector returns
 * the same object for the same inputs (memoised on their identity), so
 * components can read them through useSyncExternalStore without re-rendering
 * on unrelated changes.
 */
import {
  ACP_PROVIDER,
  AGENT_STATUSES,
  type AgentChange,
  type AgentId,
  type AgentStatus,
  type Budget,
  type BudgetStanding,
  type McpToolRef,
  type ToolClass,
  type ToolInfo,
} from "../bindings";
import { personMark } from "../lib/approvals";
import { describeSandbox, type SandboxView } from "../lib/sandbox";
import { fileCounts, groupByAgent, ofAgents, revertedIds, subtreeIds, worktreeActionable } from "../lib/changes";
import { isShown, showsAll, type OutputFilter } from "../lib/outputFilter";
import { isTerminal, RESUMABLE } from "./session/status";
import type { AgentNode, AgentWorktree, Approval, OutputItem, QueuedMessage, SessionState, ToolItem } from "./session/types";
import { anyAgentActive, wallTimeMs } from "./timeline";

function memoByRef<K extends object, V>(compute: (k: K) => V): (k: K) => V {
  const cache = new WeakMap<K, V>();
  return (k) => {
    let v = cache.get(k);
    if (v === undefined && !cache.has(k)) {
      v = compute(k);
      cache.set(k, v);
    }
    return v as V;
  };
}

/** Number of descendants of each agent. */
export const subtreeSizes = memoByRef((agents: Record<AgentId, AgentNode>): Record<AgentId, number> => {
  const out: Record<AgentId, number> = {};
  const visit = (id: AgentId, seen: Set<AgentId>): number => {
    const done = out[id];
    if (done !== undefined) return done;
    const node = agents[id];
    if (!node || seen.has(id)) return 0;
    seen.add(id);
    let n = 0;
    for (const child of node.children) n += 1 + visit(child, seen);
    out[id] = n;
    return n;
  };
  for (const id of Object.keys(agents)) visit(id, new Set());
  return out;
});

/** How many subagents have one status. */
export interface StatusCount {
  status: AgentStatus;
  n: number;
}

/**
 * The status bar's counts of subagents (depth > 0), one per status Rust has
 * (AGENT_STATUSES, in its order): those still at work (queued, running,
 * waiting), completed and failed always, the other ends (stopped, at a
 * limit, cut off, interrupted, out of budget) whenever some agent has one.
 */
export const subagentStatusCounts = memoByRef((agents: Record<AgentId, AgentNode>): StatusCount[] => {
  const n = new Map<AgentStatus, number>();
  for (const node of Object.values(agents)) {
    if (node.depth === 0 || !node.known) continue;
    n.set(node.status, (n.get(node.status) ?? 0) + 1);
  }
  return AGENT_STATUSES.map((status) => ({ status, n: n.get(status) ?? 0 })).filter(
    (c) => c.n > 0 || !isTerminal(c.status) || c.status === "completed" || c.status === "failed",
  );
});

const pendingMemo = new WeakMap<string[], { approvals: Record<string, Approval>; list: Approval[] }>();

/** Approvals still waiting for an answer, oldest first. */
export function pendingApprovals(state: SessionState): Approval[] {
  const hit = pendingMemo.get(state.pending);
  if (hit && hit.approvals === state.approvals) return hit.list;
  const list = state.pending.map((id) => state.approvals[id]).filter((a): a is Approval => a !== undefined);
  pendingMemo.set(state.pending, { approvals: state.approvals, list });
  return list;
}

export function mainAgent(state: SessionState): AgentNode | null {
  return state.mainId ? (state.agents[state.mainId] ?? null) : null;
}

/**
 * The MCP server and tool an approval is about, from the tool_call it asks
 * for (the request itself does not name them); null for a built-in tool, or
 * while that call is not loaded (a past session's page not fetched yet).
 */
export function approvalMcp(state: SessionState, approval: Pick<Approval, "agentId" | "callId">): McpToolRef | null {
  const node = state.agents[approval.agentId];
  const index = node?.callIndex[approval.callId];
  const item = index === undefined ? undefined : node?.items[index];
  return item?.kind === "tool" ? item.mcp : null;
}

/** "main › Write the tests": the request's path of descriptions, root first. */
export function pathLabel(path: readonly string[]): string {
  return path.join(" › ");
}

/**
 * The label of an approval's agent: its description, id and path in the tree. The
 * main agent's path is itself alone, so it has none ("main / agent-… / main" said it twice).
 */
export function approvalAgentLabel(
  node: AgentNode | undefined,
  approval: Approval,
): { description: string; id: string; path: string } {
  const description = node?.known ? node.description : (approval.agentPath.at(-1) ?? approval.agentId);
  const path = approval.agentPath.length > 1 ? pathLabel(approval.agentPath) : "";
  return { description, id: approval.agentId, path };
}

export interface TreeRow {
  id: AgentId;
  level: number;
  hasChildren: boolean;
  expanded: boolean;
  parentId: AgentId | null;
  /** Its place among its parent's shown children (1-based), and how many there are: aria-posinset/setsize. */
  posInSet: number;
  setSize: number;
}

const rowsMemo = new WeakMap<Record<AgentId, AgentNode>, { roots: AgentId[]; collapsed: object; rows: readonly TreeRow[] }>();

/** The tree flattened into the rows currently shown (children of collapsed nodes hidden). */
export function visibleRows(state: SessionState, collapsed: Readonly<Record<AgentId, boolean>>): readonly TreeRow[] {
  const hit = rowsMemo.get(state.agents);
  if (hit && hit.roots === state.roots && hit.collapsed === collapsed) return hit.rows;
  const rows: TreeRow[] = [];
  const seen = new Set<AgentId>();
  const walk = (id: AgentId, level: number, parentId: AgentId | null) => {
    const node = state.agents[id];
    if (!node || seen.has(id)) return;
    seen.add(id);
    const hasChildren = node.children.length > 0;
    const expanded = hasChildren && !collapsed[id];
    rows.push({ id, level, hasChildren, expanded, parentId, posInSet: 0, setSize: 0 });
    if (expanded) for (const child of node.children) walk(child, level + 1, id);
  };
  for (const id of state.roots) walk(id, 0, null);
  // Siblings as shown: a parent's children are all shown or none, and one it cannot show is not counted.
  const sizes = new Map<AgentId | null, number>();
  for (const row of rows) {
    const n = (sizes.get(row.parentId) ?? 0) + 1;
    sizes.set(row.parentId, n);
    row.posInSet = n;
  }
  for (const row of rows) row.setSize = sizes.get(row.parentId) ?? 1;
  // Known by its id, or (not started yet) by its main agent.
  const stable = reuseRows(state.sessionId ?? state.mainId ?? "", rows);
  rowsMemo.set(state.agents, { roots: state.roots, collapsed, rows: stable });
  return stable;
}

/** What an agent's row in the tree shows of it: not its output, which changes with every streamed piece. */
export type RowAgent = Pick<
  AgentNode,
  | "id"
  | "parentId"
  | "depth"
  | "description"
  | "subagentType"
  | "model"
  | "provider"
  | "external"
  | "status"
  | "pendingApprovals"
  | "turns"
  | "wallRunStartedAt"
  | "wallElapsedMs"
  | "contextUsed"
  | "contextWindow"
  | "fork"
>;

const rowAgentMemo = new WeakMap<AgentNode, RowAgent>();
/** The last RowAgent given for each id: the same object back while what a row shows is the same. */
const lastRowAgents = new Map<AgentId, RowAgent>();

/**
 * The agent as its tree row shows it; the same object while those facts are
 * the same, so a row does not render again for the text its agent streams.
 */
export function rowAgent(state: SessionState, id: AgentId): RowAgent | null {
  const node = state.agents[id];
  if (!node) return null;
  const hit = rowAgentMemo.get(node);
  if (hit) return hit;
  const next: RowAgent = {
    id: node.id,
    parentId: node.parentId,
    depth: node.depth,
    description: node.description,
    subagentType: node.subagentType,
    model: node.model,
    provider: node.provider,
    external: node.external,
    status: node.status,
    pendingApprovals: node.pendingApprovals,
    turns: node.turns,
    wallRunStartedAt: node.wallRunStartedAt,
    wallElapsedMs: node.wallElapsedMs,
    contextUsed: node.contextUsed,
    contextWindow: node.contextWindow,
    fork: node.fork,
  };
  const prev = lastRowAgents.get(id);
  const out = prev && sameFields(prev, next) ? prev : next;
  // Ids are unique per session; a long day of sessions should not keep them all.
  if (lastRowAgents.size > 5000) lastRowAgents.clear();
  lastRowAgents.set(id, out);
  rowAgentMemo.set(node, out);
  return out;
}

/**
 * The rows last returned for each session, by id: a batch that changes agents
 * but not the tree's shape gives the same rows back. Each live session's tree
 * is kept mounted, and one shown again must find its own rows, not those of the
 * session shown before it, or every row it has would render anew.
 */
const lastRowsOf = new Map<string, { rows: readonly TreeRow[]; byId: ReadonlyMap<AgentId, TreeRow> }>();
/** Sessions whose rows are kept: more than a window runs at once; a long day's are let go. */
const KEPT_SESSIONS = 64;

/**
 * The rows with each unchanged row the object it was before, and the previous
 * array itself when no row changed: the tree and its memoised rows re-render
 * only for what moved, not on every streamed event.
 */
function reuseRows(session: string, rows: TreeRow[]): readonly TreeRow[] {
  const last = lastRowsOf.get(session);
  let same = last !== undefined && rows.length === last.rows.length;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    const old = last?.byId.get(row.id);
    if (old && sameFields(old, row)) rows[i] = old;
    if (rows[i] !== last?.rows[i]) same = false;
  }
  if (same && last) return last.rows;
  if (!last && lastRowsOf.size >= KEPT_SESSIONS) lastRowsOf.clear();
  lastRowsOf.set(session, { rows, byId: new Map(rows.map((r) => [r.id, r])) });
  return rows;
}

/** Whether two flat records of one shape hold the same values (each field compared with ===). */
function sameFields<T extends object>(a: T, b: T): boolean {
  return (Object.keys(a) as (keyof T)[]).every((k) => a[k] === b[k]);
}

const itemsMemo = new WeakMap<OutputItem[], { showThoughts: boolean; list: OutputItem[] }>();

/**
 * The output items to show for an agent. Thinking is shown for the main agent
 * and, when `showSubagentThoughts` is set, for subagents too.
 */
export function visibleItems(state: SessionState, id: AgentId | null, showSubagentThoughts: boolean): OutputItem[] {
  const node = id ? state.agents[id] : undefined;
  if (!node) return EMPTY_ITEMS;
  const show = node.depth === 0 || showSubagentThoughts;
  if (show) return node.items;
  const hit = itemsMemo.get(node.items);
  if (hit && hit.showThoughts === show) return hit.list;
  const list = node.items.filter((it) => it.kind !== "thoughts");
  itemsMemo.set(node.items, { showThoughts: show, list });
  return list;
}
const EMPTY_ITEMS: OutputItem[] = [];

/** The task an agent was given: its own prompt, or the prompt of the Task call that spawned it. */
export function agentPrompt(state: SessionState, id: AgentId): string | null {
  const node = state.agents[id];
  if (!node) return null;
  if (node.prompt !== null) return node.prompt;
  if (node.parentId && node.parentCallId) {
    const parent = state.agents[node.parentId];
    const index = parent?.callIndex[node.parentCallId];
    const call = index === undefined ? undefined : parent?.items[index];
    if (call?.kind === "tool") {
      const args = call.args;
      if (args && typeof args === "object" && !Array.isArray(args) && typeof args.prompt === "string") return args.prompt;
    }
  }
  return null;
}

/** Which agent each Task call spawned, keyed by the call id. */
export const childrenByCall = memoByRef((agents: Record<AgentId, AgentNode>): Record<string, AgentId> => {
  const out: Record<string, AgentId> = {};
  for (const node of Object.values(agents)) if (node.parentCallId) out[node.parentCallId] = node.id;
  return out;
});

/** The agents path from the root to `id` (descriptions), for labels. */
export function treePath(state: SessionState, id: AgentId): string[] {
  const out: string[] = [];
  const seen = new Set<AgentId>();
  let cur: AgentNode | undefined = state.agents[id];
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    out.unshift(cur.depth === 0 && cur.parentId === null ? "main" : cur.description);
    cur = cur.parentId ? state.agents[cur.parentId] : undefined;
  }
  return out;
}

/**
 * An external ACP agent (Claude Code, Codex, Gemini CLI …): another program runs its
 * loop, and Arbor is its client. What runs it, and what its own process runs in (as
 * Rust described it: `null` outside Arbor's sandbox). Null for Arbor's own agents.
 */
export function externalAgent(node: Pick<AgentNode, "provider" | "model" | "external">): ExternalView | null {
  if (node.provider !== ACP_PROVIDER) return null;
  // The same object for the same node: components read it through the store.
  const hit = externalMemo.get(node);
  if (hit) return hit;
  const sandbox = node.external?.sandbox ?? null;
  const view = { command: node.external?.command ?? node.model, sandbox: sandbox ? describeSandbox(sandbox) : null };
  externalMemo.set(node, view);
  return view;
}

export interface ExternalView {
  command: string;
  /** What its own process runs in; null: outside Arbor's sandbox. */
  sandbox: SandboxView | null;
}

const externalMemo = new WeakMap<object, ExternalView>();

/** What an external agent's mark says when pointed at: what it is, and where its process runs. */
export function externalNote(ext: ExternalView): string {
  const where = ext.sandbox
    ? `Its own process runs in Arbor's sandbox (its agent file asks for one): ${ext.sandbox.label}.`
    : "Its own process runs outside Arbor's sandbox (its agent file asks for none); commands it runs through Arbor's terminal are sandboxed.";
  return `An external ACP agent: ${ext.command} runs its loop, and Arbor is its client. Its permission requests come to your inbox and its file changes are its own here. ${where}`;
}

/** The external agent a Task call started, if it started one. */
export function childExternal(state: SessionState, child: AgentId | undefined): ExternalView | null {
  const node = child ? state.agents[child] : undefined;
  return node ? externalAgent(node) : null;
}

/** A steering message reaches an agent that has work still ahead of it. */
export function canMessage(status: AgentStatus): boolean {
  return !isTerminal(status);
}

export function canStop(status: AgentStatus): boolean {
  return !isTerminal(status);
}

/**
 * An agent that ended without finishing its task (stopped, failed, at a limit,
 * cut off, interrupted) can be given a new run: Rust's list (AgentStatus::RESUMABLE).
 * One its budget stopped is continued by raising the budget instead (canRaiseBudget).
 */
export function canResume(status: AgentStatus): boolean {
  return RESUMABLE.has(status);
}

/** Its budget (or an ancestor's) stopped it: "Raise budget and resume" is how it carries on. */
export function canRaiseBudget(status: AgentStatus): boolean {
  return status === "budget_exhausted";
}

/**
 * The index of the output row holding transcript event `seq`: the last row
 * whose first event (key `e<seq>`) is at or before it (rows keyed otherwise
 * are skipped); -1 when none is.
 */
export function rowForSeq(keys: readonly string[], seq: number): number {
  let found = -1;
  for (let i = 0; i < keys.length; i++) {
    const m = /^e(\d+)$/.exec(keys[i] ?? "");
    if (!m) continue;
    if (Number(m[1]) <= seq) found = i;
    else break;
  }
  return found;
}

/** Some agent of the session is still at work (or waiting to): the session is running. */
export function sessionActive(state: SessionState): boolean {
  return anyAgentActive(state.agents);
}

/**
 * Whether the output filter hides the item holding transcript event `seq` (a
 * search hit, a timeline segment to bring into view): then the filter gives way.
 */
export function filterHidesSeq(items: readonly OutputItem[], filter: OutputFilter, seq: number): boolean {
  if (showsAll(filter)) return false;
  const item = items[rowForSeq(items.map((it) => it.key), seq)];
  return item !== undefined && !isShown(item, filter);
}

/**
 * The agent's wall time over all its runs: those that ended, and the current
 * one so far (Rust's StoredAgent `elapsed_ms` + now − `run_started_at`);
 * null while it never ran.
 */
export function totalElapsedMs(node: Pick<AgentNode, "wallRunStartedAt" | "wallElapsedMs">, now: number): number | null {
  const ran = node.wallRunStartedAt !== null || node.wallElapsedMs > 0;
  return ran ? wallTimeMs(node, now) : null;
}

/** Which of an agent's runs a result is: 1-based, of how many so far. */
export interface RunPlace {
  index: number;
  total: number;
  /** The agent's latest run, and over: the result's figures are the agent's to date. */
  latest: boolean;
}

const finishedKeysMemo = new WeakMap<OutputItem[], string[]>();

function finishedKeys(items: OutputItem[]): string[] {
  let keys = finishedKeysMemo.get(items);
  if (!keys) {
    keys = items.filter((it) => it.kind === "finished").map((it) => it.key);
    finishedKeysMemo.set(items, keys);
  }
  return keys;
}

/**
 * The run a result (by its item key) ended, counted from the agent's
 * agent_finished events: a run under way after the last one counts too. A run
 * that ended without one (its process died) is not counted: Rust does not say
 * where it was.
 */
export function runOf(state: SessionState, agentId: AgentId, key: string): RunPlace | null {
  const node = state.agents[agentId];
  if (!node) return null;
  const keys = finishedKeys(node.items);
  const at = keys.indexOf(key);
  if (at < 0) return null;
  const running = !isTerminal(node.status);
  // The same object for the same items and state (components read it through useSyncExternalStore).
  let byKey = runMemo.get(node.items);
  if (!byKey) {
    byKey = new Map();
    runMemo.set(node.items, byKey);
  }
  const memoKey = `${key}/${running}`;
  let place = byKey.get(memoKey);
  if (!place) {
    place = { index: at + 1, total: keys.length + (running ? 1 : 0), latest: at === keys.length - 1 && !running };
    byKey.set(memoKey, place);
  }
  return place;
}
const runMemo = new WeakMap<OutputItem[], Map<string, RunPlace>>();

/** The agent the output shows: the selected one while it exists, else the main agent. */
export function effectiveSelection(state: SessionState, selected: AgentId | null): AgentId | null {
  if (selected !== null && state.agents[selected]) return selected;
  return state.mainId ?? state.roots[0] ?? null;
}

const toolClasses = memoByRef((tools: readonly ToolInfo[]): Map<string, ToolClass> => new Map(tools.map((t) => [t.name, t.class])));

/**
 * What a tool can do, as the backend classes it (AppState.tools). A tool it
 * did not list (an MCP tool, or any tool before the app state arrives) counts
 * as mutating: the UI never assumes a call is harmless.
 */
export function toolClass(tools: readonly ToolInfo[] | null | undefined, name: string): ToolClass {
  return (tools ? toolClasses(tools).get(name) : undefined) ?? "mutating";
}

/** Whether a call of this tool can change files, run commands or start agents. */
export function toolChangesThings(tools: readonly ToolInfo[] | null | undefined, name: string): boolean {
  return toolClass(tools, name) !== "read_only";
}

// ---- File changes and worktrees ----

const EMPTY_CHANGES: AgentChange[] = [];

const changesByAgent = memoByRef(groupByAgent);

/** An agent's own file changes, by seq. */
export function agentChanges(state: SessionState, id: AgentId): AgentChange[] {
  return changesByAgent(state.changes)[id] ?? EMPTY_CHANGES;
}

const subtreeMemo = new WeakMap<AgentChange[], { agents: Record<AgentId, AgentNode>; byId: Map<AgentId, AgentChange[]> }>();

/** The file changes of an agent and every agent under it, together, by seq. */
export function subtreeChanges(state: SessionState, id: AgentId): AgentChange[] {
  let hit = subtreeMemo.get(state.changes);
  if (!hit || hit.agents !== state.agents) {
    hit = { agents: state.agents, byId: new Map() };
    subtreeMemo.set(state.changes, hit);
  }
  let list = hit.byId.get(id);
  if (list === undefined) {
    const ids = subtreeIds(state.agents, id);
    list = ids.size === 1 ? agentChanges(state, id) : ofAgents(state.changes, ids);
    if (list.length === 0) list = EMPTY_CHANGES;
    hit.byId.set(id, list);
  }
  return list;
}

/** The changes the Changes view lists for an agent: its own, or its subtree's. */
export function changesFor(state: SessionState, id: AgentId, subtree: boolean): AgentChange[] {
  return subtree ? subtreeChanges(state, id) : agentChanges(state, id);
}

const revertedMemo = memoByRef(revertedIds);

/** The ids of the session's changes a person's revert undid. */
export function revertedChanges(state: SessionState): ReadonlySet<string> {
  return revertedMemo(state.changes);
}

const countsByAgent = memoByRef(fileCounts);

/** How many different files an agent changed (its own changes). */
export function changeCount(state: SessionState, id: AgentId): number {
  return countsByAgent(state.changes)[id] ?? 0;
}

/** An agent's worktree as its latest worktree event left it; null when it has none. */
export function agentWorktree(state: SessionState, id: AgentId): AgentWorktree | null {
  return state.worktrees[id] ?? null;
}

/**
 * The worktree agent `id` works in: its own, or the nearest ancestor's (a child
 * without one works in its parent's tree); null: the session's workspace. A
 * worktree merged or discarded since still names where its calls ran.
 */
export function agentTreeRoot(state: SessionState, id: AgentId): string | null {
  // Up the tree, at most as many steps as it is deep (a malformed parent link cannot loop).
  const steps = (state.agents[id]?.depth ?? 0) + 1;
  for (let at: AgentId | null = id, step = 0; at !== null && step < steps; step++) {
    const path = agentWorktree(state, at)?.update.path;
    if (path) return path;
    at = state.agents[at]?.parentId ?? null;
  }
  return null;
}

let awaitingCache: { worktrees: SessionState["worktrees"]; agents: SessionState["agents"]; out: AgentId[] } | null = null;

/**
 * The agents whose worktree waits for a person (Merge / Keep branch / Discard),
 * in the order they started: the tree lists them whichever row is selected.
 * The same array while neither the worktrees nor the agents changed.
 */
export function worktreesAwaiting(state: SessionState): AgentId[] {
  if (awaitingCache?.worktrees === state.worktrees && awaitingCache.agents === state.agents) return awaitingCache.out;
  const out = Object.keys(state.worktrees).filter((id) => {
    const w = state.worktrees[id];
    const status = state.agents[id]?.status;
    return w !== undefined && worktreeActionable(w.update.state, status !== undefined && isTerminal(status));
  });
  out.sort((a, b) => (state.agents[a]?.startedAt ?? 0) - (state.agents[b]?.startedAt ?? 0));
  // The same ids: the same array, so a streamed event renders nothing that reads it.
  const before = awaitingCache?.out;
  const same = before !== undefined && before.length === out.length && before.every((id, i) => id === out[i]);
  awaitingCache = { worktrees: state.worktrees, agents: state.agents, out: same ? before : out };
  return awaitingCache.out;
}

/** An agent's name as the tree shows it: "Main agent", its description, or its id while unknown. */
export function agentName(state: SessionState, id: AgentId): string {
  const node = state.agents[id];
  if (!node?.known) return id;
  if (node.depth === 0 && node.parentId === null) return "Main agent";
  return node.description || id;
}

// ---- Budgets ----

/** How the agent's subtree stands against its own budget, as Rust last sent it; null when it has none. */
export function agentStanding(state: SessionState, id: AgentId): BudgetStanding | null {
  return state.usage.agents[id]?.budget ?? null;
}

/** The session's budget: the main agent's standing; null when it has none. */
export function sessionStanding(state: SessionState): BudgetStanding | null {
  return state.mainId ? agentStanding(state, state.mainId) : null;
}

/** The agent's budget as it now is: its latest budget_set's, else the one its standing was of; null when it has none. */
export function agentBudget(state: SessionState, id: AgentId): Budget | null {
  return state.agents[id]?.budget ?? agentStanding(state, id)?.budget ?? null;
}

/**
 * The agent whose budget ran out, as the standings Rust sent say: the agent
 * itself or the nearest agent above it whose limit is exhausted; null when none is.
 */
export function exhaustedOwner(state: SessionState, id: AgentId): AgentId | null {
  const seen = new Set<AgentId>();
  let cur: AgentNode | undefined = state.agents[id];
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    if ((agentStanding(state, cur.id)?.exhausted ?? null) !== null) return cur.id;
    cur = cur.parentId ? state.agents[cur.parentId] : undefined;
  }
  return null;
}

// ---- An agent's latest tool call, as its tree row says it ----

/**
 * How the latest call went: still running, waiting for a person, ran, ended
 * in an error (a refusal by the approval policy included: its output says so),
 * refused (by a person or a standing rule), or never run (its request was
 * withdrawn when the agent was stopped).
 */
export type ToolOutcome = "running" | "waiting" | "ran" | "failed" | "overcome" | "denied" | "not_run";

export interface LastTool {
  /** "Write CHANGELOG.md" (toolSummary's line). */
  summary: string;
  /** An MCP server's tool, to tag it. */
  mcp: boolean;
  outcome: ToolOutcome;
  /** Why, in a person's words ("denied by you: keep it short", the error's first line); null when it ran or runs. */
  note: string | null;
}

const NOTE_CHARS = 160;

function firstLine(text: string): string | null {
  const line = text.trim().split("\n", 1)[0]?.trim() ?? "";
  if (line === "") return null;
  return line.length > NOTE_CHARS ? `${line.slice(0, NOTE_CHARS - 1)}…` : line;
}

function outcomeOf(item: ToolItem, approval: Approval | undefined, status: AgentNode["status"]): Pick<LastTool, "outcome" | "note"> {
  switch (item.approval?.state) {
    case "pending":
      return { outcome: "waiting", note: "waiting for your approval" };
    case "denied":
      return { outcome: "denied", note: personMarkOrRule(item, approval) };
    case "withdrawn":
      return { outcome: "not_run", note: "not run: its agent was stopped while it waited for approval" };
    default:
      break;
  }
  // A standing rule refused it without asking: there is no request, only the tool_output's word.
  if (item.decidedBy?.kind === "rule" && !item.decidedBy.rule.approved) {
    return { outcome: "denied", note: "refused by a standing rule" };
  }
  if (!item.done) return { outcome: "running", note: null };
  if (!item.isError) return { outcome: "ran", note: null };
  const why = firstLine(item.output) ?? "failed";
  // It completed after the failed call (a child stopped, a command that failed): its row
  // shows how it ended, not an earlier failure it went past.
  if (status === "completed") return { outcome: "overcome", note: `failed, then it went on: ${why}` };
  return { outcome: "failed", note: why };
}

/** The words of a refused request: a person's answer (with the reason given), or the rule that answered it. */
function personMarkOrRule(item: ToolItem, approval: Approval | undefined): string {
  const by = approval?.decidedBy ?? item.decidedBy;
  if (by?.kind === "rule") return "refused by a standing rule";
  return personMark(false, approval?.reason ?? null).text;
}

const lastToolMemo = new WeakMap<
  ToolItem,
  { approval: Approval | undefined; summary: string; mcp: boolean; status: AgentNode["status"]; line: LastTool }
>();

/**
 * The agent's latest tool call with how it went, for the line under its name
 * in the tree: a denied Write reads as denied even when the agent went on to
 * complete. Null when it made no call. The same object while nothing it reads
 * changed.
 */
export function lastTool(state: SessionState, agentId: AgentId): LastTool | null {
  const node = state.agents[agentId];
  if (!node?.lastTool) return null;
  const index = node.lastToolCall ? node.callIndex[node.lastToolCall] : undefined;
  const item = index === undefined ? undefined : node.items[index];
  const summary = node.lastTool;
  const mcp = node.lastToolMcp;
  // Its call not loaded (a past session's page not fetched yet): the line alone.
  if (item?.kind !== "tool") return lastToolBare(node, summary, mcp);
  const approval = item.approval ? state.approvals[item.approval.requestId] : undefined;
  const hit = lastToolMemo.get(item);
  const status = node.status;
  if (hit && hit.approval === approval && hit.summary === summary && hit.mcp === mcp && hit.status === status) {
    return hit.line;
  }
  const line: LastTool = { summary, mcp, ...outcomeOf(item, approval, status) };
  lastToolMemo.set(item, { approval, summary, mcp, status, line });
  return line;
}

const bareMemo = new WeakMap<AgentNode, LastTool>();

function lastToolBare(node: AgentNode, summary: string, mcp: boolean): LastTool {
  const hit = bareMemo.get(node);
  if (hit && hit.summary === summary && hit.mcp === mcp) return hit;
  const line: LastTool = { summary, mcp, outcome: "ran", note: null };
  bareMemo.set(node, line);
  return line;
}

const NO_QUEUED: readonly QueuedMessage[] = [];
let queuedCache: { list: readonly QueuedMessage[]; id: AgentId; out: readonly QueuedMessage[] } | null = null;

/** The messages sent to `id` that it has not taken yet, oldest first (the same array while they do not change). */
export function queuedFor(state: SessionState, id: AgentId): readonly QueuedMessage[] {
  if (queuedCache?.list === state.queued && queuedCache.id === id) return queuedCache.out;
  const mine = state.queued.filter((q) => q.agentId === id);
  const out = mine.length === 0 ? NO_QUEUED : mine;
  queuedCache = { list: state.queued, id, out };
  return out;
}
