/**
 * MCP servers through the backend: the servers a session in the workspace
 * would have, with their tools. Listing may start each server once, so it can
 * take a few seconds; `fresh` starts every one again ("Check again").
 */
import { commands } from "../bindings";
import { mcpStore, patchMcp } from "../store/mcp";
import { attempt } from "./actions";

export async function loadMcpServers(workspace: string | null, fresh = false): Promise<void> {
  const s = mcpStore.get();
  const request = s.request + 1;
  // Another workspace's servers are not this one's: do not show them meanwhile.
  const report = s.workspace === workspace ? s.report : null;
  patchMcp({ workspace, report, loading: true, fresh, error: null, request });
  const r = await attempt(() => commands.mcpServers(workspace, fresh));
  if (mcpStore.get().request !== request) return;
  if (r.ok) patchMcp({ loading: false, report: r.data });
  else patchMcp({ loading: false, error: r.message });
}
