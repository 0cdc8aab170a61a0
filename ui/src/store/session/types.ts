/**
 * The shapes of the session state: the agent tree, each agent's output items
 * and approvals, as the reducer builds them from the event stream (budgets
 * included; rows of imported transcripts too), and the usage figures Rust
 * sends beside it (budget standings included). Types only; the reducer lives in
 * reducer.ts, the usage figures' merging in usage.ts.
 */
import type { AgentChange, AgentOption, AgentEvent, AgentId, AgentStatus, AgentUsage, ApprovalOutcome, ApprovalPreview, ApprovalRule, ApprovalScope, Budget, BudgetKind, BudgetOrigin, BudgetStanding, ContextCompacted, ContextWindow, DecidedBy, FileChanged, Fork, HookRan, McpState, Plan, McpToolRef, MessageFrom, SessionId, SpawnEdit, UsageFigures, Value, WorktreeUpdate, ExternalAgent } from "../../bindings";

export type EventType = AgentEvent["type"];
export type EventOf<T extends EventType> = Extract<AgentEvent, { type: T }>;

export interface ToolApproval {
  requestId: string;
  state: ApprovalState;
  scope: ApprovalScope | null;
}

/** Pending until its approval_resolved arrives, then the outcome that event names. */
export type ApprovalState = "pending" | ApprovalOutcome;

export type OutputItem =
  | UserItem
  | { kind: "thoughts"; key: string; text: string; streaming: boolean; ts: number }
  | { kind: "response"; key: string; text: string; streaming: boolean; ts: number }
  | ToolItem
  | { kind: "notification"; key: string; taskId: AgentId; status: AgentStatus; summary: string; ts: number }
  | McpItem
  | ChangeItem
  | BudgetItem
  | ImportedItem
  | CompactedItem
  | HookItem
  | PlanItem
  | FinishedItem;

/** The agent's plan as it stated it (an external ACP agent's), its steps and how far each got. */
export interface PlanItem {
  kind: "plan";
  key: string;
  plan: Plan;
  ts: number;
}

/** A hook command that ran for the agent (Claude Code's hooks), and what it decided. */
export interface HookItem {
  kind: "hook";
  key: string;
  ran: HookRan;
  ts: number;
}

/** A compaction of the agent's conversation: a divider where it happened, its summary folded. */
export interface CompactedItem {
  kind: "compacted";
  key: string;
  compaction: ContextCompacted;
  ts: number;
}

/**
 * A row of an imported transcript Arbor has no event for (an attachment the
 * model saw, a row kind it does not know), kept as Rust stored it.
 */
export interface ImportedItem {
  kind: "imported";
  key: string;
  /** What it was: `attachment: environment`, or the row's type. */
  entry: string;
  content: string;
  ts: number;
}

/** A budget_warning of the agent's own budget: its subtree passed a share of a limit, and was told to wrap up. */
export interface BudgetItem {
  kind: "budget";
  key: string;
  limit: BudgetKind;
  standing: BudgetStanding;
  ts: number;
}

/** A file the agent's call created, changed or deleted (or a person's revert): one compact line. */
export interface ChangeItem {
  kind: "change";
  key: string;
  change: FileChanged;
  ts: number;
}

/** An agent's worktree as its latest worktree event (or an action's answer, for a stored session) left it. */
export interface AgentWorktree {
  /** The seq of the event it came from; for an action's answer on a stored session, the newest seq known then. */
  seq: number;
  ts: number;
  update: WorktreeUpdate;
}

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

/** A message the agent took into its context: a person's, its parent's task, or Arbor's request to carry on. */
export interface UserItem {
  kind: "user";
  key: string;
  text: string;
  from: MessageFrom;
  ts: number;
}

