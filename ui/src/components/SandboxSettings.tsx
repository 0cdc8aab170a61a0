/**
 * Settings' "Sandbox" section: "Run sandboxed commands without asking"
 * offered first (only when something is sandboxed), whether this machine can
 * sandbox commands at all, the mode new sessions start with, network, and the
 * extra directories commands may write to (one per line). It edits the
 * settings draft; Save stores it with the rest.
 */
import { useState } from "react";
import { SANDBOX_MODES, type SandboxAvailability, type SandboxSettings } from "../bindings";
import {
  autoRunBlocked,
  availabilityText,
  isSandboxMode,
  modeOptionText,
  parseWriteList,
  withSandbox,
  writeListText,
} from "../lib/sandbox";
import { IconAlert, IconShield } from "./icons";

export function SandboxSettingsCard(props: {
  sandbox: SandboxSettings | undefined;
  availability: SandboxAvailability;
  onChange: (next: SandboxSettings) => void;
}) {
  const { sandbox, availability, onChange } = props;
  // What the person typed in the list (a new, empty line is kept while it means the same list).
  const [typed, setTyped] = useState(() => (sandbox?.write ?? []).join("\n"));
  const status = availabilityText(availability);
  const blocked = autoRunBlocked(availability, sandbox?.mode);
  const off = sandbox?.mode === "off";
  const set = (patch: Partial<SandboxSettings>) => onChange(withSandbox(sandbox, patch));
  const writeText = writeListText(typed, sandbox?.write);

  return (
    <section className="card" id="settings-sandbox" aria-labelledby="sandbox-h">
      <h2 id="sandbox-h">Sandbox</h2>
      <div className="card-body">
        <label className={`checkbox sandbox-auto${blocked ? " blocked" : ""}`}>
          <input
            type="checkbox"
            data-testid="settings-sandbox-auto"
            disabled={blocked !== null}
            checked={blocked === null && (sandbox?.run_sandboxed_without_asking ?? false)}
            onChange={(e) => set({ run_sandboxed_without_asking: e.target.checked })}
          />
          <span>
            <strong>Run sandboxed commands without asking</strong>
            <span className="hint">The sandbox, not you, holds them; other calls still ask.</span>
            {blocked ? (
              <span className="hint sandbox-blocked" data-testid="settings-sandbox-auto-blocked">
                {blocked}
              </span>
            ) : null}
          </span>
        </label>

        <div
          className={status.ok ? "sandbox-status" : "inline-warn"}
          data-testid="settings-sandbox-status"
          data-ok={status.ok}
          role={status.ok ? undefined : "alert"}
        >
          {status.ok ? <IconShield size={13} /> : <IconAlert size={13} />}
          <span>{status.text}</span>
        </div>

        <div className="grid-2 sandbox-row">
          <label className="field">
            <span className="label">Mode</span>
            <select
              className="select"
              data-testid="settings-sandbox-mode"
              value={sandbox?.mode ?? ""}
              onChange={(e) => {
                if (isSandboxMode(e.target.value)) set({ mode: e.target.value });
              }}
            >
              {sandbox?.mode === undefined ? (
                <option value="" disabled>
                  Default
                </option>
              ) : null}
              {SANDBOX_MODES.map((m) => (
                <option key={m} value={m}>
                  {modeOptionText(m)}
                </option>
              ))}
            </select>
            <span className="hint">How new sessions' commands are held; subagents start from it.</span>
          </label>
          <div className="field">
            <span className="label">Network</span>
            <label className="checkbox">
              <input
                type="checkbox"
                data-testid="settings-sandbox-network"
                disabled={off}
                checked={sandbox?.network ?? false}
                onChange={(e) => set({ network: e.target.checked })}
              />
              <span>Allow network</span>
            </label>
            <span className="hint">
              {off ? "With the sandbox off, commands reach the network anyway." : "Sandboxed commands may open connections."}
            </span>
          </div>
        </div>

        <label className="field">
          <span className="label">Also writable</span>
          <textarea
            className="textarea mono"
            data-testid="settings-sandbox-write"
            rows={3}
            disabled={off}
            placeholder={"~/.cache/pip\n/opt/build"}
            value={writeText}
            spellCheck={false}
            onChange={(e) => {
              setTyped(e.target.value);
              set({ write: parseWriteList(e.target.value) });
            }}
          />
          <span className="hint">
            Directories commands may write to besides the workspace and a private /tmp: one per line, absolute or ~/….
          </span>
        </label>
      </div>
    </section>
  );
}
