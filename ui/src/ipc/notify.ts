/**
 * Desktop notifications for approvals that arrive while the window is not
 * focused. Permission is asked the first time one is needed; any failure
 * (no notification daemon, permission refused) is ignored.
 *
 * Clicking a notification raises the window; the notification plugin tells
 * a desktop app nothing of the click itself, so the oldest request notified
 * while the window was away is kept until it has the focus again, and its
 * card is then brought into view (ipc/approvals.ts).
 */
import { isPermissionGranted, requestPermission, sendNotification } from "@tauri-apps/plugin-notification";
import type { AgentEvent } from "../bindings";
import { toolDisplayName } from "../lib/mcp";
import { sessionName } from "../store/approvals";
import { approvalMcp, pathLabel } from "../store/selectors";
import type { SessionState } from "../store/session/types";

let permission: Promise<boolean> | null = null;
/** The oldest request notified while the window was away, until it is focused again. */
let notified: string | null = null;

/** That request, once: the next call returns null until another is notified. */
export function takeNotified(): string | null {
  const id = notified;
  notified = null;
  return id;
}

async function allowed(): Promise<boolean> {
  permission ??= (async () => {
    if (await isPermissionGranted()) return true;
    return (await requestPermission()) === "granted";
  })().catch(() => false);
  return permission;
}

/**
 * `state` is the session after `events`: it holds the tool call a request is
 * about (an MCP tool is named as the inbox names it). A session the window
 * does not show (`away`) is notified even while the window has the focus, and
 * named: the person is looking at another one.
 */
export function notifyApprovals(events: readonly AgentEvent[], state: SessionState, away: boolean): void {
  if (typeof document === "undefined" || (document.hasFocus() && !away)) return;
  const requests = events.filter((e) => e.type === "approval_request");
  const last = requests.at(-1);
  if (!last || last.type !== "approval_request") return;
  const more = requests.length > 1 ? ` (+${requests.length - 1} more)` : "";
  const tool = toolDisplayName(last.tool_name, approvalMcp(state, { agentId: last.agent_id, callId: last.call_id }));
  const where = away ? ` in ${sessionName(state)}` : "";
  const body = `${pathLabel(last.agent_path)} wants to run ${tool}${where}${more}`;
  // The oldest notified since the window lost the focus: the inbox lists it first.
  notified ??= requests[0]?.type === "approval_request" ? requests[0].request_id : last.request_id;
  void allowed()
    .then((ok) => {
      if (ok) sendNotification({ title: "Arbor: approval needed", body });
    })
    .catch(() => undefined);
}
