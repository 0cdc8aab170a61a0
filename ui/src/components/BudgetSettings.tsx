/**
 * Settings' "Budgets" section: the session's budget (the main agent's,
 * covering the whole tree), the budget every subagent starts with, and the
 * spawn-rate guard (new subagents a minute; 0: none). Fields are typed as
 * text: an empty one is no limit, a bad one is named and keeps Save off. It
 * edits the settings draft; Save stores it with the rest, and Rust's own
 * check of the limits answers there. Remounted (keyed) on Revert and Save.
 */
import { useState } from "react";
import { BUDGET_KINDS, BUDGET_WARNING_FRACTION, type BudgetKind, type BudgetSettings } from "../bindings";
import { percent } from "../lib/budget";
import { budgetFields, parseBudget, parseSpawnRate, type BudgetFields } from "../lib/budgetForm";
import { BudgetInputs } from "./BudgetInputs";

/** The session's budget may limit every kind; a subagent's default sets no subagents limit of its own here. */
const SESSION_KINDS: readonly BudgetKind[] = BUDGET_KINDS;
const SUBAGENT_KINDS: readonly BudgetKind[] = BUDGET_KINDS.filter((k) => k !== "subagents");

export function BudgetSettingsCard(props: {
  budgets: BudgetSettings | undefined;
  onChange: (next: BudgetSettings) => void;
  /** What is wrong with the fields (the first problem), or null once they all hold limits. */
  onProblem: (problem: string | null) => void;
}) {
  const { budgets, onChange, onProblem } = props;
  const [session, setSession] = useState<BudgetFields>(() => budgetFields(budgets?.session));
  const [subagent, setSubagent] = useState<BudgetFields>(() => budgetFields(budgets?.subagent));
  const [rate, setRate] = useState(() =>
    budgets?.max_spawns_per_minute === undefined ? "" : String(budgets.max_spawns_per_minute),
  );

  const parsed = (s: BudgetFields, a: BudgetFields, r: string) => ({
    session: parseBudget(s, SESSION_KINDS, budgets?.session),
    subagent: parseBudget(a, SUBAGENT_KINDS, budgets?.subagent),
    rate: parseSpawnRate(r),
  });
  const now = parsed(session, subagent, rate);

  const apply = (s: BudgetFields, a: BudgetFields, r: string) => {
    setSession(s);
    setSubagent(a);
    setRate(r);
    const p = parsed(s, a, r);
    if (!p.session.ok || !p.subagent.ok || !p.rate.ok) {
      const problems = [
        ...(p.session.ok ? [] : Object.values(p.session.problems).map((m) => `Session ${lower(m)}`)),
        ...(p.subagent.ok ? [] : Object.values(p.subagent.problems).map((m) => `Each subagent's ${lower(m)}`)),
        ...(p.rate.ok ? [] : [p.rate.problem]),
      ];
      onProblem(problems[0] ?? null);
      return;
    }
    const { max_spawns_per_minute: _stored, ...rest } = budgets ?? {};
    onChange({
      ...rest,
      session: p.session.budget,
      subagent: p.subagent.budget,
      ...(p.rate.rate === null ? {} : { max_spawns_per_minute: p.rate.rate }),
    });
    onProblem(null);
  };

  return (
    <section className="card" id="settings-budgets" aria-labelledby="budgets-h">
      <h2 id="budgets-h">Budgets</h2>
      <div className="card-body">
        <span className="hint" data-testid="settings-budgets-about">
          A budget covers an agent and everything it starts. At {percent(BUDGET_WARNING_FRACTION)}% its agents are
          told to wrap up; when it runs out they stop as “budget exhausted”. An empty field is no limit.
        </span>
        <div className="budget-group">
          <div className="section-label">Session</div>
          <span className="hint">The main agent's budget, covering the whole tree.</span>
          <BudgetInputs
            kinds={SESSION_KINDS}
            fields={session}
            problems={now.session.ok ? {} : now.session.problems}
            onChange={(s) => apply(s, subagent, rate)}
            testId="settings-budget-session"
            label="Session"
          />
        </div>
        <div className="budget-group">
          <div className="section-label">Each subagent</div>
          <span className="hint">
            What every subagent may use, unless its type, the call that starts it or you say otherwise; always within
            what its parent has left.
          </span>
          <BudgetInputs
            kinds={SUBAGENT_KINDS}
            fields={subagent}
            problems={now.subagent.ok ? {} : now.subagent.problems}
            onChange={(a) => apply(session, a, rate)}
            testId="settings-budget-subagent"
            label="Subagent"
          />
        </div>
        <label className="field budget-rate">
          <span className="label">New subagents per minute</span>
          <input
            className="input"
            data-testid="settings-budget-spawn-rate"
            inputMode="numeric"
            placeholder="default"
            aria-invalid={now.rate.ok ? undefined : true}
            value={rate}
            onChange={(e) => apply(session, subagent, e.target.value)}
          />
          {now.rate.ok ? (
            <span className="hint">How many subagents the models may start in any minute. 0: no limit.</span>
          ) : (
            <span className="field-problem" data-testid="settings-budget-spawn-rate-problem">
              {now.rate.problem}
            </span>
          )}
        </label>
      </div>
    </section>
  );
}

function lower(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
