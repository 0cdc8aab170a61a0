/**
 * What commands run in, shown where a person decides: a Bash approval card's
 * line (sandboxed, with what; or a warning that it is not), and the session's
 * badge in the top bar. The words are lib/sandbox's; a shield only ever
 * appears for a command the OS holds.
 */
import type { CommandSandbox } from "../bindings";
import { describeSandbox } from "../lib/sandbox";
import { IconAlert, IconShield } from "./icons";

/** An approval card's line: "Sandboxed · workspace · network off · writes: …", or "NOT sandboxed: <why>". */
export function SandboxLine({ sandbox }: { sandbox: CommandSandbox }) {
  const v = describeSandbox(sandbox);
  return (
    <div
      className={`sandbox-line ${v.protected ? "held" : "open"}`}
      data-testid="approval-sandbox"
      data-state={sandbox.state}
      title={v.detail}
      role={v.protected ? undefined : "note"}
    >
      {v.protected ? <IconShield size={13} /> : <IconAlert size={13} />}
      <span>{v.label}</span>
    </div>
  );
}

/** The session's badge: what the main agent's commands run in, the details in its tooltip. */
export function SandboxBadge({ sandbox }: { sandbox: CommandSandbox }) {
  const v = describeSandbox(sandbox);
  return (
    <span
      className={`sandbox-badge ${v.protected ? "held" : "open"}`}
      data-testid="session-sandbox"
      data-state={sandbox.state}
      title={v.detail}
    >
      {v.protected ? <IconShield size={12} /> : <IconAlert size={12} />}
      {v.short}
    </span>
  );
}
