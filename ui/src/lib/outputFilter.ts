/**
 * Filtering an agent's output by kind: responses, thinking, tool calls (and,
 * among them, which tools), approvals, errors, imported entries. Pure: the
 * kinds an output item is of, whether a filter shows it, the items shown
 * (the same array while nothing is filtered, so the list keeps its rows),
 * and what each kind counts for the filter bar.
 *
 * An item shows when any kind it is of is shown: with only "errors" on, the
 * failed tool calls show. Its tool, when the person unticked it, hides it
 * whatever else it is. Items of no kind (messages, the task, notices, budget
 * warnings, a result that is not a failure) always show: they are the context.
 */
import type { McpToolRef } from "../bindings";
import type { OutputItem } from "../store/session/types";
import { endTone } from "./format";

export const OUTPUT_KINDS = ["text", "thinking", "tools", "approvals", "errors", "imported"] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

export const OUTPUT_KIND_LABELS: Readonly<Record<OutputKind, string>> = {
  text: "Responses",
  thinking: "Thinking",
  tools: "Tool calls",
  approvals: "Approvals",
  errors: "Errors",
  imported: "Imported entries",
};

export interface OutputFilter {
  /** Kinds switched off. */
  hidden: readonly OutputKind[];
  /** Tools (by the model's name for them) switched off. */
  hiddenTools: readonly string[];
}

/** The default: everything shows. */
export const SHOW_ALL: OutputFilter = { hidden: [], hiddenTools: [] };

export function showsAll(f: OutputFilter): boolean {
  return f.hidden.length === 0 && f.hiddenTools.length === 0;
}

const NONE: readonly OutputKind[] = [];

/** The kinds an item is of (none: it is context, and always shows). */
export function kindsOf(item: OutputItem): readonly OutputKind[] {
  switch (item.kind) {
    case "response":
      return ["text"];
    case "thoughts":
      return ["thinking"];
    case "tool": {
      const kinds: OutputKind[] = ["tools"];
      if (item.approval !== null) kinds.push("approvals");
      if (item.isError) kinds.push("errors");
      return kinds;
    }
    // A file change is one of its call's effects: it goes with the tool calls.
    case "change":
      return ["tools"];
    case "mcp":
      return item.state === "failed" ? ["errors"] : NONE;
    case "finished": {
      const tone = endTone(item.status);
      return tone === "failed" || tone === "budget" ? ["errors"] : NONE;
    }
    case "imported":
      return ["imported"];
    // A hook that failed or hung is an error; one that ran is the context of what it ran for.
    case "hook":
      return item.ran.decision === "failed" || item.ran.decision === "timed_out" ? ["errors"] : NONE;
    case "user":
    case "notification":
    case "budget":
    case "compacted":
    case "plan":
      return NONE;
  }
}

export function isShown(item: OutputItem, f: OutputFilter): boolean {
  if (item.kind === "tool" && f.hiddenTools.includes(item.toolName)) return false;
  const kinds = kindsOf(item);
  return kinds.length === 0 || kinds.some((k) => !f.hidden.includes(k));
}

const filteredMemo = new WeakMap<readonly OutputItem[], { filter: OutputFilter; list: OutputItem[] }>();

/** The items the filter shows; `items` itself when it shows everything. */
export function filterItems(items: OutputItem[], f: OutputFilter): OutputItem[] {
  if (showsAll(f)) return items;
  const hit = filteredMemo.get(items);
  if (hit && hit.filter === f) return hit.list;
  const list = items.filter((it) => isShown(it, f));
  filteredMemo.set(items, { filter: f, list });
  return list;
}

export interface ToolCount {
  /** The model's name for it: what the filter names. */
  name: string;
  /** Its MCP server and that server's name for it, when it is an MCP tool. */
  mcp: McpToolRef | null;
  count: number;
}

export interface KindCounts {
  kinds: Record<OutputKind, number>;
  /** The tools called, in the order of their first call. */
  tools: ToolCount[];
}

const countsMemo = new WeakMap<readonly OutputItem[], KindCounts>();

/** How many items of each kind, and the calls of each tool, there are. */
export function kindCounts(items: readonly OutputItem[]): KindCounts {
  const hit = countsMemo.get(items);
  if (hit) return hit;
  const kinds: Record<OutputKind, number> = { text: 0, thinking: 0, tools: 0, approvals: 0, errors: 0, imported: 0 };
  const tools = new Map<string, ToolCount>();
  for (const it of items) {
    for (const k of kindsOf(it)) kinds[k] += 1;
    if (it.kind !== "tool") continue;
    const t = tools.get(it.toolName);
    if (t) t.count += 1;
    else tools.set(it.toolName, { name: it.toolName, mcp: it.mcp, count: 1 });
  }
  const out = { kinds, tools: [...tools.values()] };
  countsMemo.set(items, out);
  return out;
}

/** The filter with `kind` switched. */
export function toggleKind(f: OutputFilter, kind: OutputKind): OutputFilter {
  const hidden = f.hidden.includes(kind) ? f.hidden.filter((k) => k !== kind) : [...f.hidden, kind];
  return { ...f, hidden };
}

/** The filter with the tool switched (switching one on also switches the tool calls on). */
export function toggleTool(f: OutputFilter, name: string): OutputFilter {
  if (f.hiddenTools.includes(name)) {
    return { hidden: f.hidden.filter((k) => k !== "tools"), hiddenTools: f.hiddenTools.filter((t) => t !== name) };
  }
  return { ...f, hiddenTools: [...f.hiddenTools, name] };
}

/** Only `name` among `all` tools shown (and the tool calls on). */
export function onlyTool(f: OutputFilter, name: string, all: readonly string[]): OutputFilter {
  return { hidden: f.hidden.filter((k) => k !== "tools"), hiddenTools: all.filter((t) => t !== name) };
}

/** Every tool shown again (the kinds stay as they are). */
export function allTools(f: OutputFilter): OutputFilter {
  return f.hiddenTools.length === 0 ? f : { ...f, hiddenTools: [] };
}
