/**
 * The per-tool approval policy as settings store it (Settings.approvals: only
 * the tools a person set differently from their default), and "Ask before
 * starting subagents", which is nothing but the Task tool's entry there.
 * Pure; tested without Tauri.
 */
import { TASK_TOOL, type ApprovalChoice, type ToolInfo } from "../bindings";

export type Approvals = Readonly<Record<string, ApprovalChoice>>;

// A tool the backend did not list (say, before the app state arrives) runs
// without asking unless set: that is Task's default too.
const UNLISTED_DEFAULT: ApprovalChoice = "allow";

function defaultFor(tools: readonly ToolInfo[], name: string): ApprovalChoice {
  return tools.find((t) => t.name === name)?.default ?? UNLISTED_DEFAULT;
}

/** What applies to a tool's calls: the setting, else the tool's default. */
export function toolChoice(approvals: Approvals | undefined, tools: readonly ToolInfo[], name: string): ApprovalChoice {
  return approvals?.[name] ?? defaultFor(tools, name);
}

/**
 * The approvals with one tool's choice changed. A choice equal to the tool's
 * default is dropped rather than stored, so the tool follows its default if
 * that ever changes (as the settings file has always been written).
 */
export function withToolChoice(
  approvals: Approvals | undefined,
  tools: readonly ToolInfo[],
  name: string,
  choice: ApprovalChoice,
): Record<string, ApprovalChoice> {
  const next = { ...approvals };
  if (choice === defaultFor(tools, name)) delete next[name];
  else next[name] = choice;
  return next;
}

/** Each Task call waits for the person (an editable card) before its subagent starts. */
export function asksBeforeSpawning(approvals: Approvals | undefined, tools: readonly ToolInfo[]): boolean {
  return toolChoice(approvals, tools, TASK_TOOL) === "ask";
}

/** On: Task = ask. Off: Task's default (or allow, should its default ever be ask). */
export function withAskBeforeSpawning(
  approvals: Approvals | undefined,
  tools: readonly ToolInfo[],
  ask: boolean,
): Record<string, ApprovalChoice> {
  const fallback = defaultFor(tools, TASK_TOOL);
  const off: ApprovalChoice = fallback === "ask" ? "allow" : fallback;
  return withToolChoice(approvals, tools, TASK_TOOL, ask ? "ask" : off);
}
