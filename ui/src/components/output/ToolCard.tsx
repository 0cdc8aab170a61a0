/**
 * A tool call in an agent's output: its name, a one-line summary, approval
 * and run state in the head; unfolded, its arguments (a diff, a command, a
 * task), a link to the subagent a Task call started, and its output.
 */
import { memo, useState } from "react";
import type { AgentId } from "../../bindings";
import { clipOutput } from "../../lib/format";
import { firstStringArg } from "../../lib/mcp";
import { childrenByCall, toolChangesThings } from "../../store/selectors";
import type { ToolItem } from "../../store/session/types";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { select, uiStore } from "../../store/ui";
import { IconTool } from "../icons";
import { StatusIcon } from "../StatusIcon";
import { ToolArgs } from "../ToolArgs";
import { ToolName } from "../ToolName";
import { ApprovalBadge } from "./ApprovalBadge";

/** Open at first when it needs the person's eye: it failed, waits for an answer, or changes things. */
function defaultOpen(item: ToolItem, changesThings: boolean): boolean {
  return item.isError || item.approval?.state === "pending" || changesThings;
}

// Rows are unmounted as they scroll out of the virtualised list: a card the
// person opened or closed keeps that state when it scrolls back in.
const openState = new Map<string, boolean>();

export const ToolCard = memo(function ToolCard({ item, agentId }: { item: ToolItem; agentId: AgentId }) {
  const stateKey = `${agentId}/${item.callId}`;
  const changesThings = useStore(uiStore, (s) => toolChangesThings(s.app?.tools, item.toolName));
  const [open, setOpenState] = useState(() => openState.get(stateKey) ?? defaultOpen(item, changesThings));
  const setOpen = (v: boolean) => {
    openState.set(stateKey, v);
    setOpenState(v);
  };
  const child = useStore(sessionStore, (s) => (item.toolName === "Task" ? childrenByCall(s.agents)[item.callId] : undefined));
  const approval = item.approval;
  const cls = ["tool", item.isError ? "error" : "", approval?.state === "pending" ? "pending-approval" : ""].join(" ");
  const summary = toolSummaryText(item);
  const [fullOutput, setFullOutput] = useState(false);
  const output = clipOutput(item.output, !item.done, fullOutput);
  return (
    <div className={cls}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <IconTool size={12} />
        <ToolName name={item.toolName} mcp={item.mcp} className="tool-name" />
        <span className="tool-summary">{summary}</span>
        {approval ? <ApprovalBadge state={approval.state} scope={approval.scope} /> : null}
        {item.done ? (
          item.isError ? (
            <span className="badge failed">error</span>
          ) : (
            <StatusIcon status="completed" />
          )
        ) : approval?.state === "pending" ? null : (
          <StatusIcon status="running" />
        )}
      </button>
      {open ? (
        <div className="tool-body">
          <ToolArgs toolName={item.toolName} args={item.args} />
          {child ? (
            <div>
              <button type="button" className="btn small" onClick={() => select(child)}>
                Open subagent {child} →
              </button>
            </div>
          ) : null}
          {item.output || item.done ? (
            <div>
              <div className="section-label">{item.done ? (item.isError ? "Error" : "Output") : "Output (live)"}</div>
              <pre className={`block mono${item.isError ? " error" : ""}`}>{output.text || "(no output)"}</pre>
              {output.hidden > 0 ? (
                <button type="button" className="btn small ghost" onClick={() => setFullOutput(true)}>
                  Show all {item.output.length.toLocaleString()} characters
                </button>
              ) : null}
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
});

/** The head's summary: the call's first telling argument, on one line (the tool name is shown beside it). */
function toolSummaryText(item: ToolItem): string {
  if (item.mcp) return firstStringArg(item.args) ?? "";
  const a = item.args;
  if (a && typeof a === "object" && !Array.isArray(a)) {
    for (const k of ["description", "file_path", "command", "pattern", "path", "task_id"]) {
      const v = a[k];
      if (typeof v === "string") return v.split("\n", 1)[0] ?? "";
    }
  }
  return "";
}
