/**
 * One row of an agent's output, by kind: its task, a person's message,
 * thinking, a response (Markdown), a tool call, a background task's
 * notification, an MCP connection line, a file change line, a budget
 * warning, a row of an imported transcript, or the result.
 */
import { memo } from "react";
import type { AgentId } from "../../bindings";
import type { OutputItem } from "../../store/session/types";
import { Markdown } from "../Markdown";
import { BudgetWarningRow } from "./BudgetWarningRow";
import { ChangeLine } from "./ChangeLine";
import { ImportedEntryRow } from "./ImportedEntryRow";
import { McpStatusRow } from "./McpStatusRow";
import { NotificationRow } from "./NotificationRow";
import { ResultCard } from "./ResultCard";
import { ThinkingBlock } from "./ThinkingBlock";
import { ToolCard } from "./ToolCard";

/** The output's rows: the agent's items, led by "Load earlier" and its task when it has them. */
export type Row =
  | { kind: "prompt"; key: string; text: string }
  | { kind: "earlier"; key: string; loading: boolean; error: string | null }
  | OutputItem;

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
      return (
        <div className="item-user">
          <div className="who">You</div>
          {row.text}
        </div>
      );
    case "thoughts":
      return <ThinkingBlock text={row.text} streaming={row.streaming} />;
    case "response":
      return <Markdown text={row.text} streaming={row.streaming} />;
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
    case "finished":
      return <ResultCard item={row} agentId={agentId} />;
  }
});
