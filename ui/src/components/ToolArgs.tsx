/**
 * A tool call's arguments as a person reads them: a diff for Edit and Write,
 * its file named relative to the agent's tree; the command for Bash, the task
 * for Task, JSON otherwise. Text the model wrote keeps its line breaks
 * (`tool-text`).
 */
import { memo } from "react";
import { GENERAL_PURPOSE, TASK_TOOL, type Value } from "../bindings";
import { shownPath } from "../lib/paths";
import { DiffView } from "./DiffView";

type Obj = { [key in string]?: Value };

function asObject(v: Value): Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
}

function str(o: Obj, key: string): string | null {
  const v = o[key];
  return typeof v === "string" ? v : null;
}

/**
 * `root`: the tree the calling agent works in; a file inside it is named
 * relative to it (the whole path on hover). Null: as the model wrote it.
 */
export const ToolArgs = memo(function ToolArgs({ toolName, args, root = null }: { toolName: string; args: Value; root?: string | null }) {
  const o = asObject(args);
  const file = str(o, "file_path");
  const fileShown = file === null ? null : shownPath(file, root);
  const fileTitle = file !== null && fileShown !== file ? file : undefined;
  if (toolName === "Edit" && file !== null) {
    return (
      <div>
        <div className="file-path" title={fileTitle}>
          {fileShown}
          {o.replace_all === true ? <span className="badge">replace all</span> : null}
        </div>
        <DiffView before={str(o, "old_string") ?? ""} after={str(o, "new_string") ?? ""} />
      </div>
    );
  }
  if (toolName === "Write" && file !== null) {
    return (
      <div>
        <div className="file-path" title={fileTitle}>
          {fileShown}
          <span className="badge">write</span>
        </div>
        <DiffView before="" after={str(o, "content") ?? ""} />
      </div>
    );
  }
  const command = str(o, "command");
  if (toolName === "Bash" && command !== null) {
    const description = str(o, "description");
    return (
      <div>
        {description ? <div className="hint tool-text">{description}</div> : null}
        <pre className="block command mono">{command}</pre>
      </div>
    );
  }
  const prompt = str(o, "prompt");
  if (toolName === TASK_TOOL && prompt !== null) {
    const type = str(o, "subagent_type");
    const description = str(o, "description");
    return (
      <div>
        <div className="file-path">
          {description ? <span className="tool-text">{description}</span> : null}
          {/* A fork is its parent's copy, not an agent of some type. */}
          {o.fork === true ? (
            <span className="badge fork" title="Starts from this agent's conversation so far">
              fork
            </span>
          ) : (
            <span className="badge">{type ?? GENERAL_PURPOSE}</span>
          )}
          {o.run_in_background === true ? <span className="badge">background</span> : null}
        </div>
        <pre className="block">{prompt}</pre>
      </div>
    );
  }
  return <pre className="block mono">{JSON.stringify(args, null, 2)}</pre>;
});
