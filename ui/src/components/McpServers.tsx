/**
 * Settings: the MCP tool servers a session in the workspace would have, where
 * each is configured, its state and its tools; listed when the settings open
 * (which may start each server once) and again on "Check again". The
 * workspace's `.mcp.json` shows whether it is trusted: until it is, its
 * servers are listed as not started, with a Trust button; once it is, an
 * Untrust button.
 */
import { useEffect, useState } from "react";
import type { McpServerInfo, WorkspaceMcp } from "../bindings";
import type { Outcome } from "../ipc/actions";
import { loadMcpServers, trustWorkspaceServers, untrustWorkspaceServers } from "../ipc/mcp";
import { firstLine, MCP_EXAMPLE, mcpSourceLabel, mcpStateLabel } from "../lib/mcp";
import { mcpStore } from "../store/mcp";
import { useStore } from "../store/store";
import { IconAlert, IconCheck, IconChevron, IconResume } from "./icons";
import { LaunchList } from "./McpTrustDialog";
import { Spinner } from "./Spinner";

export function McpServers({ workspace }: { workspace: string }) {
  const { report, loading, fresh, error } = useStore(mcpStore, (s) => s);
  const target = workspace || null;

  useEffect(() => {
    void loadMcpServers(target, false);
  }, [target]);

  const servers = report?.servers ?? [];
  // Absent from reports of an older backend; null when the workspace has no file.
  const file = report?.workspace ?? null;
  return (
    <section className="card" id="settings-mcp" data-testid="mcp-servers" aria-labelledby="mcp-h" aria-busy={loading}>
      <h2 id="mcp-h">
        MCP servers
        <span className="spacer" />
        <button
          type="button"
          className="btn small"
          data-testid="mcp-check"
          disabled={loading}
          title="Start every server again and list its tools"
          onClick={() => void loadMcpServers(target, true)}
        >
          <IconResume size={11} /> Check again
        </button>
      </h2>
      <div className="card-body">
        <span className="hint">
          Tool servers agents can call, from <code>.mcp.json</code> in <code>{workspace || "the workspace"}</code> and
          your <code>mcp.json</code>. Read-only tools run without asking; the others ask for approval by default.
        </span>
        {loading ? (
          <div className="mcp-loading faint" data-testid="mcp-loading" role="status">
            <span className="status-icon running">
              <Spinner />
            </span>
            {fresh ? "Restarting servers to list their tools…" : "Starting servers to list their tools…"}
          </div>
        ) : null}
        {error !== null ? (
          <div className="inline-error" role="alert" data-testid="mcp-error">
            Could not list the MCP servers: {error}
          </div>
        ) : null}
        {report?.problems.map((p, i) => (
          <div className="inline-warn" key={i} data-testid="mcp-problem">
            <IconAlert size={12} /> <span>{p}</span>
          </div>
        ))}
        {file ? <WorkspaceTrust file={file} workspace={workspace} /> : null}
        {report && servers.length === 0 && !(file && !file.trusted) ? <McpEmpty files={report.files} /> : null}
        {servers.length > 0 ? (
          <>
            <div className="mcp-list">
              {servers.map((s) => (
                <McpServerRow key={`${s.source.kind}/${s.name}`} server={s} />
              ))}
            </div>
            {report && report.files.length > 0 ? (
              <span className="hint">
                Read from{" "}
                {report.files.map((f, i) => (
                  <span key={f}>
                    {i > 0 ? ", " : null}
                    <code>{f}</code>
                  </span>
                ))}
                .
              </span>
            ) : null}
          </>
        ) : null}
      </div>
    </section>
  );
}

