/**
 * A spawn request's card body (the card's `spawn-card`, with its answers):
 * the subagent a Task call would start (type,
 * description, model, provider, every tool it would be offered, max turns,
 * the prompt), editable before approving. Tools can only be unchecked (a
 * spawn is narrowed, never widened). The answer sends only what changed
 * (ipc/approvals.ts); what changed, or why the form cannot be sent, shows here.
 */
import { memo } from "react";
import type { SpawnPlan } from "../../bindings";
import { spawnEditOf, toggleTool, type SpawnDraft } from "../../lib/spawnEdit";
import { approvalsStore, patchDraft, spawnFormOf } from "../../store/approvals";
import { useStore } from "../../store/store";

export const SpawnForm = memo(function SpawnForm(props: { requestId: string; plan: SpawnPlan; disabled: boolean }) {
  const { requestId, plan, disabled } = props;
  const form = useStore(approvalsStore, (s) => spawnFormOf(s, requestId, plan));
  const set = (next: SpawnDraft) => patchDraft(requestId, { spawn: next });
  const result = spawnEditOf(plan, form);
  const changed = result.ok && result.edit ? Object.keys(result.edit) : [];
  const id = (field: string) => `${requestId}-${field}`;
  return (
    <div className="spawn-card">
      <div className="spawn-head">
        {/* A fork gets the whole conversation: the person approving it should know. */}
        {plan.fork ? (
          <span className="badge fork" title={`Starts from this agent's ${plan.fork.messages} messages`}>
            fork
          </span>
        ) : (
          <span className="badge">{plan.subagent_type}</span>
        )}
        <span className="spawn-desc" title={plan.description}>
          {plan.description}
        </span>
        {plan.background ? <span className="badge">background</span> : null}
      </div>
      <div className="spawn-grid">
        <label className="field" htmlFor={id("model")}>
          <span className="label">Model</span>
          <input
            id={id("model")}
            className="input mono"
            data-testid="spawn-model"
            value={form.model}
            disabled={disabled}
            spellCheck={false}
            onChange={(e) => set({ ...form, model: e.target.value })}
          />
          <span className="hint">on {plan.provider}</span>
        </label>
        <label className="field" htmlFor={id("turns")}>
          <span className="label">Max turns</span>
          <input
            id={id("turns")}
            className="input"
            type="number"
            min={1}
            data-testid="spawn-max-turns"
            value={form.maxTurns}
            disabled={disabled}
            onChange={(e) => set({ ...form, maxTurns: e.target.value })}
          />
        </label>
      </div>
      <fieldset className="spawn-tools" disabled={disabled}>
        <legend className="label">
          Tools <span className="faint">({form.tools.length} of {plan.tools.length}; uncheck to withhold)</span>
        </legend>
        {plan.tools.length === 0 ? <span className="faint">none</span> : null}
        {plan.tools.map((t) => (
          <label key={t} className="spawn-tool">
            <input
              type="checkbox"
              data-testid="spawn-tool"
              data-tool={t}
              checked={form.tools.includes(t)}
              onChange={(e) => set(toggleTool(plan, form, t, e.target.checked))}
            />
            <span className="mono">{t}</span>
          </label>
        ))}
      </fieldset>
      <label className="field" htmlFor={id("prompt")}>
        <span className="label">Prompt</span>
        <textarea
          id={id("prompt")}
          className="textarea"
          data-testid="spawn-prompt"
          rows={5}
          value={form.prompt}
          disabled={disabled}
          onChange={(e) => set({ ...form, prompt: e.target.value })}
        />
      </label>
      {!result.ok ? (
        <div className="inline-error" role="alert" data-testid="spawn-problem">
          {result.problem}
        </div>
      ) : changed.length > 0 ? (
        <div className="spawn-changed">
          <span>Approving starts it with your changes: {changed.map((k) => k.replace("_", " ")).join(", ")}.</span>
          <button type="button" className="btn small ghost" disabled={disabled} onClick={() => patchDraft(requestId, { spawn: null })}>
            Undo changes
          </button>
        </div>
      ) : null}
    </div>
  );
});
