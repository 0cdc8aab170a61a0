/**
 * Settings: provider keys (to the OS keyring; a stored key is never shown),
 * base URLs and default models, the default provider, limits, the approval
 * policy per tool (with "Ask before starting subagents", the Task tool's
 * policy, offered first), budgets (BudgetSettings), the command sandbox
 * (SandboxSettings), the agent definitions found for the workspace, the
 * external ACP agents (AcpAgents), and its
 * MCP tool servers.
 */
import { useEffect, useState } from "react";
import {
  APPROVAL_CHOICES,
  type ApprovalChoice,
  type CatalogReport,
  type KeyringState,
  type KeySource,
  type LimitSettings,
  type ProviderKind,
  type ProviderState,
  type Settings,
  type TimeoutSettings,
} from "../bindings";
import { clearApiKey, saveSettings, setApiKey } from "../ipc/actions";
import { asksBeforeSpawning, toolChoice, withAskBeforeSpawning, withToolChoice } from "../lib/approvalSettings";
import { keyControls, keyringNote } from "../lib/keys";
import { catalogVersion, readCatalog, reloadCatalog } from "../store/catalog";
import { useStore } from "../store/store";
import { patchUi, uiStore } from "../store/ui";
import { IconAlert, IconCheck, IconX } from "./icons";
import { ActiveRules } from "./ActiveRules";
import { BudgetSettingsCard } from "./BudgetSettings";
import { ContextSettingsCard } from "./ContextSettings";
import { AcpAgents } from "./AcpAgents";
import { McpServers } from "./McpServers";
import { SandboxSettingsCard } from "./SandboxSettings";

const LIMITS: { key: keyof LimitSettings; label: string; hint: string }[] = [
  { key: "max_parallel", label: "Parallel subagents", hint: "More are queued" },
  { key: "max_depth", label: "Nesting depth", hint: "1: only the main agent delegates" },
  { key: "max_subagents", label: "Subagents per session", hint: "Total over the session" },
  { key: "subagent_max_turns", label: "Subagent max turns", hint: "Unless its definition says otherwise" },
  { key: "main_max_turns", label: "Main agent max turns", hint: "Per prompt" },
  { key: "max_live_sessions", label: "Live sessions", hint: "Past it, the oldest finished one closes" },
];

const TIMEOUTS: { key: keyof TimeoutSettings; label: string; hint: string }[] = [
  { key: "idle_seconds", label: "Give up on a silent model after", hint: "Time with no data from its stream" },
  {
    key: "retry_budget_seconds",
    label: "Most time one model turn may take, retries included",
    hint: "From its first request to the end of its last retry",
  },
];

function keySourceText(p: ProviderState): string {
  const text: Record<KeySource, string> = {
    keyring: "Key stored in the OS keyring",
    environment: `Key from ${p.key_var}`,
    none: "No key",
    not_needed: "No key needed",
  };
  return text[p.key_source];
}

