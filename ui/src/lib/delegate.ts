/**
 * The Delegate… form's rules, pure and tested without Tauri: the permission
 * modes it offers in words, what "Limit this agent" sends (only what the
 * person narrowed), what a Task call prefills, and the Shift+D shortcut.
 */
import { DELEGATION_PERMISSION_MODES, type Value } from "../bindings";

export type DelegationMode = (typeof DELEGATION_PERMISSION_MODES)[number];

/** Each mode a delegation may ask for (Rust's list), in words. */
export const DELEGATION_MODE_LABELS: Readonly<Record<DelegationMode, string>> = {
  default: "Same as its parent",
  plan: "Read-only: refuse anything that changes something",
  dontAsk: "Never ask: refuse whatever would ask for approval",
};

/**
 * The tools to send: null while every tool is ticked (the agent gets what its
 * type gives it), else the ticked ones in the list's order.
 */
export function narrowedTools(all: readonly string[], unticked: ReadonlySet<string>): string[] | null {
  if (!all.some((t) => unticked.has(t))) return null;
  return all.filter((t) => !unticked.has(t));
}

/** "All tools" or "3 of 9 tools", and the mode when it is not the parent's, for the folded section. */
export function limitSummary(all: readonly string[], unticked: ReadonlySet<string>, mode: DelegationMode): string {
  const ticked = all.filter((t) => !unticked.has(t)).length;
  const tools = ticked === all.length ? "all tools" : `${ticked} of ${all.length} tools`;
  const modes: Record<DelegationMode, string> = { default: "parent's approvals", plan: "read-only", dontAsk: "never asks" };
  return `${tools} · ${modes[mode]}`;
}

/** What "Delegate similar…" on a Task card fills in: that call's prompt and agent type. */
export interface DelegatePrefill {
  prompt: string;
  subagentType: string | null;
}

export function taskPrefill(args: Value): DelegatePrefill {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return { prompt: "", subagentType: null };
  const prompt = args.prompt;
  const type = args.subagent_type;
  return {
    prompt: typeof prompt === "string" ? prompt : "",
    subagentType: typeof type === "string" && type.trim() !== "" ? type : null,
  };
}

/** The agent type the form starts on: the prefilled one when the session offers it, else general-purpose. */
export function initialType(prefilled: string | null | undefined, offered: readonly string[], fallback: string): string {
  return prefilled && offered.includes(prefilled) ? prefilled : fallback;
}

/** Shift+D, with no other modifier. */
export function isDelegateShortcut(e: Pick<KeyboardEvent, "key" | "shiftKey" | "ctrlKey" | "metaKey" | "altKey">): boolean {
  return e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey && e.key.toLowerCase() === "d";
}

