/**
 * Settings → External agents (ACP): the agent types that run as another
 * program speaking ACP (Claude Code, Codex, Gemini CLI…), from any agent file,
 * and a form to add one from a preset or by hand. Adding writes the user's own
 * agent file (Rust does); a type from the user's folder can be removed here,
 * a workspace's is edited in its file.
 */
import { useEffect, useState } from "react";
import type { AcpPreset, AgentTypeInfo } from "../bindings";
import { acpPresets, addAcpAgent, removeAcpAgent } from "../ipc/acpAgents";
import { catalogVersion, readCatalog, reloadCatalog } from "../store/catalog";
import { useStore } from "../store/store";

interface Form {
  name: string;
  description: string;
  command: string;
  /** One argument per line. */
  args: string;
}

const EMPTY: Form = { name: "", description: "", command: "", args: "" };

function formOf(p: AcpPreset): Form {
  return { name: p.name, description: p.description, command: p.command, args: p.args.join("\n") };
}

export function AcpAgents({ workspace }: { workspace: string }) {
  const [agents, setAgents] = useState<AgentTypeInfo[] | null>(null);
  const [presets, setPresets] = useState<AcpPreset[]>([]);
  const [preset, setPreset] = useState<string>("");
  const [form, setForm] = useState<Form>(EMPTY);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const version = useStore(catalogVersion, (v) => v);

  useEffect(() => {
    void acpPresets().then(setPresets);
  }, []);
  useEffect(() => {
    let live = true;
    void readCatalog(workspace, version).then((r) => {
      if (live && r.ok) setAgents(r.data.definitions.filter((d) => d.acp !== null));
    });
    return () => {
      live = false;
    };
  }, [workspace, version]);

  const chosen = presets.find((p) => p.label === preset) ?? null;
  const add = async () => {
    setBusy(true);
    const args = form.args.split("\n").map((a) => a.trim()).filter((a) => a !== "");
    const r = await addAcpAgent({ name: form.name, description: form.description, command: form.command, args }, workspace);
    setBusy(false);
    if (r.ok) {
      setMessage({ ok: true, text: `Added “${r.data.name}”: a Task or Delegate… with this type runs ${r.data.acp ?? "it"}.` });
      setForm(EMPTY);
      setPreset("");
      reloadCatalog();
    } else setMessage({ ok: false, text: r.message });
  };
  const remove = async (name: string) => {
    const r = await removeAcpAgent(name, workspace);
    setMessage(r.ok ? { ok: true, text: `Removed “${name}”.` } : { ok: false, text: r.message });
    if (r.ok) reloadCatalog();
  };
  const field = (key: keyof Form) => ({
    value: form[key],
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value }),
    disabled: busy,
  });

  return (
    <section className="card" aria-labelledby="acp-agents-h" data-testid="acp-agents">
      <h2 id="acp-agents-h">External agents (ACP)</h2>
      <div className="card-body">
        <span className="hint">
          Agent types that run as another program speaking the Agent Client Protocol. Each task of such a type starts the
          program; its permission requests come to this window&apos;s inbox.
        </span>
        {agents && agents.length === 0 ? <div className="faint">None yet.</div> : null}
        {agents && agents.length > 0 ? (
          <table className="plain" data-testid="acp-agent-list">
            <thead>
              <tr>
                <th>Name</th>
                <th>Runs</th>
                <th>Source</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {agents.map((a) => (
                <tr key={`${a.source}/${a.name}`} data-testid="acp-agent" data-name={a.name}>
                  <td className="mono">{a.name}</td>
                  <td className="mono">{a.acp}</td>
                  <td className="muted">{a.source}</td>
                  <td>
                    {a.user ? (
                      <button type="button" className="btn small ghost" data-testid="acp-agent-remove" onClick={() => void remove(a.name)}>
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
        <div className="section-label">Add one</div>
        <div className="acp-form">
          <label className="field">
            <span className="label">Start from</span>
            <select
              className="input"
              data-testid="acp-preset"
              value={preset}
              disabled={busy}
              onChange={(e) => {
                setPreset(e.target.value);
                const p = presets.find((x) => x.label === e.target.value);
                setForm(p ? formOf(p) : EMPTY);
              }}
            >
              <option value="">By hand</option>
              {presets.map((p) => (
                <option key={p.label} value={p.label}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
          {chosen ? <span className="hint">Needs: {chosen.needs}</span> : null}
          <label className="field">
            <span className="label">Name</span>
            <input className="input mono" data-testid="acp-name" placeholder="claude" {...field("name")} />
          </label>
          <label className="field">
            <span className="label">Description</span>
            <input className="input" data-testid="acp-description" placeholder="What the main agent should hand it" {...field("description")} />
          </label>
          <label className="field">
            <span className="label">Command</span>
            <input className="input mono" data-testid="acp-command" placeholder="npx" {...field("command")} />
          </label>
          <label className="field">
            <span className="label">Arguments, one per line</span>
            <textarea className="input mono" rows={2} data-testid="acp-args" {...field("args")} />
          </label>
          <div className="acp-form-foot">
            <button
              type="button"
              className="btn"
              data-testid="acp-add"
              disabled={busy || form.name.trim() === "" || form.command.trim() === ""}
              onClick={() => void add()}
            >
              Add agent
            </button>
            {message ? (
              <span className={message.ok ? "muted" : "inline-error"} role={message.ok ? "status" : "alert"} data-testid="acp-message">
                {message.text}
              </span>
            ) : null}
          </div>
        </div>
      </div>
    </section>
  );
}
