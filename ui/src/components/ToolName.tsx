/**
 * A tool's name as a person reads it: a built-in tool by its name, an MCP
 * tool (its tool_call names the server and tool) as an "MCP" tag and
 * "server · tool". A call without `mcp` (a built-in, or an old stored
 * transcript) shows its name as it is: the name is never taken apart here.
 */
import type { McpToolRef } from "../bindings";
import { toolDisplayName } from "../lib/mcp";

export function ToolName({ name, mcp, className }: { name: string; mcp: McpToolRef | null; className?: string }) {
  if (!mcp) return <span className={className}>{name}</span>;
  return (
    <>
      <span className="badge mcp-tag" title={`MCP tool ${name}`}>
        MCP
      </span>
      <span className={className} title={name} data-testid="mcp-tool-name">
        {toolDisplayName(name, mcp)}
      </span>
    </>
  );
}
