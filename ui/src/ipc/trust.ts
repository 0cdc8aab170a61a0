/**
 * Workspace MCP trust before a start. A workspace's `.mcp.json` can name any
 * command, so the backend starts its servers only once a person trusted the
 * file (as it is now). Before starting or resuming a session in a workspace
 * whose file is not trusted, the person is asked: trust and start, start
 * without them, or cancel. No file, or a trusted one: nothing is asked.
 */
import { commands, type WorkspaceMcp } from "../bindings";
import { askTrust } from "../store/trust";
import { pushError } from "../store/ui";

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The workspace's file as the backend sees it; null when it has none or it could not be read. */
async function readWorkspaceMcp(workspace: string): Promise<WorkspaceMcp | null> {
  try {
    return await commands.workspaceMcp(workspace);
  } catch {
    // Nothing to ask about; the backend still leaves untrusted servers out, and
    // says so in the session's warnings.
    return null;
  }
}

/**
 * Asks about the workspace's `.mcp.json` when it is not trusted, and trusts it
 * when the person says so. True: go on and start (with or without its
 * servers); false: start nothing (cancelled, or trusting failed, shown as a banner).
 */
export async function confirmWorkspaceMcp(workspace: string): Promise<boolean> {
  if (!workspace) return true;
  const mcp = await readWorkspaceMcp(workspace);
  if (mcp === null || mcp.trusted) return true;
  const answer = await askTrust(mcp);
  if (answer === "cancel") return false;
  if (answer === "skip") return true;
  try {
    const r = await commands.trustWorkspaceMcp(workspace, mcp.sha256);
    if (r.status === "ok") return true;
    pushError(`Could not trust ${mcp.path}: ${r.error.message}`);
  } catch (e) {
    pushError(`Could not trust ${mcp.path}: ${message(e)}`);
  }
  return false;
}
