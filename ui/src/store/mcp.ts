/**
 * The settings screen's MCP servers: the last report for a workspace (servers
 * with their state and tools, problems, files read), and whether a request is
 * under way or failed. Filled by the actions in ipc/mcp.ts.
 */
import type { McpReport } from "../bindings";
import { createStore } from "./store";

export interface McpServersState {
  /** The workspace the report (or the request under way) is for; null for none. */
  workspace: string | null;
  report: McpReport | null;
  loading: boolean;
  /** The request under way restarts every server ("Check again"). */
  fresh: boolean;
  error: string | null;
  /** Which request's answer is current (older answers are dropped). */
  request: number;
}

export function initialMcp(): McpServersState {
  return { workspace: null, report: null, loading: false, fresh: false, error: null, request: 0 };
}

export const mcpStore = createStore<McpServersState>(initialMcp());

export function patchMcp(patch: Partial<McpServersState>): void {
  mcpStore.set((s) => ({ ...s, ...patch }));
}
