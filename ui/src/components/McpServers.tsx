/**
 * Settings: the MCP tool servers a session in the workspace would have, where
 * each is configured, its state and its tools; listed when the settings open
 * (which may start each server once) and again on "Check again".
 */
import { useEffect } from "react";
import type { McpServerInfo } from "../bindings";
import { loadMcpServers } from "../ipc/mcp";
import { firstLine, MCP_EXAMPLE, mcpSourceLabel, mcpStateLabel } from "../lib/mcp";
import { mcpStore } from "../store/mcp";
import { useStore } from "../store/store";
import { IconAlert, IconChevron, IconResume } from "./icons";

export function McpServers({ workspace }: { workspace: string }) {
  const { report, loading, fresh, error } = useStore(mcpStore, (s) => s);
  const target = workspace || null;

  useEffect(() => {
    void loadMcpServers(target, false);
  }, [target]);

  const servers = report?.servers ?? [];
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
              <span className="spinner" />
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
        {report && servers.length === 0 ? <McpEmpty files={report.files} /> : null}
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
