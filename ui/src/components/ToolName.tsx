/**
 * A tool's name as a person reads it: built-in tools by name, MCP tools
 * (`mcp__<server>__<tool>`) as an "MCP" tag and "server · tool".
 */
import { parseMcpTool } from "../lib/mcp";

export function ToolName({ name, className }: { name: string; className?: string }) {
  const mcp = parseMcpTool(name);
  if (!mcp) return <span className={className}>{name}</span>;
  return (
    <>
      <span className="badge mcp-tag" title={`MCP tool ${name}`}>
        MCP
      </span>
      <span className={className} title={name} data-testid="mcp-tool-name">
        {mcp.server} · {mcp.tool}
      </span>
    </>
  );
}
