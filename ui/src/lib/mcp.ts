/**
 * MCP tool servers as a person reads them: an MCP tool call's name ("server ·
 * tool", from the server and tool its event names), an agent's connection
 * status line, the settings screen's labels for a configured server and
 * its tools, and the command line a workspace's server would run. Pure;
 * tested without Tauri. Which tool is whose comes from Rust (McpToolRef,
 * McpToolInfo.tool); no model tool name is taken apart here.
 */
import type { McpServerInfo, McpSource, McpState, McpToolRef, ServerLaunch, Value } from "../bindings";

/** "everything · echo" for a call of that server's `echo`; a built-in tool (no `mcp`) by its name as it is. */
export function toolDisplayName(name: string, mcp: McpToolRef | null): string {
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
    case "client":
      return { text: `Given by ${source.client} (ACP)`, path: null };
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

/** A word of a command line as a shell would need it: quoted when it has spaces or shell characters. */
function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * What starting a server runs, in full, for a person deciding whether to
 * trust it: the command and its arguments (quoted so every word boundary
 * shows), or the URL of a server without a process.
 */
export function launchLine(server: ServerLaunch): string {
  if (server.transport !== "stdio") return server.command;
  return [server.command, ...server.args].map(shellWord).join(" ");
}
