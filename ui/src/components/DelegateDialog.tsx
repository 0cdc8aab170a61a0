/**
 * "Delegate…": start a subagent under a chosen agent. Delegated subagents run
 * beside their parent; the result reaches it as a notification. The cursor
 * starts in the task; the description field suggests the backend's label for
 * it (sent as nothing when left empty, so the backend uses that same label);
 * "Limit this agent" narrows its tools and approval mode, sent only when
 * narrowed. "Sandbox" keeps the parent's (sent as null) or sets the child's
 * mode and network, which may loosen the parent's: the person decides.
 * "Isolation" runs it in the parent's tree (sent as null) or in a git
 * worktree of its own, whose changes come back on a branch to merge.
 * "Budget" gives it limits of its own (tokens, dollars, wall time), sent as
 * null when all are empty; Rust keeps them within what the parent has left.
 * The form may come prefilled from a Task call ("Delegate similar…"). Agent
 * types found on disk after the session started are listed too, but only
 * those the session can start can be chosen (lib/agentTypes).
 *
 * Its text fields are drafts (DraftField): a keystroke renders that field
 * (and, for the task, the description's suggestion), not the whole form; the
 * parent chip reads only the parent's status and label, so the parent's
 * streamed events do not render the form again.
 */
import { useEffect, useMemo, useState, type FormEvent } from "react";
import {
  BUDGET_KINDS,
  DELEGATION_PERMISSION_MODES,
  GENERAL_PURPOSE,
  ISOLATIONS,
  SANDBOX_MODES,
  type AgentId,
  type Budget,
  type BudgetKind,
  type Isolation,
  type SandboxMode,
} from "../bindings";
import { useTaskLabel } from "../hooks/useTaskLabel";
import { delegate } from "../ipc/actions";
import { refreshAgentTypes } from "../ipc/delegate";
import { typeOptions } from "../lib/agentTypes";
import { describeBudget } from "../lib/budget";
import { budgetFields, budgetOrNull, firstProblem, parseBudget, type BudgetFields } from "../lib/budgetForm";
import { ISOLATION_LABELS, isolationRequest } from "../lib/changes";
import {
  DELEGATION_MODE_LABELS,
  initialType,
  limitSummary,
  narrowedTools,
  type DelegationMode,
} from "../lib/delegate";
import { delegateSandboxHint, isSandboxMode, modeOptionText, networkChoosable, sandboxRequest } from "../lib/sandbox";
import { foundFor, foundTypesStore } from "../store/delegate";
import { sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { openDialog, select, uiStore } from "../store/ui";
import { ChoiceSelect } from "./ChoiceSelect";
import { IconChevron } from "./icons";
import { BudgetInputs } from "./BudgetInputs";
import { DraftInput, DraftTextarea, useDraft, useDraftValue, type Draft } from "./DraftField";
import { Modal } from "./Modal";
import { StatusIcon } from "./StatusIcon";

/** The limits a person gives a delegated agent here. */
const BUDGET_FIELDS: readonly BudgetKind[] = BUDGET_KINDS.filter((k) => k !== "subagents");

export function DelegateDialog({ parentId }: { parentId: AgentId }) {
  const parentStatus = useStore(sessionStore, (s) => s.agents[parentId]?.status ?? null);
  const parentLabel = useStore(sessionStore, (s) => {
    const parent = s.agents[parentId];
    return parent ? (parent.depth === 0 ? "Main agent" : parent.description) : parentId;
  });
  // The session's types and those found on disk since (lib/agentTypes), read again as the form opens.
  const types = useStore(uiStore, (s) => s.session?.agent_types);
  const workspace = useStore(uiStore, (s) => s.session?.workspace);
  const found = useStore(foundTypesStore, (f) => foundFor(f, workspace));
  const options = useMemo(() => typeOptions(types, found), [types, found]);
  useEffect(() => {
    void refreshAgentTypes();
  }, []);
  // What opened the form may have prefilled it (read once: later edits are the person's).
  const [prefill] = useState(() => {
    const d = uiStore.get().dialog;
    return d?.kind === "delegate" && d.parentId === parentId ? d : null;
  });
  const [type, setType] = useState<string>(() => {
    const offered = options.filter((o) => o.unavailable === null).map((o) => o.name);
    return initialType(prefill?.subagentType, offered, GENERAL_PURPOSE);
  });
  const prompt = useDraft(prefill?.prompt ?? "");
  const description = useDraft();
  const tools = useStore(uiStore, (s) => s.app?.tools);
  const toolNames = (tools ?? []).map((t) => t.name);
  const [unticked, setUnticked] = useState<ReadonlySet<string>>(() => new Set());
  const [mode, setMode] = useState<DelegationMode>("default");
  const model = useDraft();
  // null: the parent's sandbox.
  const [sandboxMode, setSandboxMode] = useState<SandboxMode | null>(null);
  const [sandboxNetwork, setSandboxNetwork] = useState(false);
  const [isolation, setIsolation] = useState<Isolation>("shared");
  const [budget, setBudget] = useState<BudgetFields>(() => budgetFields(null));
  const parsedBudget = parseBudget(budget, BUDGET_FIELDS);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const chosen = options.find((o) => o.name === type);
  const sandboxHint = delegateSandboxHint(sandboxMode);
  const close = () => openDialog(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const task = prompt.get();
    if (!task.trim()) {
      setError("Write the task for the subagent.");
      return;
    }
    if (!parsedBudget.ok) {
      setError(firstProblem(parsedBudget));
      return;
    }
    setBusy(true);
    setError(null);
    const narrowed = narrowedTools(toolNames, unticked);
    const r = await delegate({
      parentId,
      subagentType: type,
      prompt: task,
      description: description.get(),
      model: model.get(),
      tools: narrowed,
      permissionMode: mode,
      sandbox: sandboxRequest(sandboxMode, sandboxNetwork),
      isolation: isolationRequest(isolation),
      budget: budgetOrNull(parsedBudget.budget),
    });
    setBusy(false);
    if (!r.ok) {
      setError(r.message);
      return;
    }
    close();
    if (r.data) select(r.data);
  };

  return (
    <Modal title="Delegate a task" onClose={close}>
      <form data-testid="delegate-form" onSubmit={(e) => void submit(e)} noValidate>
        <div className="modal-body">
          <div className="field">
            <span className="hint">Parent</span>
            <div className="parent-chip">
              {parentStatus ? <StatusIcon status={parentStatus} /> : null}
              <strong>{parentLabel}</strong>
              <span className="faint mono">{parentId}</span>
            </div>
          </div>
          <label className="field">
            <span className="label">Agent type</span>
            <select
              className="select"
              data-testid="delegate-type"
              value={type}
              onChange={(e) => setType(e.target.value)}
            >
              {options.map((o) => (
                <option key={o.name} value={o.name} title={o.description} disabled={o.unavailable !== null}>
                  {o.name}
                  {o.model ? ` (${o.model})` : ""}
                  {o.unavailable ? ` — ${o.unavailable}` : ""}
                </option>
              ))}
            </select>
            {chosen?.description ? <span className="hint">{chosen.description}</span> : null}
          </label>
          <label className="field">
            <span className="label">Task</span>
            <DraftTextarea
              draft={prompt}
              className="textarea"
              data-testid="delegate-prompt"
              data-autofocus
              rows={5}
              required
              placeholder="What should the subagent do? It sees only this text. (Ctrl+Enter delegates)"
              onKeyDown={(e) => {
                if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) void submit(e);
              }}
            />
          </label>
          <div className="grid-2">
            <label className="field">
              <span className="label">Description</span>
              <DescriptionInput prompt={prompt} draft={description} />
            </label>
            <label className="field">
              <span className="label">Model</span>
              <DraftInput
                draft={model}
                className="input mono"
                data-testid="delegate-model"
                placeholder={chosen?.model ?? "inherit"}
                spellCheck={false}
              />
            </label>
          </div>
          <div className="grid-2 delegate-sandbox">
            <label className="field">
              <span className="label">Sandbox</span>
              <select
                className="select"
                data-testid="delegate-sandbox-mode"
                value={sandboxMode ?? "parent"}
                onChange={(e) => setSandboxMode(isSandboxMode(e.target.value) ? e.target.value : null)}
              >
                <option value="parent">Same as parent</option>
                {SANDBOX_MODES.map((m) => (
                  <option key={m} value={m}>
                    {modeOptionText(m)}
                  </option>
                ))}
              </select>
              <span className={`hint${sandboxHint.warn ? " sandbox-blocked" : ""}`}>{sandboxHint.text}</span>
            </label>
            <div className="field">
              <span className="label">Network</span>
              <label className="checkbox">
                <input
                  type="checkbox"
                  data-testid="delegate-sandbox-network"
                  disabled={!networkChoosable(sandboxMode)}
                  checked={sandboxNetwork}
                  onChange={(e) => setSandboxNetwork(e.target.checked)}
                />
                <span>Allow network</span>
              </label>
              <span className="hint">{sandboxHint.network}</span>
            </div>
          </div>
          <label className="field">
            <span className="label">Isolation</span>
            <ChoiceSelect
              testId="delegate-isolation"
              values={ISOLATIONS}
              labels={ISOLATION_LABELS}
              value={isolation}
              onChange={setIsolation}
            />
            <span className="hint">
              {isolation === "worktree"
                ? "It works on a branch of its own; when it finishes, merge, keep or discard its changes from the tree."
                : "It works in its parent's files, as they are."}
            </span>
          </label>
          <details className="delegate-limit delegate-budget">
            <summary>
              <IconChevron size={11} /> Budget
              <span className="faint" data-testid="delegate-budget-summary">
                {parsedBudget.ok ? budgetSummary(parsedBudget.budget) : "check the limits"}
              </span>
            </summary>
            <div className="delegate-limit-body">
              <BudgetInputs
                kinds={BUDGET_FIELDS}
                fields={budget}
                problems={parsedBudget.ok ? {} : parsedBudget.problems}
                onChange={setBudget}
                testId="delegate-budget"
              />
              <span className="hint">
                Covers it and everything it starts; kept within what its parent's budget has left. A field left empty:
                as its type, or Settings' budget for every subagent, says.
              </span>
            </div>
          </details>
          <details className="delegate-limit">
            <summary>
              <IconChevron size={11} /> Limit this agent
              <span className="faint">{limitSummary(toolNames, unticked, mode)}</span>
            </summary>
            <div className="delegate-limit-body">
              <div className="field">
                <span className="label">Tools</span>
                {toolNames.length > 0 ? (
                  <div className="delegate-tools">
                    {toolNames.map((name) => (
                      <label className="checkbox" key={name}>
                        <input
                          type="checkbox"
                          data-testid="delegate-tool"
                          data-tool={name}
                          checked={!unticked.has(name)}
                          onChange={(e) => {
                            const next = new Set(unticked);
                            if (e.target.checked) next.delete(name);
                            else next.add(name);
                            setUnticked(next);
                          }}
                        />
                        <span className="mono">{name}</span>
                      </label>
                    ))}
                  </div>
                ) : (
                  <span className="faint">The tool list has not loaded.</span>
                )}
                <span className="hint">
                  Untick what it should not have; it never gets a tool its type lacks. MCP tools follow the agent type.
                </span>
              </div>
              <label className="field">
                <span className="label">Approvals</span>
                <ChoiceSelect
                  testId="delegate-mode"
                  values={DELEGATION_PERMISSION_MODES}
                  labels={DELEGATION_MODE_LABELS}
                  value={mode}
                  onChange={setMode}
                />
              </label>
            </div>
          </details>
          {error ? (
            <div className="inline-error" role="alert">
              {error}
            </div>
          ) : null}
        </div>
        <div className="modal-foot">
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="btn primary" data-testid="delegate-submit" disabled={busy}>
            {busy ? "Delegating…" : "Delegate"}
          </button>
        </div>
      </form>
    </Modal>
  );
}

/** The description, suggesting the backend's label for the task as typed so far (asked for once typing pauses). */
function DescriptionInput({ prompt, draft }: { prompt: Draft; draft: Draft }) {
  const suggestion = useTaskLabel(useDraftValue(prompt, (t) => t));
  return (
    <DraftInput
      draft={draft}
      className="input"
      data-testid="delegate-description"
      placeholder={suggestion || "3–5 words for the tree"}
      title={suggestion ? `Left empty, it is labelled “${suggestion}”` : undefined}
    />
  );
}

/** The folded Budget section's summary: the limits typed, or what an empty form leaves. */
function budgetSummary(budget: Budget): string {
  return budgetOrNull(budget) === null ? "as its type or Settings say" : describeBudget(budget);
}
