/**
 * "Start this workspace's MCP servers?": asked before a session starts in a
 * workspace whose `.mcp.json` is not trusted, since the file can name any
 * command. It shows exactly what would run (the full command line or URL,
 * and the names, never the values, of the variables each server sets). The
 * default button starts without them, so Enter never trusts by accident.
 * Also the server list the settings' MCP section shows for an untrusted file.
 */
import type { HookLaunch, ServerLaunch } from "../bindings";
import { launchLine } from "../lib/mcp";
import { useStore } from "../store/store";
import { trustStore } from "../store/trust";
import { IconAlert } from "./icons";
import { Modal } from "./Modal";

export function McpTrustDialog() {
  const question = useStore(trustStore, (q) => q);
  if (!question) return null;
  const { mcp, answer } = question;
  const n = mcp.servers.length;
  const h = mcp.hooks.length;
  const what = [n > 0 ? (n === 1 ? "this server" : `these ${n} servers`) : null, h > 0 ? (h === 1 ? "this hook" : `these ${h} hooks`) : null]
    .filter((w) => w !== null)
    .join(" and ");
  return (
    <Modal
      title={h > 0 ? "Run this workspace's commands?" : "Start this workspace's MCP servers?"}
      onClose={() => answer("cancel")}
      testId="mcp-trust-dialog"
    >
      <div className="modal-body">
        <div className="trust-file">
          <span className="hint">{h > 0 && n === 0 ? "This workspace's settings" : "This workspace's MCP file"}</span>
          <code className="mono trust-path">{mcp.path}</code>
        </div>
        {mcp.changed_since_trusted ? (
          <div className="inline-warn" data-testid="mcp-trust-changed">
            <IconAlert size={12} /> <span>It changed since you trusted it: read it again before trusting it.</span>
          </div>
        ) : null}
        <p className="trust-why muted">
          It asks Arbor to run {what} on your computer, with your access to files and the network{h > 0 ? " (hooks run outside the agents' sandbox, as in Claude Code)" : ""}. Trust it only if you know where this workspace comes from.
        </p>
        {n > 0 || h === 0 ? <LaunchList servers={mcp.servers} /> : null}
        {h > 0 ? <HookLaunchList hooks={mcp.hooks} /> : null}
        {mcp.allows.length > 0 ? (
          <div className="trust-allows" data-testid="mcp-trust-allows">
            <div className="hint">Its settings also let these run without asking you:</div>
            <ul className="launch-list">
              {mcp.allows.map((a, i) => (
                <li key={`${a.defined_in}/${i}`} className="launch" data-testid="mcp-trust-allow">
                  <code className="mono launch-line">{a.rule}</code>
                  <span className="hint">in {a.defined_in}</span>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      <div className="modal-foot">
        <button type="button" className="btn" data-testid="mcp-trust-cancel" onClick={() => answer("cancel")}>
          Cancel
        </button>
        <button
          type="button"
          className="btn"
          data-testid="mcp-trust-skip"
          data-autofocus
          title={h > 0 ? "Start the session; these servers and hooks are left out" : "Start the session; these servers are left out"}
          onClick={() => answer("skip")}
        >
          Start without them
        </button>
        <button
          type="button"
          className="btn primary"
          data-testid="mcp-trust-accept"
          title="Remember this file as trusted (until it changes) and start its servers"
          onClick={() => answer("trust")}
        >
          Trust and start
        </button>
      </div>
    </Modal>
  );
}

/** Each hook the workspace defines: its event and matcher, the command it runs, the file it is in. */
export function HookLaunchList({ hooks }: { hooks: readonly HookLaunch[] }) {
  return (
    <ul className="launch-list">
      {hooks.map((h, i) => (
        <li key={`${h.defined_in}/${h.event}/${i}`} className="launch" data-testid="mcp-trust-hook" data-event={h.event}>
          <div className="launch-head">
            <span className="name">{h.event} hook</span>
            {h.matcher ? <span className="badge">{h.matcher}</span> : null}
            <span className="hint">in {h.defined_in}</span>
          </div>
          <code className="mono launch-line" title="Command">
            {h.command}
          </code>
        </li>
      ))}
    </ul>
  );
}

/** Each server of the file: its name, what it runs, the variables it sets; `state` badges them (settings). */
export function LaunchList({ servers, state }: { servers: readonly ServerLaunch[]; state?: string }) {
  if (servers.length === 0) return <div className="hint">The file names no servers.</div>;
  return (
    <ul className="launch-list">
      {servers.map((s) => (
        <li key={`${s.defined_in}/${s.name}`} className="launch" data-testid="mcp-trust-server" data-server={s.name}>
          <div className="launch-head">
            <span className="name">{s.name}</span>
            <span className="badge">{s.transport}</span>
            {s.defined_in !== ".mcp.json" ? <span className="hint">in {s.defined_in}</span> : null}
            {state ? <span className="badge launch-state">{state}</span> : null}
          </div>
          <code className="mono launch-line" title={s.transport === "stdio" ? "Command line" : "URL"}>
            {launchLine(s)}
          </code>
          {s.env_names.length > 0 ? (
            <div className="hint launch-env">
              Sets{" "}
              {s.env_names.map((name, i) => (
                <span key={name}>
                  {i > 0 ? ", " : null}
                  <code className="mono">{name}</code>
                </span>
              ))}
            </div>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