export interface ToolItem {
  kind: "tool";
  key: string;
  callId: string;
  /**
   * The model is still writing the call: `args` is what its input parses to so
   * far, `streamedInput` the JSON text as it arrived. The tool_call that follows
   * carries the whole input; a response that ended first leaves it `cut`.
   */
  input: "writing" | "complete" | "cut";
  streamedInput: string;
  /** The model's name for the tool, shown as it is when `mcp` is null. */
  toolName: string;
  /** The MCP server and its name for the tool, as the tool_call names them; null for a built-in (or an old transcript). */
  mcp: McpToolRef | null;
  args: Value;
  /** Streamed output until the call ends, then its final content. */
  output: string;
  done: boolean;
  isError: boolean;
  approval: ToolApproval | null;
  /**
   * What let the call run or refused it: its request's answer (a person, or a
   * rule that answered it), then its tool_output's word; null until either
   * says (and for transcripts stored before calls named it).
   */
  decidedBy: DecidedBy | null;
  /** The hooks that ran for this call (PreToolUse, PermissionRequest, PostToolUse…), in order. */
  hooks: readonly HookRan[];
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
  /** The seq of the parent's call that started it: its place among its siblings (null: delegated). */
  callSeq: number | null;
  depth: number;
  description: string;
  subagentType: string | null;
  model: string;
  provider: string;
  background: boolean;
  /** Set for a fork of its parent: how many of the parent's messages it started from. */
  fork: Fork | null;
  /** Set when another program runs it (an external ACP agent): which, and in what. */
  external: ExternalAgent | null;
  /**
   * From here to `wallRunStartedAt`, but `budgetOrigin` and `budgetCarved`: as
   * Rust's one derivation has them (arbor-protocol state.rs `StoredAgent`,
   * written on by agents.ts): its status; when it started; when its last
   * agent_finished came, cleared by a new run; that run's duration; its turns,
   * one per model response over all runs.
   */
  status: AgentStatus;
  startedAt: number;
  endedAt: number | null;
  durationMs: number | null;
  turns: number;
  /**
   * Its budget (covering its subtree), null while it has none; where it came
   * from (budget_set). How the subtree stands against it comes from Rust with
   * the usage figures (SessionUsage).
   */
  budget: Budget | null;
  budgetOrigin: BudgetOrigin | null;
  /** The limits cut to what its ancestors' budgets had left when it started. */
  budgetCarved: BudgetKind[];
  /**
   * The wall time of all its runs that ended, and when its current run began
   * counting (its first running or waiting status), null while it is not running
   * (`elapsed_ms`, `run_started_at`).
   */
  wallElapsedMs: number;
  wallRunStartedAt: number | null;
  /** Its context in use (its last request's input) and its model's window, as Rust derived them. */
  contextUsed: number;
  contextWindow: ContextWindow | null;
  children: AgentId[];
  /** A one-line summary of its latest tool call ("Bash ls -la", "everything · echo hi"). */
  lastTool: string | null;
  /** The latest tool call was an MCP server's (its tool_call said so), to mark it in the tree. */
  lastToolMcp: boolean;
  /** The call id of that latest tool call (the tree marks what decided it). */
  lastToolCall: string | null;
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
  /** What the call would do, as the runtime saw it when it asked; null for requests stored before previews. */
  preview: ApprovalPreview | null;
  /** An external agent's own answers, in its words (empty: the card offers Arbor's scopes). */
  options: AgentOption[];
  /** Set when the previewed file changed on disk while the request waited: Rust's words for it. */
  stale: string | null;
  /** Who answered (a person or a rule); null while pending, and when withdrawn. */
  decidedBy: DecidedBy | null;
  /** The person's reason, given to the agent with a denial. */
  reason: string | null;
  /** The rule this answer set (a person's scoped answer). */
  rule: ApprovalRule | null;
  /** What the person changed in a spawn before approving it. */
  edit: SpawnEdit | null;
  /** When its approval_resolved came. */
  resolvedAt: number | null;
}

/** A message sent to an agent and not yet taken into its context. */
export interface QueuedMessage {
  id: number;
  agentId: AgentId;
  text: string;
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
  /** Token usage as Rust last sent it; never derived from the events here. */
  usage: SessionUsage;
  /**
   * The approval rules in force, oldest first, as the live session's frames
   * last listed them (rules.ts); empty for a reviewed past session, which has
   * none in force. A rule_revoked drops its rule at once.
   */
  rules: ApprovalRule[];
  /** Rules revoked in this session, by id: when (the rule_revoked's time). */
  revokedRules: Record<string, number>;
  /**
   * Every file change known, by seq: the file_changed events applied, and for
   * a stored session the list its `session_changes` answered (merged in review.ts).
   */
  changes: AgentChange[];
  /** Each agent's worktree, as its latest worktree event left it. */
  worktrees: Record<AgentId, AgentWorktree>;
  /**
   * Messages this window sent to running agents that no `user_message` has
   * announced yet: the agent reads them at its next turn, and they show as
   * queued until then (in the order sent).
   */
  queued: QueuedMessage[];
  lastSeq: number;
  eventsApplied: number;
}

/**
 * Usage figures as the latest UsageUpdates left them (see usage.ts). An agent
 * without an entry has used nothing yet.
 */
export interface SessionUsage {
  /** Each agent's own figures and its subtree's, by agent id. */
  agents: Record<AgentId, AgentUsage>;
  /** The whole session's; null until the first figures arrive. */
  session: UsageFigures | null;
}
