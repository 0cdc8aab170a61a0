/**
 * Formatting for the history panel, search hits and exports: dates, short
 * workspace paths, one-line prompts, where a session came from (Arbor, or
 * imported from Claude Code: read-only), a history row's labels, a search
 * snippet's marked parts and export file names. Pure; tested without Tauri.
 */
import type {
  AgentEvent,
  AgentId,
  ExportFormat,
  SearchHit,
  SessionId,
  SessionSource,
  SessionStatus,
  SessionSummary,
  SnippetPart,
} from "../bindings";
import { RESUMABLE_SESSION_SOURCES } from "../bindings";
import { formatCost, formatTokens, statusLabel } from "./format";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const pad = (n: number) => String(n).padStart(2, "0");

function clock(d: Date): string {
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function sameDay(a: Date, b: Date): boolean {
  return a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();
}

/** "Today 14:05", "Yesterday 09:12", "Mar 3, 14:05" this year, else "Mar 3, 2024" (local time). */
export function formatWhen(ts: number, now: number): string {
  const d = new Date(ts);
  const n = new Date(now);
  if (sameDay(d, n)) return `Today ${clock(d)}`;
  const yesterday = new Date(n.getFullYear(), n.getMonth(), n.getDate() - 1);
  if (sameDay(d, yesterday)) return `Yesterday ${clock(d)}`;
  const day = `${MONTHS[d.getMonth()] ?? ""} ${d.getDate()}`;
  return d.getFullYear() === n.getFullYear() ? `${day}, ${clock(d)}` : `${day}, ${d.getFullYear()}`;
}

/** "Mar 3, 2025 14:05" (local time). */
export function formatDateTime(ts: number): string {
  const d = new Date(ts);
  return `${MONTHS[d.getMonth()] ?? ""} ${d.getDate()}, ${d.getFullYear()} ${clock(d)}`;
}

/** The last two parts of a workspace path ("projects/arbor"), whichever the separator. */
export function shortWorkspace(path: string): string {
  const parts = path.split(/[\\/]+/).filter((p) => p !== "");
  if (parts.length === 0) return path;
  return parts.slice(-2).join("/");
}

/** The text on one line (whitespace runs become one space), cut to `max` characters with "…". */
export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}

// Every source Rust has must have words here: a new one fails the typecheck until it does.
const SOURCE_LABELS: Record<SessionSource, string> = {
  arbor: "Arbor",
  claude_code: "Claude Code",
};

export function sourceLabel(source: SessionSource): string {
  return SOURCE_LABELS[source];
}

/** Where a stored session came from; absent (a store older than imports): Arbor's own. */
export function sessionSource(s: Pick<SessionSummary, "source">): SessionSource {
  return s.source ?? "arbor";
}

/**
 * A session another tool wrote (imported): read-only. Which sources Arbor can
 * continue is Rust's list (RESUMABLE_SESSION_SOURCES); the UI offers no
 * Continue, Resume, Message, Delegate or Budget on the others.
 */
export function isImported(s: Pick<SessionSummary, "source">): boolean {
  return !(RESUMABLE_SESSION_SOURCES as readonly SessionSource[]).includes(sessionSource(s));
}

/** The badge of an imported session ("Claude Code"); null for Arbor's own. */
export function sourceBadge(s: Pick<SessionSummary, "source">): string | null {
  return isImported(s) ? sourceLabel(sessionSource(s)) : null;
}

export interface HistoryRow {
  when: string;
  /** The full start date and time, for a tooltip. */
  started: string;
  workspace: string;
  prompt: string;
  agents: string;
  status: SessionStatus;
  statusText: string;
  tokens: string;
  cost: string | null;
  /** "Claude Code" for an imported session; null for Arbor's own. */
  source: string | null;
  /** "via Zed" for a session an editor drove over ACP; null for the app's and the CLI's. */
  client: string | null;
}

/** The labels of one history row. */
export function historyRow(s: SessionSummary, now: number): HistoryRow {
  return {
    when: formatWhen(s.started_at, now),
    started: formatDateTime(s.started_at),
    workspace: shortWorkspace(s.workspace),
    prompt: s.first_prompt.trim() === "" ? "(no prompt yet)" : oneLine(s.first_prompt),
    agents: `${s.agent_count} agent${s.agent_count === 1 ? "" : "s"}`,
    status: s.status,
    statusText: statusLabel(s.status),
    tokens: `${formatTokens(s.usage.tokens)} tok`,
    cost: formatCost(s.usage.usage.cost_usd),
    source: sourceBadge(s),
    client: s.client ? `via ${s.client}` : null,
  };
}

// Labels only: which event types a hit can have is Rust's (TRANSCRIPT_EVENT_TYPES); an unlabelled one reads as its name.
const EVENT_LABELS: Readonly<Record<string, string>> = {
  user_message: "message",
  thoughts: "thinking",
  thoughts_chunk: "thinking",
  response: "response",
  response_chunk: "response",
  tool_call: "tool call",
  tool_output: "tool output",
  tool_output_chunk: "tool output",
  agent_finished: "result",
  task_notification: "notification",
  mcp_status: "MCP server",
  file_changed: "file change",
  imported_entry: "imported entry",
} satisfies Partial<Record<AgentEvent["type"], string>>;

export interface HitRow {
  prompt: string;
  path: string;
  type: string;
  when: string;
  /** Rust's parts of the snippet: the words searched for are the `hit` ones (rendered as text, never HTML). */
  parts: SnippetPart[];
  /** "Claude Code" when the hit's session was imported; null for Arbor's own. */
  source: string | null;
}

/** The labels of one search hit. */
export function hitRow(hit: SearchHit, now: number): HitRow {
  return {
    prompt: hit.session_prompt.trim() === "" ? "(no prompt)" : oneLine(hit.session_prompt, 120),
    path: hit.agent_path.join(" › "),
    type: EVENT_LABELS[hit.event_type] ?? hit.event_type.replace(/_/g, " "),
    when: formatWhen(hit.ts, now),
    parts: hit.snippet,
    source: sourceBadge(hit),
  };
}

/** A search hit and the hits right after it that say the same thing. */
export interface HitGroup {
  hit: SearchHit;
  /** The same agent's hits that follow it with the same snippet (numbers aside): a loop that polled, say. */
  alike: SearchHit[];
}

/** A snippet's words without its numbers: "attempt 12 of 60" and "attempt 13 of 60" read alike. */
function gist(hit: SearchHit): string {
  return hit.snippet
    .map((p) => p.text)
    .join("")
    .replace(/\d+/g, "#")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Hits in their order (newest first), each run of one agent's hits that read
 * alike folded into its first: sixty near-identical lines of one agent are one row.
 */
export function groupHits(hits: readonly SearchHit[]): HitGroup[] {
  const out: HitGroup[] = [];
  let key: string | null = null;
  for (const hit of hits) {
    const k = `${hit.session_id}\u0000${hit.agent_id}\u0000${gist(hit)}`;
    const last = out.at(-1);
    if (last && k === key) last.alike.push(hit);
    else out.push({ hit, alike: [] });
    key = k;
  }
  return out;
}

/** `arbor-<session>[-<agent>].md|json`, the export dialog's suggested name. */
export function exportFileName(sessionId: SessionId, agentId: AgentId | null, format: ExportFormat): string {
  const ext = format === "markdown" ? "md" : "json";
  return `arbor-${sessionId}${agentId ? `-${agentId}` : ""}.${ext}`;
}
