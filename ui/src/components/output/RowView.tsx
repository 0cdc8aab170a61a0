/**
 * One row of an agent's output, by kind: its task, a message (a person's,
 * sent and not yet read, or Arbor's),
 * thinking, a part of a response (Markdown; a long response is several rows,
 * see lib/responseParts.ts), a tool call, a background task's
 * notification, an MCP connection line, a file change line, a budget
 * warning, a row of an imported transcript, a hook's run, the agent's plan, or the result.
 */
import { memo } from "react";
import type { AgentId } from "../../bindings";
import type { PartedItem, ResponsePart } from "../../lib/responseParts";
import { MarkdownBlocks } from "../Markdown";
import { BudgetWarningRow } from "./BudgetWarningRow";
import { ChangeLine } from "./ChangeLine";
import { ImportedEntryRow } from "./ImportedEntryRow";
import { CompactionRow } from "./CompactionRow";
import { HookRow } from "./HookRow";
import { McpStatusRow } from "./McpStatusRow";
import { NotificationRow } from "./NotificationRow";
import { PlanCard } from "./PlanCard";
import { ResultCard } from "./ResultCard";
import { ThinkingBlock } from "./ThinkingBlock";
import { ToolCard } from "./ToolCard";
import { UserRow } from "./UserRow";

/** The output's rows: the agent's items, led by "Load earlier" and its task when it has them. */
export type Row =
  | { kind: "prompt"; key: string; text: string }
  | { kind: "queued"; key: string; text: string }
  | { kind: "earlier"; key: string; loading: boolean; error: string | null }
  | PartedItem;

/** The row's extra classes: a response's parts join up (no padding where one continues the next). */
export function rowClass(row: Row): string {
  if (row.kind !== "response") return "";
  return `${row.first ? "" : " md-cont-top"}${row.last ? "" : " md-cont-bottom"}`;
}

/** A part's Markdown box: margins kept where it continues (output.css), the caret on the streaming end. */
function partClass(part: ResponsePart): string {
  return `${part.first ? "" : "md-cont-top "}${part.last ? "" : "md-cont-bottom "}${part.streaming ? "caret" : ""}`.trim();
}

export const RowView = memo(function RowView({ row, agentId }: { row: Exclude<Row, { kind: "earlier" }>; agentId: AgentId }) {
  switch (row.kind) {
    case "prompt":
      return (
        <div className="task-prompt">
          <div className="who">Task</div>
          {row.text}
        </div>
      );
    case "user":
      return <UserRow text={row.text} from={row.from} />;
    case "queued":
      return <UserRow text={row.text} from="person" queued />;
    case "thoughts":
      return <ThinkingBlock text={row.text} streaming={row.streaming} />;
    case "response":
      return <MarkdownBlocks blocks={row.blocks} links={row.links} className={partClass(row)} streaming={row.streaming} />;
    case "tool":
      return <ToolCard item={row} agentId={agentId} />;
    case "notification":
      return <NotificationRow taskId={row.taskId} status={row.status} summary={row.summary} />;
    case "mcp":
      return <McpStatusRow item={row} />;
    case "change":
      return <ChangeLine item={row} agentId={agentId} />;
    case "budget":
      return <BudgetWarningRow item={row} />;
    case "imported":
      return <ImportedEntryRow item={row} agentId={agentId} />;
    case "compacted":
      return <CompactionRow item={row} agentId={agentId} />;
    case "hook":
      return <HookRow ran={row.ran} />;
    case "plan":
      return <PlanCard plan={row.plan} />;
    case "finished":
      return <ResultCard item={row} agentId={agentId} />;
  }
});
