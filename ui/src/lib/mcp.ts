/**
 * MCP tool servers as a person reads them: a model tool name
 * (`mcp__<server>__<tool>`) split into server and tool, an agent's connection
 * status line, and the settings screen's labels for a configured server and
 * its tools. Pure; tested without Tauri.
 */
import type { McpServerInfo, McpSource, McpState, Value } from "../bindings";

export const MCP_PREFIX = "mcp__";

export interface McpToolName {
  server: string;
  tool: string;
}

/**
 * The server and tool of an MCP tool's model name, or null for a built-in
 * tool. The server part ends at the first `__` after the prefix (the backend
 * reduces server names to letters, digits, `_` and `-`).
 */
export function parseMcpTool(name: string): McpToolName | null {
  if (!name.startsWith(MCP_PREFIX)) return null;
  const rest = name.slice(MCP_PREFIX.length);
  const at = rest.indexOf("__");
  if (at <= 0) return null;
  const tool = rest.slice(at + 2);
  if (tool === "") return null;
  return { server: rest.slice(0, at), tool };
}

export function isMcpTool(name: string | null | undefined): boolean {
  return typeof name === "string" && parseMcpTool(name) !== null;
}

/** "everything · echo" for `mcp__everything__echo`; any other name as it is. */
export function toolDisplayName(name: string): string {
  const mcp = parseMcpTool(name);
  return mcp ? `${mcp.server} · ${mcp.tool}` : name;
}

/** The first line of an MCP tool's first string argument, for a one-line summary. */
export function firstStringArg(args: Value): string | null {
  if (args === null || typeof args !== "object" || Array.isArray(args)) return null;
  for (const v of Object.values(args)) {
    if (typeof v === "string" && v.trim() !== "") return v.split("\n", 1)[0] ?? "";
  }
  return null;
}

/** The part of a server's status line an output row shows. */
export interface McpStatusView {
  /** A failure is shown as an error row; the rest are dimmed notes. */
  failed: boolean;
  text: string;
}

/**
 * "MCP everything started (pid 123)", "… · stopped" once closed, "MCP web
 * connected" for a server without a process, "MCP everything failed: <why>".
 */
export function mcpStatusText(server: string, state: McpState, pid: number | null, error: string | null): McpStatusView {
  if (state === "failed") return { failed: true, text: `MCP ${server} failed: ${error ?? "unknown error"}` };
  const started = pid !== null ? `MCP ${server} started (pid ${pid})` : `MCP ${server} connected`;
  return { failed: false, text: state === "closed" ? `${started} · stopped` : started };
}

/** The server name as the backend puts it into tool names. */
function cleanPart(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** A configured server's tool without the `mcp__<server>__` prefix ("echo"). */
export function mcpToolShortName(server: string, name: string): string {
  const prefix = `${MCP_PREFIX}${cleanPart(server)}__`;
  if (name.startsWith(prefix) && name.length > prefix.length) return name.slice(prefix.length);
  return parseMcpTool(name)?.tool ?? name;
}

/** The first non-empty line of a tool's description. */
export function firstLine(text: string): string {
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t !== "") return t;
  }
  return "";
}

/** Where a server is configured, for the settings list. */
export function mcpSourceLabel(source: McpSource): { text: string; path: string | null } {
  switch (source.kind) {
    case "workspace":
      return { text: "Workspace .mcp.json", path: source.path };
    case "file":
      return { text: "Config file", path: source.path };
    case "agent":
      return { text: `Agent type ${source.agent_type} only`, path: null };
  }
}

/** The state badge of a configured server. */
export function mcpStateLabel(server: Pick<McpServerInfo, "state" | "tools">): string {
  switch (server.state) {
    case "unchecked":
      return "not checked";
    case "ready": {
      const n = server.tools.length;
      return `ready · ${n} tool${n === 1 ? "" : "s"}`;
    }
    case "failed":
      return "failed";
  }
}

/** A short example of the workspace file, for the empty state. */
export const MCP_EXAMPLE = `{
  "mcpServers": {
    "everything": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-everything"]
    }
  }
}`;
