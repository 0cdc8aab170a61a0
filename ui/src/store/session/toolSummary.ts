/** The one-line summary of a tool call that the tree shows under an agent ("Read src/main.rs"). */
import { GENERAL_PURPOSE, TASK_TOOL, type McpToolRef, type Value } from "../../bindings";
import { firstStringArg, toolDisplayName } from "../../lib/mcp";

const clip = (line: string): string => (line.length > 80 ? `${line.slice(0, 79)}…` : line);

/**
 * A short, one-line summary of a tool call's arguments ("Read src/main.rs");
 * an MCP tool (`mcp`, as its tool_call names it) as "everything · echo" and
 * its first string argument.
 */
export function toolSummary(toolName: string, args: Value, mcp: McpToolRef | null): string {
  if (mcp) {
    const label = toolDisplayName(toolName, mcp);
    const first = firstStringArg(args);
    return first ? `${label} ${clip(first)}` : label;
  }
  const a = args !== null && typeof args === "object" && !Array.isArray(args) ? args : {};
  const str = (k: string): string | null => {
    const v = a[k];
    return typeof v === "string" ? v : null;
  };
  // A Task call's own description would put the child's label on the parent's row.
  if (toolName === TASK_TOOL) return a.fork === true ? "Task fork" : `Task ${str("subagent_type") ?? GENERAL_PURPOSE}`;
  const first = str("file_path") ?? str("command") ?? str("pattern") ?? str("path") ?? str("task_id") ?? str("description");
  if (!first) return toolName;
  const line = first.split("\n", 1)[0] ?? "";
  return `${toolName} ${clip(line)}`;
}
