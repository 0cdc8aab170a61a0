/**
 * A tool call in an agent's output: its name, a one-line summary, approval
 * and run state in the head (from the first piece of its input: while the
 * model writes it, it is open and its arguments grow); under it, while it waits for approval, Approve
 * and Deny (ToolApprovalBar), and once decided, what decided it (a person,
 * with the reason; a rule: which, set when, by whose answer) and a spawn's
 * edits; unfolded, its arguments (a diff, a command, a
 * task), a link to the subagent a Task call started (and "Delegate similar…"
 * to start another like it), and its output.
 */
import { memo, useState } from "react";
import { TASK_TOOL, type AgentId } from "../../bindings";
import { estimatedTokens } from "../../lib/context";
import { clipOutput, formatTokens } from "../../lib/format";
import { firstStringArg } from "../../lib/mcp";
import { editSummary } from "../../lib/spawnEdit";
import { decisionOf } from "../../store/approvals";
import { delegateSimilar } from "../../store/delegate";
import { shownPath } from "../../lib/paths";
import { agentTreeRoot, childExternal, childrenByCall, externalNote, toolChangesThings } from "../../store/selectors";
import type { ToolItem } from "../../store/session/types";
import { useReviewing, useSession, useWorkspace } from "../../store/sessionScope";
import { useStore } from "../../store/store";
import { select, uiStore } from "../../store/ui";
import { IconBranch, IconTool } from "../icons";
import { StatusIcon } from "../StatusIcon";
import { ToolArgs } from "../ToolArgs";
import { ToolName } from "../ToolName";
import { DecisionMark } from "../approvals/DecisionMark";
import { HookRow } from "./HookRow";
import { ApprovalBadge } from "./ApprovalBadge";
import { ToolApprovalBar } from "./ToolApprovalBar";

/**
 * Open unless the person chose: while the model writes it (so its input shows
 * growing), and when it needs the person's eye: it failed, waits for an answer,
 * or changes things.
 */
function defaultOpen(item: ToolItem, changesThings: boolean): boolean {
  return item.input === "writing" || item.isError || item.approval?.state === "pending" || changesThings;
}

// Rows are unmounted as they scroll out of the virtualised list: a card the
// person opened or closed keeps that state when it scrolls back in.
const openState = new Map<string, boolean>();

