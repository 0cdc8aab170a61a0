/**
 * MCP servers through the backend: the servers a session in the workspace
 * would have, with their tools. Listing may start each server once, so it can
 * take a few seconds; `fresh` starts every one again ("Check again"). And
 * trusting or untrusting the workspace's `.mcp.json` from the settings.
 */
import { commands } from "../bindings";
import { mcpStore, patchMcp } from "../store/mcp";
import { attempt, type Outcome } from "./actions";

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

/**
 * Trusts the workspace's servers as the person saw them (`sha256` of what was
 * shown; refused if they changed since), then lists the servers again: they
 * are started and listed from then on.
 */
export async function trustWorkspaceServers(workspace: string, sha256: string): Promise<Outcome<null>> {
  const r = await attempt(() => commands.trustWorkspaceMcp(workspace, sha256));
  if (!r.ok) return r;
  await loadMcpServers(workspace, false);
  return { ok: true, data: null };
}

/** Withdraws that trust, then lists the servers again (the file's are no longer among them). */
export async function untrustWorkspaceServers(workspace: string): Promise<Outcome<null>> {
  const r = await attempt(() => commands.untrustWorkspaceMcp(workspace));
  if (!r.ok) return r;
  await loadMcpServers(workspace, false);
  return { ok: true, data: null };
}
