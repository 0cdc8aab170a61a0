/**
 * Editing a subagent before approving its spawn: the form's values from the
 * plan Rust previewed, the edit an answer sends (only what the person
 * changed: unchanged fields are left out), what makes the form unusable, and
 * how an edit reads afterwards. Pure; tested without React.
 */
import type { SpawnEdit, SpawnPlan } from "../bindings";

/** The spawn form as the person left it. */
export interface SpawnDraft {
  prompt: string;
  model: string;
  /** The plan's tools still checked (a spawn may be narrowed, never widened). */
  tools: string[];
  /** As typed; read as a whole number of turns. */
  maxTurns: string;
}

export function spawnDraft(plan: SpawnPlan): SpawnDraft {
  return { prompt: plan.prompt, model: plan.model, tools: [...plan.tools], maxTurns: String(plan.max_turns) };
}

/** The edit to send (null: nothing changed), or why the form cannot be sent as it is. */
export type SpawnEditResult = { ok: true; edit: SpawnEdit | null } | { ok: false; problem: string };

export function spawnEditOf(plan: SpawnPlan, draft: SpawnDraft): SpawnEditResult {
  const edit: SpawnEdit = {};
  if (draft.prompt !== plan.prompt) {
    if (draft.prompt.trim() === "") return { ok: false, problem: "The prompt cannot be empty." };
    edit.prompt = draft.prompt;
  }
  const model = draft.model.trim();
  if (model === "") return { ok: false, problem: "Name the model it runs on." };
  if (model !== plan.model) edit.model = model;
  const turns = Number(draft.maxTurns.trim());
  if (draft.maxTurns.trim() === "" || !Number.isInteger(turns) || turns < 1) {
    return { ok: false, problem: "Max turns must be a whole number, 1 or more." };
  }
  if (turns !== plan.max_turns) edit.max_turns = turns;
  // In the plan's order, and only the plan's tools: an edit narrows the list.
  const kept = plan.tools.filter((t) => draft.tools.includes(t));
  if (kept.length !== plan.tools.length) edit.tools = kept;
  return { ok: true, edit: Object.keys(edit).length === 0 ? null : edit };
}

/** The draft with `tool` checked or unchecked (only the plan's tools can be checked). */
export function toggleTool(plan: SpawnPlan, draft: SpawnDraft, tool: string, checked: boolean): SpawnDraft {
  const set = new Set(draft.tools);
  if (checked) set.add(tool);
  else set.delete(tool);
  return { ...draft, tools: plan.tools.filter((t) => set.has(t)) };
}

/**
 * What a person changed before approving, as the review shows it: "prompt
 * edited", "model claude-a → claude-b", "without Bash, Write", "max turns 20 → 5".
 */
export function editSummary(edit: SpawnEdit, plan: SpawnPlan | null): string[] {
  const out: string[] = [];
  if (edit.prompt != null) out.push("prompt edited");
  if (edit.model != null) out.push(plan ? `model ${plan.model} → ${edit.model}` : `model ${edit.model}`);
  if (edit.tools != null) {
    const kept = edit.tools;
    const dropped = plan ? plan.tools.filter((t) => !kept.includes(t)) : [];
    out.push(dropped.length > 0 ? `without ${dropped.join(", ")}` : `tools ${kept.join(", ") || "none"}`);
  }
  if (edit.max_turns != null) out.push(plan ? `max turns ${plan.max_turns} → ${edit.max_turns}` : `max turns ${edit.max_turns}`);
  return out;
}
