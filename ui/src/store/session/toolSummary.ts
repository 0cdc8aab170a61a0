/** The one-line summary of a tool call that the tree shows under an agent ("Read src/main.rs"). */
import { GENERAL_PURPOSE, type Value } from "../../bindings";
import { firstStringArg, parseMcpTool } from "../../lib/mcp";

const clip = (line: string): string => (line.length > 80 ? `${line.slice(0, 79)}…` : line);

/**
 * A short, one-line summary of a tool call's arguments ("Read src/main.rs");
 * an MCP tool as "everything · echo" and its first string argument.
 */
export function toolSummary(toolName: string, args: Value): string {
  const mcp = parseMcpTool(toolName);
  if (mcp) {
    const label = `${mcp.server} · ${mcp.tool}`;
    const first = firstStringArg(args);
    return first ? `${label} ${clip(first)}` : label;
  }
  const a = args !== null && typeof args === "object" && !Array.isArray(args) ? args : {};
  const str = (k: string): string | null => {
    const v = a[k];
    return typeof v === "string" ? v : null;
  };
  // A Task call's own description would put the child's label on the parent's row.
  if (toolName === "Task") return `Task ${str("subagent_type") ?? GENERAL_PURPOSE}`;
  const first = str("file_path") ?? str("command") ?? str("pattern") ?? str("path") ?? str("task_id") ?? str("description");
  if (!first) return toolName;
  const line = first.split("\n", 1)[0] ?? "";
  return `${toolName} ${clip(line)}`;
}
