/** A background child's result reaching its parent: the child (a link to its output), its status and summary. */
import type { AgentId, AgentStatus } from "../../bindings";
import { statusLabel } from "../../lib/format";
import { select } from "../../store/ui";
import { StatusIcon } from "../StatusIcon";

export function NotificationRow({ taskId, status, summary }: { taskId: AgentId; status: AgentStatus; summary: string }) {
  return (
    <div className="notice">
      <StatusIcon status={status} />
      <div>
        <button type="button" className="btn small ghost mono" onClick={() => select(taskId)}>
          {taskId}
        </button>{" "}
        <span className="muted">finished ({statusLabel(status)})</span>
        {summary ? <div className="muted tool-text">{summary}</div> : null}
      </div>
    </div>
  );
}