/** The workspace's `.mcp.json`: not trusted (its servers, not started, and Trust) or trusted (Untrust). */
function WorkspaceTrust({ file, workspace }: { file: WorkspaceMcp; workspace: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: (workspace: string) => Promise<Outcome<null>>) => {
    setBusy(true);
    setError(null);
    const r = await action(workspace);
    setBusy(false);
    if (!r.ok) setError(r.message);
  };
  const failure = error ? (
    <div className="inline-error" role="alert">
      {error}
    </div>
  ) : null;

  if (file.trusted) {
    return (
      <div className="mcp-trusted">
        <IconCheck size={12} />
        <span className="hint">
          You trust <code>{file.path}</code>: its servers start with sessions in this workspace.
        </span>
        <span className="spacer" />
        <button
          type="button"
          className="btn small"
          data-testid="mcp-untrust"
          disabled={busy}
          title="Its servers no longer start until you trust the file again"
          onClick={() => void run(untrustWorkspaceServers)}
        >
          Untrust
        </button>
        {failure}
      </div>
    );
  }
  return (
    <div className="mcp-untrusted" data-testid="mcp-workspace-untrusted">
      <div className="inline-warn">
        <IconAlert size={12} />
        <span>
          <code>{file.path}</code> is not trusted
          {file.changed_since_trusted ? ": it changed since you trusted it" : ""}. Its servers do not start until you
          trust it, since the file can name any command.
        </span>
      </div>
      <LaunchList servers={file.servers} state="not started" />
      <div className="row">
        <button
          type="button"
          className="btn small primary"
          data-testid="mcp-trust"
          disabled={busy}
          title="Trust the file as it is now; an edit asks again"
          onClick={() => void run((w) => trustWorkspaceServers(w, file.sha256))}
        >
          {busy ? "Trusting…" : "Trust"}
        </button>
        <span className="hint">Sessions here start these servers until the file changes.</span>
      </div>
      {failure}
    </div>
  );
}

function McpEmpty({ files }: { files: string[] }) {
  return (
    <div className="mcp-empty" data-testid="mcp-empty">
      <div className="title">No MCP servers configured</div>
      {files.length > 0 ? (
        <div className="muted">
          Looked in:
          <ul className="mcp-files">
            {files.map((f) => (
              <li key={f} className="mono">
                {f}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="muted">
        Add servers to <code>.mcp.json</code> in the workspace, for example:
      </div>
      <pre className="block mono">{MCP_EXAMPLE}</pre>
    </div>
  );
}

function McpServerRow({ server: s }: { server: McpServerInfo }) {
  const source = mcpSourceLabel(s.source);
  const readOnly = s.tools.filter((t) => t.read_only).length;
  return (
    <div className="mcp-server" data-testid="mcp-server-row" data-state={s.state} data-server={s.name}>
      <div className="mcp-server-head">
        <span className="name">{s.name}</span>
        <span className={`badge mcp-state ${s.state}`}>{mcpStateLabel(s)}</span>
        <span className="hint">{source.text}</span>
      </div>
      {source.path !== null ? (
        <div className="mono faint mcp-path" title={source.path}>
          {source.path}
        </div>
      ) : null}
      <div className="mcp-target">
        <span className="badge">{s.transport}</span>
        <code className="mono" title={s.target}>
          {s.target}
        </code>
      </div>
      {s.state === "failed" ? (
        <div className="inline-error" data-testid="mcp-server-error">
          {s.error ?? "It could not be started."}
        </div>
      ) : null}
      {s.state === "unchecked" ? (
        <div className="hint">Its tools are listed when a session first needs them, or with Check again.</div>
      ) : null}
      {s.tools.length > 0 ? (
        <details className="mcp-tools">
          <summary>
            <IconChevron size={11} /> {s.tools.length} tool{s.tools.length === 1 ? "" : "s"}
            {readOnly > 0 ? <span className="faint"> · {readOnly} read-only</span> : null}
          </summary>
          <ul>
            {s.tools.map((t) => (
              <li key={t.name} data-testid="mcp-tool">
                <span className="mono tool-id" title={t.name}>
                  {t.tool}
                </span>
                {t.read_only ? (
                  <span className="badge ro" title="Runs without asking">
                    read-only
                  </span>
                ) : null}
                <span className="muted desc">{firstLine(t.description)}</span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
