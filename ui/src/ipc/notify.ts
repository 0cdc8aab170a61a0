/**
 * Desktop notifications for approvals that arrive while the window is not
 * focused. Permission is asked the first time one is needed; any failure
 * (no notification daemon, permission refused) is ignored.
 */
import { isPermissionGranted, requestPermission, sendNotification } from "@tauri-apps/plugin-notification";
import type { AgentEvent } from "../bindings";
import { pathLabel } from "../store/selectors";

let permission: Promise<boolean> | null = null;

async function allowed(): Promise<boolean> {
  permission ??= (async () => {
    if (await isPermissionGranted()) return true;
    return (await requestPermission()) === "granted";
  })().catch(() => false);
  return permission;
}

export function notifyApprovals(events: readonly AgentEvent[]): void {
  if (typeof document === "undefined" || document.hasFocus()) return;
  const requests = events.filter((e) => e.type === "approval_request");
  const last = requests.at(-1);
  if (!last || last.type !== "approval_request") return;
  const more = requests.length > 1 ? ` (+${requests.length - 1} more)` : "";
  const body = `${pathLabel(last.agent_path)} wants to run ${last.tool_name}${more}`;
  void allowed()
    .then((ok) => {
      if (ok) sendNotification({ title: "Arbor: approval needed", body });
    })
    .catch(() => undefined);
}