export function SettingsPanel() {
  const app = useStore(uiStore, (s) => s.app);
  const workspace = useStore(uiStore, (s) => s.workspace);
  const [draft, setDraft] = useState<Settings | null>(app?.settings ?? null);
  const [status, setStatus] = useState<{ ok: boolean; text: string } | null>(null);
  const [saving, setSaving] = useState(false);
  // What is wrong with the budget fields (Save waits until nothing is); the card is remounted on Revert and Save.
  const [budgetProblem, setBudgetProblem] = useState<string | null>(null);
  const [budgetForm, setBudgetForm] = useState(0);

  if (!app || !draft) {
    return (
      <div className="settings">
        <div className="empty">Loading settings…</div>
      </div>
    );
  }

  const dirty = JSON.stringify(draft) !== JSON.stringify(app.settings);
  const update = (patch: Partial<Settings>) => {
    setDraft({ ...draft, ...patch });
    setStatus(null);
  };

  const save = async () => {
    setSaving(true);
    const r = await saveSettings(draft);
    setSaving(false);
    if (r.ok) {
      setDraft(r.data.settings);
      setBudgetForm((n) => n + 1);
      setStatus({ ok: true, text: "Saved" });
    } else setStatus({ ok: false, text: r.message });
  };

  const revert = () => {
    setDraft(app.settings);
    setBudgetForm((n) => n + 1);
    setBudgetProblem(null);
  };

  return (
    <div className="settings">
      <div className="settings-inner">
        <div className="row">
          <h1>Settings</h1>
          <span className="spacer" />
          <button type="button" className="btn" data-testid="settings-back" onClick={() => patchUi({ view: "session" })}>
            Back to session
          </button>
        </div>

        {app.settings_problem ? (
          <div className="inline-error" role="alert">
            The settings file could not be read, so defaults apply: {app.settings_problem}
          </div>
        ) : null}

        <section className="card" id="settings-providers" aria-labelledby="providers-h">
          <h2 id="providers-h">Providers</h2>
          <div className="card-body">
            {!app.keyring.available ? (
              <div className="inline-warn keyring-off" role="note" data-testid="keyring-unavailable">
                <IconAlert size={12} />
                <div>
                  <div data-testid="keyring-note">{keyringNote(app.providers)}</div>
                  {app.keyring.problem ? (
                    <details className="keyring-detail">
                      <summary>Details</summary>
                      <code>{app.keyring.problem}</code>
                    </details>
                  ) : null}
                </div>
              </div>
            ) : null}
            {app.providers.map((p) => (
              <ProviderCard
                key={p.kind}
                provider={p}
                keyring={app.keyring}
                baseUrl={draft[p.kind]?.base_url ?? ""}
                defaultModel={draft[p.kind]?.default_model ?? ""}
                onChange={(base_url, default_model) =>
                  update({ [p.kind]: { base_url: base_url || null, default_model: default_model || null } })
                }
              />
            ))}
            <label className="field" style={{ maxWidth: 280 }}>
              <span className="label">Default provider</span>
              <select
                className="select"
                value={draft.default_provider ?? ""}
                onChange={(e) => update({ default_provider: (e.target.value || null) as ProviderKind | null })}
              >
                <option value="">Automatic (first ready)</option>
                {app.providers.map((p) => (
                  <option key={p.kind} value={p.kind}>
                    {p.label}
                  </option>
                ))}
              </select>
            </label>
          </div>
        </section>

        <section className="card" aria-labelledby="limits-h">
          <h2 id="limits-h">Limits</h2>
          <div className="card-body grid-3">
            {LIMITS.map((l) => (
              <label className="field" key={l.key}>
                <span className="label">{l.label}</span>
                <input
                  className="input"
                  type="number"
                  min={l.key === "max_depth" ? 0 : 1}
                  value={draft.limits?.[l.key] ?? ""}
                  onChange={(e) => {
                    const n = Math.max(0, Math.floor(Number(e.target.value)));
                    if (e.target.value !== "" && Number.isFinite(n)) update({ limits: { ...draft.limits, [l.key]: n } });
                  }}
                />
                <span className="hint">{l.hint}</span>
              </label>
            ))}
            {TIMEOUTS.map((t) => (
              <label className="field" key={t.key}>
                <span className="label">{t.label}</span>
                <span className="row">
                  <input
                    className="input"
                    type="number"
                    min={1}
                    value={draft.timeouts?.[t.key] ?? ""}
                    onChange={(e) => {
                      const n = Math.floor(Number(e.target.value));
                      if (e.target.value !== "" && Number.isFinite(n) && n >= 1)
                        update({ timeouts: { ...draft.timeouts, [t.key]: n } });
                    }}
                  />
                  <span className="faint">s</span>
                </span>
                <span className="hint">{t.hint}</span>
              </label>
            ))}
          </div>
        </section>

        {/* Rust sends every field; a settings object from an older backend has none. */}
        {draft.context ? <ContextSettingsCard context={draft.context} onChange={(context) => update({ context })} /> : null}

        <section className="card" aria-labelledby="approvals-h">
          <h2 id="approvals-h">Approvals</h2>
          <div className="card-body">
            {/* The Task row of the table below, offered on its own: it is the one choice most people look for. */}
            <label className="checkbox spawn-ask">
              <input
                type="checkbox"
                data-testid="ask-before-spawning"
                checked={asksBeforeSpawning(draft.approvals, app.tools)}
                onChange={(e) => update({ approvals: withAskBeforeSpawning(draft.approvals, app.tools, e.target.checked) })}
              />
              <span>
                <strong>Ask before starting subagents</strong>
                <span className="hint">
                  Each Task call becomes an editable card (prompt, model, tools) before the subagent starts.
                </span>
              </span>
            </label>
            <span className="hint">
              What happens when an agent calls a tool. Agent definitions can tighten this; a child is never looser
              than its parent unless you answer a request for a whole subtree or session.
            </span>
            <table className="plain">
              <thead>
                <tr>
                  <th>Tool</th>
                  <th>Kind</th>
                  <th>Policy</th>
                </tr>
              </thead>
              <tbody>
                {app.tools.map((t) => {
                  const value = toolChoice(draft.approvals, app.tools, t.name);
                  return (
                    <tr key={t.name}>
                      <td className="mono">{t.name}</td>
                      <td className="muted">{t.class.replace("_", "-")}</td>
                      <td>
                        <select
                          className="select"
                          aria-label={`Policy for ${t.name}`}
                          value={value}
                          onChange={(e) => {
                            const choice = e.target.value as ApprovalChoice;
                            update({ approvals: withToolChoice(draft.approvals, app.tools, t.name, choice) });
                          }}
                        >
                          {APPROVAL_CHOICES.map((c) => (
                            <option key={c} value={c}>
                              {c}
                              {t.default === c ? " (default)" : ""}
                            </option>
                          ))}
                        </select>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </section>

        <BudgetSettingsCard
          key={budgetForm}
          budgets={draft.budgets}
          onChange={(budgets) => update({ budgets })}
          onProblem={setBudgetProblem}
        />

        <SandboxSettingsCard
          sandbox={draft.sandbox}
          availability={app.sandbox}
          onChange={(sandbox) => update({ sandbox })}
        />

        <ActiveRules card />

        <Catalog workspace={workspace} />

        <AcpAgents workspace={workspace} />

        <McpServers workspace={workspace} />

        <div className="settings-foot">
          {budgetProblem ? (
            <span className="inline-error" role="alert" data-testid="settings-budget-problem">
              {budgetProblem}
            </span>
          ) : status ? (
            status.ok ? (
              <span className="inline-ok">
                <IconCheck size={12} /> {status.text}
              </span>
            ) : (
              <span className="inline-error" role="alert">
                {status.text}
              </span>
            )
          ) : null}
          <button type="button" className="btn" disabled={(!dirty && !budgetProblem) || saving} onClick={revert}>
            Revert
          </button>
          <button
            type="button"
            className="btn primary"
            data-testid="save-settings"
            disabled={!dirty || saving || budgetProblem !== null}
            onClick={() => void save()}
          >
            {saving ? "Saving…" : "Save settings"}
          </button>
        </div>
      </div>
    </div>
  );
}

function ProviderCard(props: {
  provider: ProviderState;
  keyring: KeyringState;
  baseUrl: string;
  defaultModel: string;
  onChange: (baseUrl: string, defaultModel: string) => void;
}) {
  const { provider: p, keyring, baseUrl, defaultModel, onChange } = props;
  const controls = keyControls(p, keyring);
  const reasonId = `key-reason-${p.kind}`;
  const describedBy = controls.reason !== null ? reasonId : undefined;
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const saveKey = async () => {
    setBusy(true);
    const r = await setApiKey(p.kind, key.trim());
    setBusy(false);
    if (r.ok) {
      setKey("");
      setMessage({ ok: true, text: "Key saved" });
    } else setMessage({ ok: false, text: r.message });
  };
  const removeKey = async () => {
    setBusy(true);
    const r = await clearApiKey(p.kind);
    setBusy(false);
    setMessage(r.ok ? { ok: true, text: "Key removed" } : { ok: false, text: r.message });
  };

  return (
    <div className="provider" data-provider={p.kind}>
      <div className="provider-head">
        <span className="name">{p.label}</span>
        {p.ready ? (
          <span className="badge ok-badge">
            <IconCheck size={11} /> ready
          </span>
        ) : (
          <span className="badge waiting">
            <IconAlert size={11} /> not ready
          </span>
        )}
        <span className="hint">{keySourceText(p)}</span>
      </div>
      {p.problem ? <div className="hint">{p.problem}</div> : null}
      <label className="field">
        <span className="label">API key</span>
        <div className="row">
          <input
            className="input mono"
            type="password"
            autoComplete="off"
            placeholder={controls.placeholder}
            value={key}
            disabled={!controls.canSave}
            onChange={(e) => setKey(e.target.value)}
            aria-label={`${p.label} API key`}
            aria-describedby={describedBy}
          />
          <button
            type="button"
            className="btn primary"
            data-testid="save-key"
            disabled={!key.trim() || busy || !controls.canSave}
            aria-describedby={describedBy}
            onClick={() => void saveKey()}
          >
            Save key
          </button>
          <button
            type="button"
            className="btn danger"
            data-testid="remove-key"
            disabled={!controls.canRemove || busy}
            aria-describedby={describedBy}
            onClick={() => void removeKey()}
          >
            <IconX size={11} /> Remove key
          </button>
        </div>
      </label>
      {controls.reason !== null ? (
        <span className="hint key-reason" id={reasonId} data-testid="key-reason">
          {controls.reason}
        </span>
      ) : null}
      {message ? <span className={message.ok ? "inline-ok" : "inline-error"}>{message.text}</span> : null}
      <div className="grid-2">
        <label className="field">
          <span className="label">Base URL</span>
          <input
            className="input mono"
            placeholder={p.base_url}
            value={baseUrl}
            onChange={(e) => onChange(e.target.value, defaultModel)}
            spellCheck={false}
          />
        </label>
        <label className="field">
          <span className="label">Default model</span>
          <input
            className="input mono"
            placeholder={p.default_model}
            value={defaultModel}
            onChange={(e) => onChange(baseUrl, e.target.value)}
            spellCheck={false}
          />
        </label>
      </div>
    </div>
  );
}

export function Catalog({ workspace }: { workspace: string }) {
  const [report, setReport] = useState<CatalogReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const version = useStore(catalogVersion, (v) => v);

  useEffect(() => {
    let live = true;
    void readCatalog(workspace, version).then((r) => {
      if (!live) return;
      if (r.ok) {
        setReport(r.data);
        setError(null);
      } else setError(r.message);
    });
    return () => {
      live = false;
    };
  }, [workspace, version]);

  return (
    <section className="card" aria-labelledby="catalog-h">
      <h2 id="catalog-h">
        Agent definitions
        <span className="spacer" />
        <button type="button" className="btn small" onClick={reloadCatalog}>
          Reload
        </button>
      </h2>
      <div className="card-body">
        <span className="hint">
          Read from <code>.claude/agents</code> and <code>.arbor/agents</code> in <code>{workspace || "the workspace"}</code>,
          and from your config folder.
        </span>
        {error ? <div className="inline-error">{error}</div> : null}
        {!report && !error ? <div className="faint">Loading…</div> : null}
        {report && report.definitions.length === 0 ? <div className="faint">No agent definitions found.</div> : null}
        {report && report.definitions.length > 0 ? (
          <table className="plain">
            <thead>
              <tr>
                <th>Name</th>
                <th>Description</th>
                <th>Model</th>
                <th>Source</th>
              </tr>
            </thead>
            <tbody>
              {report.definitions.map((d) => (
                <tr key={`${d.source}/${d.name}`}>
                  <td className="mono">{d.name}</td>
                  <td>{d.description}</td>
                  <td className="mono">{d.model ?? "inherit"}</td>
                  <td className="muted">
                    {d.source}
                    {d.file ? (
                      <div className="mono faint" title={d.file}>
                        {d.file}
                      </div>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        {report && report.problems.length > 0 ? (
          <>
            <div className="section-label">Problems in agent definition files</div>
            <table className="plain">
              <thead>
                <tr>
                  <th>File</th>
                  <th>Field</th>
                  <th>Reason</th>
                </tr>
              </thead>
              <tbody>
                {report.problems.map((p, i) => (
                  <tr key={i}>
                    <td className="mono">{p.file}</td>
                    <td className="mono">{p.field ?? "—"}</td>
                    <td className={p.skipped ? "error-text" : "muted"}>
                      {p.skipped ? "Not loaded: " : "Warning: "}
                      {p.reason}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
      </div>
    </section>
  );
}
