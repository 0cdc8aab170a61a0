/**
 * What may be done with one agent from its tree row: Delegate…, Message…,
 * Stop, Resume, Raise budget…; compact icon buttons (each named for
 * assistive technology, and described in its tooltip), shown only on the row
 * that is selected, hovered or holds the focus, so rows keep one height.
 */
import type { ReactNode } from "react";
import type { AgentId, AgentStatus } from "../../bindings";
import { resumeAgent, stopAgent } from "../../ipc/actions";
import { Tip } from "../../lib/tooltip";
import { canMessage, canRaiseBudget, canResume, canStop } from "../../store/selectors";
import { openDialog, select } from "../../store/ui";
import { IconBranch, IconGauge, IconMessage, IconResume, IconStop } from "../icons";

export function NodeActions({ id, status }: { id: AgentId; status: AgentStatus }) {
  // Stop gives way to Resume or Raise budget… in the same place as the agent ends. Each is its own
  // element (keyed), never one button relabelled: the tooltip over Stop goes with it, and the button
  // that takes its place shows its own only once hovered or focused anew.
  return (
    <span className="node-actions" data-testid="node-actions">
      <Action
        key="delegate"
        testId="node-delegate"
        label="Delegate…"
        tip="Delegate…: start a subagent under this agent (Shift+D when it is selected)"
        shortcut="Shift+D"
        onClick={() => {
          select(id);
          openDialog({ kind: "delegate", parentId: id });
        }}
      >
        <IconBranch size={13} />
      </Action>
      {canMessage(status) ? (
        <Action
          key="message"
          testId="node-message"
          label="Message…"
          tip="Message…: send a steering message to this agent"
          onClick={() => {
            select(id);
            openDialog({ kind: "message", agentId: id });
          }}
        >
          <IconMessage size={13} />
        </Action>
      ) : null}
      {canStop(status) ? (
        <Action key="stop" testId="node-stop" label="Stop" tip="Stop this agent and its subagents" danger onClick={() => void stopAgent(id)}>
          <IconStop size={13} />
        </Action>
      ) : null}
      {canResume(status) ? (
        <Action
          key="resume"
          testId="node-resume"
          label="Resume"
          tip="Resume: start a new run of this agent; it carries on where it stopped, and its result reaches its parent"
          onClick={() => {
            select(id);
            void resumeAgent(id);
          }}
        >
          <IconResume size={13} />
        </Action>
      ) : null}
      {canRaiseBudget(status) ? (
        <Action
          key="raise-budget"
          testId="node-raise-budget"
          label="Raise budget…"
          tip="Raise budget…: its budget ran out; raise it to let it carry on where it stopped"
          onClick={() => {
            select(id);
            openDialog({ kind: "budget", agentId: id });
          }}
        >
          <IconGauge size={13} />
        </Action>
      ) : null}
    </span>
  );
}

/** One icon button: its name for assistive technology, and its tooltip (floating: the row clips what leaves it). */
function Action(props: {
  testId: string;
  label: string;
  tip: string;
  shortcut?: string;
  danger?: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  const { testId, label, tip, shortcut, danger = false, onClick, children } = props;
  return (
    <Tip text={tip} float>
      {(describedBy) => (
        <button
          type="button"
          className={`btn small ghost icon-btn${danger ? " danger" : ""}`}
          data-testid={testId}
          aria-label={label}
          aria-describedby={describedBy}
          aria-keyshortcuts={shortcut}
          onClick={(e) => {
            // The row selects its agent on a click; the action decides what to select.
            e.stopPropagation();
            onClick();
          }}
        >
          {children}
        </button>
      )}
    </Tip>
  );
}
