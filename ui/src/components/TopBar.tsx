/**
 * The window's top bar: workspace, provider and model for a new session, what
 * the live session's commands run in (its sandbox badge), history, settings.
 */
import type { ProviderKind } from "../bindings";
import { chooseProvider, newSession, pickWorkspace } from "../ipc/actions";
import { bookStore } from "../store/review";
import { liveSession } from "../store/sessionStore";
import { useStore } from "../store/store";
import { patchUi, toggleHistory, uiStore } from "../store/ui";
import { IconFolder, IconGear, IconHistory, IconPlus, IconTree } from "./icons";
import { SandboxBadge } from "./Sandbox";

export function Brand() {
  return (
    <div className="brand">
      <IconTree size={16} /> Arbor
    </div>
  );
}

export function SettingsButton() {
  const view = useStore(uiStore, (s) => s.view);
  return (
    <button
      type="button"
      className={`btn ${view === "settings" ? "" : "ghost"} icon-btn`}
      data-testid="open-settings"
      title="Settings"
      aria-label="Settings"
      aria-pressed={view === "settings"}
      onClick={() => patchUi({ view: view === "settings" ? "session" : "settings" })}
    >
      <IconGear size={15} />
    </button>
  );
}

/** Opens the stored sessions (also Ctrl/Cmd+H); counts the live session's approvals waiting meanwhile. */
export function HistoryButton() {
  const open = useStore(uiStore, (s) => s.view === "history");
  const waiting = useStore(liveSession, (s) => s.pending.length);
  const note = waiting > 0 ? ` · ${waiting} approval${waiting === 1 ? "" : "s"} waiting in the live session` : "";
  return (
    <button
      type="button"
      className={`btn ${open ? "" : "ghost"}`}
      data-testid="history-button"
      title={`Stored sessions and transcript search (Ctrl+H)${note}`}
      aria-pressed={open}
      onClick={toggleHistory}
    >
      <IconHistory size={14} /> History
      {waiting > 0 ? (
        <span className="btn-count hot" data-testid="history-approvals" aria-label={`${waiting} approvals waiting`}>
          {waiting}
        </span>
      ) : null}
    </button>
  );
}

export function TopBar() {
  const app = useStore(uiStore, (s) => s.app);
  const workspace = useStore(uiStore, (s) => s.workspace);
  const provider = useStore(uiStore, (s) => s.provider);
  const model = useStore(uiStore, (s) => s.model);
  const session = useStore(uiStore, (s) => s.session);
  const reviewing = useStore(bookStore, (b) => b.review !== null);
  const providers = app?.providers ?? [];
  const current = providers.find((p) => p.kind === provider);
  const forNew = session ? " (used by the next new session)" : "";
  return (
    <header className="topbar">
      <Brand />
      <div className="workspace">
        <span className="path-chip" data-testid="workspace-path" title={`Workspace: ${workspace}${forNew}`}>
          <bdi>{workspace || "No workspace chosen"}</bdi>
        </span>
        <button
          type="button"
          className="btn"
          data-testid="pick-workspace"
          title="Choose the workspace folder"
          onClick={() => void pickWorkspace()}
        >
          <IconFolder size={13} /> Choose…
        </button>
      </div>
      {/* The live session's; a past session under review runs nothing. */}
      {session && !reviewing ? <SandboxBadge sandbox={session.sandbox} /> : null}
      <select
        className="select"
        data-testid="provider-select"
        aria-label="Provider"
        title={`Provider${forNew}`}
        value={provider}
        onChange={(e) => chooseProvider(e.target.value as ProviderKind)}
      >
        {providers.map((p) => (
          <option key={p.kind} value={p.kind}>
            {p.label}
            {p.ready ? "" : " (not set up)"}
          </option>
        ))}
      </select>
      <input
        className="input model"
        data-testid="model-input"
        aria-label="Model"
        title={`Model${forNew}`}
        placeholder={current?.default_model ?? "model"}
        value={model}
        onChange={(e) => patchUi({ model: e.target.value })}
        spellCheck={false}
      />
      {session || reviewing ? (
        <button
          type="button"
          className="btn"
          data-testid="new-session"
          title="Clear this window so the next prompt starts a new session"
          onClick={newSession}
        >
          <IconPlus size={12} /> New session
        </button>
      ) : null}
      <HistoryButton />
      <SettingsButton />
    </header>
  );
}
