/**
 * What a waiting call would do, as Rust previewed it when the agent asked: a
 * Write or Edit as a diff of the file before → after (a new file all added,
 * an overwrite's lost lines removed; a note when a side is missing), a shell
 * command in full with where it runs, why, and what it runs in (sandboxed, or
 * a warning that it is not; nothing for a request stored before the sandbox),
 * an MCP tool with its server, tool and arguments. A request without a
 * preview (stored before previews existed) shows its arguments as before.
 * Spawns have their own form.
 */
import { memo } from "react";
import type { ApprovalPreview as Preview, Value } from "../../bindings";
import { IconAlert } from "../icons";
import { ToolArgs } from "../ToolArgs";
import { DiffView } from "../DiffView";
import { SandboxLine } from "../Sandbox";

type FilePreview = Extract<Preview, { kind: "file" }>;
type CommandPreview = Extract<Preview, { kind: "command" }>;
type McpPreview = Extract<Preview, { kind: "mcp" }>;

export const ApprovalPreview = memo(function ApprovalPreview(props: {
  preview: Exclude<Preview, { kind: "spawn" }> | null;
  toolName: string;
  args: Value;
}) {
  const { preview, toolName, args } = props;
  switch (preview?.kind) {
    case "file":
      return <FileChange preview={preview} toolName={toolName} args={args} />;
    case "command":
      return <Command preview={preview} />;
    case "mcp":
      return <McpCall preview={preview} args={args} />;
    case undefined:
      return <ToolArgs toolName={toolName} args={args} />;
  }
});

function FileChange({ preview, toolName, args }: { preview: FilePreview; toolName: string; args: Value }) {
  const { path, before, after, note } = preview;
  return (
    <div className="preview-file" data-testid="preview-file">
      <div className="file-path">
        <span className="path" title={path}>
          {path}
        </span>
        {after === null ? (
          <span className="badge failed">cannot apply</span>
        ) : before === null ? (
          <span className="badge new-file">new file</span>
        ) : null}
      </div>
      {note ? (
        <div className="preview-note tool-text" data-testid="preview-note">
          <IconAlert size={12} /> {note}
        </div>
      ) : null}
      {after !== null ? (
        <DiffView before={before ?? ""} after={after} testId="approval-diff" layout="card" />
      ) : (
        // What the call asked for, since what it would leave cannot be shown.
        <ToolArgs toolName={toolName} args={args} />
      )}
    </div>
  );
}

function Command({ preview }: { preview: CommandPreview }) {
  return (
    <div className="preview-command" data-testid="preview-command">
      {preview.description ? <div className="preview-why tool-text">{preview.description}</div> : null}
      <pre className="block command mono full">{preview.command}</pre>
      <div className="preview-cwd">
        in <code title={preview.cwd}>{preview.cwd}</code>
      </div>
      {preview.sandbox ? <SandboxLine sandbox={preview.sandbox} /> : null}
    </div>
  );
}

function McpCall({ preview, args }: { preview: McpPreview; args: Value }) {
  return (
    <div className="preview-mcp" data-testid="preview-mcp">
      <dl className="preview-facts">
        <dt>Server</dt>
        <dd className="mono">{preview.server}</dd>
        <dt>Tool</dt>
        <dd className="mono">{preview.tool}</dd>
      </dl>
      <div className="section-label">Arguments</div>
      <pre className="block mono">{JSON.stringify(args, null, 2)}</pre>
    </div>
  );
}
