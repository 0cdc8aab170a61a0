/**
 * The window's top bar. While a session runs: what it runs in (its workspace,
 * provider and model as Rust reported them, the demo's sample project and
 * scripted model included; its sandbox badge). Otherwise: the workspace,
 * provider and model the next session takes. Then New session (always there,
 * disabled with the reason when there is nothing to clear, so nothing shifts),
 * history and settings. Toolbar tooltips are lib/tooltip's, not native titles.
 */
import { useEffect } from "react";
import type { ProviderKind } from "../bindings";
import { chooseProvider, ensureCatalog, pickWorkspace } from "../ipc/actions";
import { newSession } from "../ipc/sessions";
import { newSessionState, sessionRuns, sessionRunsTip } from "../lib/topBar";
import { Tip } from "../lib/tooltip";
import { foundFor, foundTypesStore } from "../store/delegate";
import { bookStore } from "../store/review";
import { pendingCount } from "../store/inbox";
import { liveViews } from "../store/sessionStore";
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
    <Tip text="Settings" align="end">
      <button
        type="button"
        className={`btn ${view === "settings" ? "" : "ghost"} icon-btn`}
        data-testid="open-settings"
        aria-label="Settings"
        aria-pressed={view === "settings"}
        onClick={() => patchUi({ view: view === "settings" ? "session" : "settings" })}
      >
        <IconGear size={15} />
      </button>
    </Tip>
  );
}

/** Opens the stored sessions (also Ctrl/Cmd+H); counts the live sessions' approvals waiting meanwhile. */
export function HistoryButton() {
  const open = useStore(uiStore, (s) => s.view === "history");
  const waiting = useStore(liveViews, pendingCount);
  const note = waiting > 0 ? ` · ${waiting} approval${waiting === 1 ? "" : "s"} waiting in the live sessions` : "";
  return (
    <Tip text={`Stored sessions and transcript search (Ctrl+H)${note}`} align="end">
      {(describedBy) => (
        <button
          type="button"
          className={`btn ${open ? "" : "ghost"}`}
          data-testid="history-button"
          aria-describedby={describedBy}
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
      )}
    </Tip>
  );
}

export function TopBar() {
  const app = useStore(uiStore, (s) => s.app);
  const workspace = useStore(uiStore, (s) => s.workspace);
  const provider = useStore(uiStore, (s) => s.provider);
  const model = useStore(uiStore, (s) => s.model);
  const session = useStore(uiStore, (s) => s.session);
  const starting = useStore(uiStore, (s) => s.starting);
  const reviewing = useStore(bookStore, (b) => b.review !== null);
  const agentType = useStore(uiStore, (s) => s.agentType);
  const types = useStore(foundTypesStore, (f) => foundFor(f, workspace));
  const providers = app?.providers ?? [];
  const current = providers.find((p) => p.kind === provider);
  // A past session under review runs nothing: the bar then offers the next session's choices.
  const live = session !== null && !reviewing ? session : null;
  const fresh = newSessionState({ live: session !== null, reviewing, starting });
  const choosing = live === null;
  useEffect(() => {
    if (choosing) ensureCatalog(workspace);
  }, [choosing, workspace]);
  return (
    <header className="topbar">
      <Brand />
      <div className="workspace">
        {live ? (
          <Tip text={`This session works in ${live.workspace}`}>
            <span className="path-chip" data-testid="workspace-path" data-live="">
              <bdi>{live.workspace}</bdi>
            </span>
          </Tip>
        ) : (
          <Tip text={workspace ? `Workspace: ${workspace}` : "Choose the folder the agents work in"}>
            <span className="path-chip" data-testid="workspace-path">
              <bdi>{workspace || "No workspace chosen"}</bdi>
            </span>
          </Tip>
        )}
        <Tip text={live ? "This session's workspace is fixed: New session, then choose" : "Choose the workspace folder"}>
          {(describedBy) => (
            <button
              type="button"
              className="btn"
              data-testid="pick-workspace"
              aria-describedby={describedBy}
              disabled={live !== null}
              onClick={() => void pickWorkspace()}
            >
              <IconFolder size={13} /> Choose…
            </button>
          )}
        </Tip>
      </div>
      {live ? <SandboxBadge sandbox={live.sandbox} /> : null}
      {live ? (
        <Tip text={sessionRunsTip(live)} align="end">
          <span className="run-chip" data-testid="session-runs" data-demo={live.demo ? "" : undefined}>
            {sessionRuns(live, providers)}
          </span>
        </Tip>
      ) : (
        <>
          <select
            className="select"
            data-testid="provider-select"
            aria-label="Provider"
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
            placeholder={current?.default_model ?? "model"}
            value={model}
            onChange={(e) => patchUi({ model: e.target.value })}
            spellCheck={false}
          />
          <Tip text="The main agent: Arbor's own, or one of the workspace's agent types (its prompt, tools, model and permissions)">
            {(describedBy) => (
              <select
                className="select agent-type"
                data-testid="main-type-select"
                aria-label="Main agent"
                aria-describedby={describedBy}
                value={types?.some((t) => t.name === agentType) ? agentType : ""}
                onChange={(e) => patchUi({ agentType: e.target.value })}
              >
                <option value="">Main agent</option>
                {(types ?? []).map((t) => (
                  <option key={t.name} value={t.name}>
                    as {t.name}
                  </option>
                ))}
              </select>
            )}
          </Tip>
        </>
      )}
      <Tip text={fresh.enabled ? fresh.tip : fresh.reason} align="end">
        {(describedBy) => (
          <button
            type="button"
            className="btn"
            data-testid="new-session"
            aria-describedby={describedBy}
            disabled={!fresh.enabled}
            onClick={newSession}
          >
            <IconPlus size={12} /> New session
          </button>
        )}
      </Tip>
      <HistoryButton />
      <SettingsButton />
    </header>
  );
}
