/**
 * Builders for the commands the UI sends: plain functions from form values to
 * the generated `Command` type, so what a form sends is tested without Tauri.
 */
import {
  GENERAL_PURPOSE,
  type AgentId,
  type ApprovalScope,
  type Budget,
  type Command,
  type Isolation,
  type SandboxRequest,
  type SpawnEdit,
} from "../bindings";
import type { DelegationMode } from "./delegate";

export interface DelegateForm {
  parentId: AgentId;
  subagentType: string;
  prompt: string;
  /** Empty: the backend labels the agent from the prompt (the form shows that label as its suggestion). */
  description: string;
  model: string;
  /** Only these tools; null or absent: every tool its type gives it. */
  tools?: string[] | null;
  /** A stricter mode than its parent's; absent or "default": the parent's. */
  permissionMode?: DelegationMode;
  /** The child's sandbox as the person chose it; null or absent: the parent's. */
  sandbox?: SandboxRequest | null;
  /** A git worktree of its own; null or absent: the parent's tree (shared). */
  isolation?: Isolation | null;
  /** The child's budget (covering its subtree); null or absent: as its type says. */
  budget?: Budget | null;
}

const orNull = (s: string): string | null => {
  const t = s.trim();
  return t === "" ? null : t;
};

/**
 * The delegate command for a form; general-purpose is sent as no type (the
 * backend's default). Narrowing is sent only when the person narrowed: no
 * `tools` while every tool is ticked, no `permission_mode` for the parent's.
 * The sandbox, isolation and budget are always sent: null keeps the parent's
 * sandbox and the shared tree, and gives the budget its type gives (Rust keeps
 * any budget within what the parent's has left).
 */
export function delegateCommand(form: DelegateForm): Command {
  const mode = form.permissionMode ?? "default";
  return {
    type: "delegate",
    parent_id: form.parentId,
    prompt: form.prompt.trim(),
    description: orNull(form.description),
    subagent_type: form.subagentType === GENERAL_PURPOSE ? null : orNull(form.subagentType),
    model: orNull(form.model),
    max_turns: null,
    sandbox: form.sandbox ?? null,
    isolation: form.isolation ?? null,
    budget: form.budget ?? null,
    ...(form.tools ? { tools: form.tools } : {}),
    ...(mode !== "default" ? { permission_mode: mode } : {}),
  };
}

export function messageCommand(agentId: AgentId | null, text: string): Command {
  return { type: "send_message", agent_id: agentId, text };
}

/** What an answer may carry beside approve/deny and its scope. */
export interface AnswerExtras {
  /** Given to the agent with a denial, so it can change course. */
  reason?: string | null;
  /** A spawn's changes (only what the person changed). */
  edit?: SpawnEdit | null;
}

/** An approval answer; a reason or an edit only when there is one (an empty reason is none). */
export function approvalCommand(requestId: string, approved: boolean, scope: ApprovalScope, extras: AnswerExtras = {}): Command {
  const command: Command = { type: "resolve_approval", request_id: requestId, approved, scope };
  const reason = extras.reason?.trim();
  if (!approved && reason) command.reason = reason;
  if (approved && extras.edit) command.edit = extras.edit;
  return command;
}

/** Withdraws a standing rule: the next call it covered asks again. */
export function revokeRuleCommand(ruleId: string): Command {
  return { type: "revoke_rule", rule_id: ruleId };
}

export function cancelCommand(agentId: AgentId): Command {
  return { type: "cancel", agent_id: agentId };
}

/** Compacts an agent's conversation before its next request (at once when it runs, else at its next run). */
export function compactCommand(agentId: AgentId): Command {
  return { type: "compact", agent_id: agentId };
}

/** A new run of an agent that is not running; with no text the backend asks it to carry on. */
export function resumeCommand(agentId: AgentId): Command {
  return { type: "resume", agent_id: agentId, text: null };
}

/**
 * Changes an agent's budget: the limits given replace its own (one left null
 * stays as it was). An agent its budget stopped resumes when the new limits leave room.
 */
export function setBudgetCommand(agentId: AgentId, budget: Budget): Command {
  return { type: "set_budget", agent_id: agentId, budget };
}