export const ToolCard = memo(function ToolCard({ item, agentId }: { item: ToolItem; agentId: AgentId }) {
  const stateKey = `${agentId}/${item.callId}`;
  const changesThings = useStore(uiStore, (s) => toolChangesThings(s.app?.tools, item.toolName));
  const [chosen, setChosen] = useState<boolean | undefined>(() => openState.get(stateKey));
  const open = chosen ?? defaultOpen(item, changesThings);
  const setOpen = (v: boolean) => {
    openState.set(stateKey, v);
    setChosen(v);
  };
  const child = useSession((s) => (item.toolName === TASK_TOOL ? childrenByCall(s.agents)[item.callId] : undefined));
  const external = useSession((s) => childExternal(s, child));
  const approval = item.approval;
  const mark = useSession((s) => decisionOf(s, item));
  const request = useSession((s) => (approval ? s.approvals[approval.requestId] : undefined));
  const readOnly = useReviewing();
  // A past session under review takes no delegations.
  const canDelegate = !readOnly && item.toolName === TASK_TOOL;
  const edits = request?.edit ? editSummary(request.edit, request.preview?.kind === "spawn" ? request.preview : null) : [];
  // Who decided is the mark's to say; the badge stays for waiting, withdrawn, and old transcripts.
  const badge = approval !== null && (approval.state === "pending" || approval.state === "withdrawn" || mark === null);
  const cls = ["tool", item.isError ? "error" : "", approval?.state === "pending" ? "pending-approval" : ""].join(" ");
  // The tree the agent's calls act in: paths inside it read as Claude Code shows them.
  const workspace = useWorkspace();
  const root = useSession((s) => agentTreeRoot(s, agentId)) ?? workspace;
  const written = toolSummary(item);
  const summary = written.path ? shownPath(written.text, root) : written.text;
  const [fullOutput, setFullOutput] = useState(false);
  const output = clipOutput(item.output, !item.done, fullOutput);
  return (
    <div className={cls}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <IconTool size={12} />
        <ToolName name={item.toolName} mcp={item.mcp} className="tool-name" />
        <span className="tool-summary" title={summary === written.text ? undefined : written.text}>
          {summary}
        </span>
        {item.toolName === TASK_TOOL && item.done && item.output ? (
          <span
            className="task-context faint"
            data-testid="task-context"
            title="What the child's result added to this agent's context (Arbor's estimate)"
          >
            +{formatTokens(estimatedTokens(item.output))} tok into context
          </span>
        ) : null}
        {approval && badge ? <ApprovalBadge state={approval.state} scope={approval.scope} /> : null}
        {item.input === "writing" ? (
          <span className="badge writing" data-testid="tool-writing">
            writing…
          </span>
        ) : item.input === "cut" ? (
          <span className="badge failed" title="The model's response ended before this call was complete">
            incomplete · not run
          </span>
        ) : item.done ? (
          item.isError ? (
            <span className="badge failed">error</span>
          ) : (
            <StatusIcon status="completed" />
          )
        ) : approval?.state === "pending" ? null : (
          <StatusIcon status="running" />
        )}
      </button>
      {approval?.state === "pending" ? <ToolApprovalBar requestId={approval.requestId} readOnly={readOnly} /> : null}
      {mark && mark.kind !== "policy" ? (
        <div className="tool-decision">
          <DecisionMark mark={mark} />
          {edits.length > 0 ? (
            <span className="spawn-edit" data-testid="spawn-edit">
              started with your changes: {edits.join(", ")}
            </span>
          ) : null}
        </div>
      ) : null}
      {item.hooks.length > 0 ? (
        <div className="tool-hooks" data-testid="tool-hooks">
          {item.hooks.map((h, i) => (
            <HookRow key={i} ran={h} />
          ))}
        </div>
      ) : null}
      {open ? (
        <div className="tool-body">
          {mark?.kind === "policy" ? (
            <div>
              <DecisionMark mark={mark} />
            </div>
          ) : null}
          <ToolArgs toolName={item.toolName} args={item.args} root={root} />
          {external ? (
            <div className="tool-external" data-testid="task-external" title={externalNote(external)}>
              <span className="badge external">ACP</span> runs <code className="mono">{external.command}</code> ·{" "}
              {external.sandbox ? "its process in Arbor's sandbox" : "its process outside Arbor's sandbox"}
            </div>
          ) : null}
          {child ? (
            <div>
              <button type="button" className="btn small" onClick={() => select(child)}>
                Open subagent {child} →
              </button>
            </div>
          ) : null}
          {canDelegate ? (
            <div>
              <button
                type="button"
                className="btn small ghost"
                data-testid="task-delegate"
                title="Open Delegate… under this agent with this task's prompt and agent type"
                onClick={() => delegateSimilar(agentId, item.args)}
              >
                <IconBranch size={12} /> Delegate similar…
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

/** The arguments that name a file or folder: shown relative to the agent's tree. */
const PATH_ARGS: ReadonlySet<string> = new Set(["file_path", "path"]);

/**
 * The head's summary as the model wrote it: the call's first telling argument,
 * on one line (the tool name is shown beside it), and whether it names a path.
 */
function toolSummary(item: ToolItem): { text: string; path: boolean } {
  if (item.mcp) return { text: firstStringArg(item.args) ?? "", path: false };
  const a = item.args;
  if (a && typeof a === "object" && !Array.isArray(a)) {
    for (const k of ["description", "file_path", "command", "pattern", "path", "task_id"]) {
      const v = a[k];
      if (typeof v === "string") return { text: v.split("\n", 1)[0] ?? "", path: PATH_ARGS.has(k) };
    }
  }
  return { text: "", path: false };
}
