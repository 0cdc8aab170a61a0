/**
 * Builders for the commands the UI sends: plain functions from form values to
 * the generated `Command` type, so what a form sends is tested without Tauri.
 */
import { GENERAL_PURPOSE, type AgentId, type ApprovalScope, type Command } from "../bindings";

export interface DelegateForm {
  parentId: AgentId;
  subagentType: string;
  prompt: string;
  description: string;
  model: string;
}

const orNull = (s: string): string | null => {
  const t = s.trim();
  return t === "" ? null : t;
};

/** The delegate command for a form; general-purpose is sent as no type (the backend's default). */
export function delegateCommand(form: DelegateForm): Command {
  return {
    type: "delegate",
    parent_id: form.parentId,
    prompt: form.prompt.trim(),
    description: orNull(form.description),
    subagent_type: form.subagentType === GENERAL_PURPOSE ? null : orNull(form.subagentType),
    model: orNull(form.model),
    max_turns: null,
  };
}

export function messageCommand(agentId: AgentId | null, text: string): Command {
  return { type: "send_message", agent_id: agentId, text };
}

export function approvalCommand(requestId: string, approved: boolean, scope: ApprovalScope): Command {
  return { type: "resolve_approval", request_id: requestId, approved, scope };
}

export function cancelCommand(agentId: AgentId): Command {
  return { type: "cancel", agent_id: agentId };
}

/** A new run of an agent that is not running; with no text the backend asks it to carry on. */
export function resumeCommand(agentId: AgentId): Command {
  return { type: "resume", agent_id: agentId, text: null };
}
