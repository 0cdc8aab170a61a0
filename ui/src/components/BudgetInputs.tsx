/**
 * The fields of a budget, as Settings, Delegate… and Budget… ask for them:
 * one per limit kind shown (tokens, dollars, wall time in minutes,
 * subagents), typed as text, each with what is wrong with it. The form that
 * holds them parses them (lib/budgetForm.ts) and decides what empty means.
 */
import type { BudgetKind } from "../bindings";
import { BUDGET_FIELD_LABELS, type BudgetFields } from "../lib/budgetForm";

export function BudgetInputs({
  kinds,
  fields,
  problems = {},
  onChange,
  testId,
  placeholder = "no limit",
  label,
}: {
  kinds: readonly BudgetKind[];
  fields: BudgetFields;
  problems?: Partial<Record<BudgetKind, string>>;
  onChange: (next: BudgetFields) => void;
  /** Each input's test id is `${testId}-${kind}`. */
  testId: string;
  /** What an empty field shows. */
  placeholder?: string;
  /** Whose budget, for the inputs' accessible names ("Session tokens"). */
  label?: string;
}) {
  return (
    <div className="budget-inputs">
      {kinds.map((kind) => {
        const f = BUDGET_FIELD_LABELS[kind];
        const problem = problems[kind];
        const id = `${testId}-${kind}`;
        return (
          <label className="field" key={kind}>
            <span className="label">{f.label}</span>
            <span className="budget-input">
              {kind === "cost" ? <span className="faint">$</span> : null}
              <input
                className="input"
                data-testid={id}
                inputMode={f.whole ? "numeric" : "decimal"}
                aria-label={label ? `${label} ${f.label.toLowerCase()}` : undefined}
                aria-invalid={problem ? true : undefined}
                placeholder={placeholder}
                value={fields[kind]}
                onChange={(e) => onChange({ ...fields, [kind]: e.target.value })}
                spellCheck={false}
              />
              {kind === "duration" ? <span className="faint">min</span> : null}
            </span>
            {problem ? (
              <span className="field-problem" data-testid={`${id}-problem`}>
                {problem}
              </span>
            ) : null}
          </label>
        );
      })}
    </div>
  );
}
