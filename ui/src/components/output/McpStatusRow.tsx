/** A line about the agent's connection to an MCP server: started, stopped, or failed (as an alert). */
import type { McpItem } from "../../store/session/types";
import { mcpStatusText } from "../../lib/mcp";
import { IconAlert, IconPlug } from "../icons";

export function McpStatusRow({ item }: { item: McpItem }) {
  const view = mcpStatusText(item.server, item.state, item.pid, item.error);
  return (
    <div
      className={`mcp-status${view.failed ? " failed" : ""}`}
      data-testid="mcp-status"
      data-server={item.server}
      data-state={item.state}
      role={view.failed ? "alert" : undefined}
    >
      {view.failed ? <IconAlert size={12} /> : <IconPlug size={12} />}
      <span>{view.text}</span>
    </div>
  );
}
