/** Budgets in words: limits, a standing's figures (as Rust sent them), the meter's fill, tone and label. */
import { describe, expect, it } from "vitest";
import { BUDGET_KINDS, BUDGET_ORIGINS, BUDGET_WARNING_FRACTION } from "../bindings";
import { budget, standing } from "../test/usage";
import {
  BUDGET_LIMIT_KEYS,
  BUDGET_ORIGIN_WORDS,
  budgetSource,
  describeBudget,
  durationWords,
  limitFigures,
  limitedKinds,
  meterFill,
  meterLabel,
  meterTone,
  standingLines,
  standingShort,
  warningText,
} from "./budget";

describe("budgets in words", () => {
  it("names every kind Rust has, and says a budget's limits as Rust does", () => {
    expect(Object.keys(BUDGET_LIMIT_KEYS).sort()).toEqual([...BUDGET_KINDS].sort());
    expect(describeBudget(null)).toBe("no limits");
    expect(describeBudget(budget())).toBe("no limits");
    expect(
      describeBudget(budget({ max_tokens: 10_000, max_cost_usd: 2, max_duration_seconds: 600, max_subagents: 1 })),
    ).toBe("10,000 tokens · $2.00 · 10 min 00 s · 1 subagent");
    expect(limitedKinds(budget({ max_subagents: 5, max_tokens: 1 }))).toEqual(["tokens", "subagents"]);
  });

  it("says spans as Rust's messages do", () => {
    expect(durationWords(850)).toBe("850 ms");
    expect(durationWords(42_300)).toBe("42 s");
    expect(durationWords(4_200)).toBe("4.2 s");
    expect(durationWords(185_000)).toBe("3 min 05 s");
    expect(durationWords(3_720_000)).toBe("1 h 02 min");
  });

  it("lists every limit with its figures for the tooltip, cache reads and unpriced models included", () => {
    const s = standing(
      { max_tokens: 10_000, max_cost_usd: 2, max_duration_seconds: 600, max_subagents: 5 },
      { tokens: 8200, cache_read_tokens: 1200, cost_usd: 0.41, cost_incomplete: true, elapsed_ms: 185_000, subagents: 2 },
      0.82,
      "tokens",
    );
    expect(standingLines(s)).toEqual([
      "Tokens 8,200 of 10,000 (and 1,200 cache reads)",
      "Cost $0.41 of $2.00",
      "Wall time 3 min 05 s of 10 min 00 s",
      "Subagents 2 of 5",
      "Cost: some models' prices are unknown",
    ]);
    expect(limitFigures(s, "tokens")).toBe("8,200 of 10,000 tokens (and 1,200 cache reads)");
    expect(limitFigures(s, "duration")).toBe("3 min 05 s of 10 min 00 s wall time");
    // Unpriced models matter only to a cost limit.
    const noCost = standing({ max_tokens: 100 }, { tokens: 10, cost_incomplete: true }, 0.1, "tokens");
    expect(standingLines(noCost)).toEqual(["Tokens 10 of 100"]);
  });

  it("fills the meter to the share of the nearest limit, at most all of it", () => {
    expect(meterFill(standing({ max_tokens: 100 }, { tokens: 42 }, 0.42, "tokens"))).toBe(0.42);
    expect(meterFill(standing({ max_tokens: 100 }, { tokens: 130 }, 1.3, "tokens", "tokens"))).toBe(1);
    // A share Rust could not compute (sent as null) reads as nothing used.
    expect(meterFill({ ...standing({ max_tokens: 100 }, {}, 0, "tokens"), fraction: null })).toBe(0);
  });

  it("turns amber at Rust's warning share and red once a limit ran out", () => {
    const at = (f: number, exhausted: "tokens" | null = null) =>
      meterTone(standing({ max_tokens: 100 }, { tokens: f * 100 }, f, "tokens", exhausted));
    expect(at(BUDGET_WARNING_FRACTION - 0.01)).toBe("ok");
    expect(at(BUDGET_WARNING_FRACTION)).toBe("warn");
    expect(at(0.95)).toBe("warn");
    // The next request would pass the limit: exhausted before it is reached.
    expect(at(0.9, "tokens")).toBe("exhausted");
  });

  it("labels the meter by its share and limit, and says which ran out", () => {
    const s = standing({ max_tokens: 10_000, max_subagents: 4 }, { tokens: 4200, subagents: 3 }, 0.75, "subagents");
    expect(meterLabel(s)).toBe("Budget: 75% of subagents used");
    expect(standingShort(s)).toBe("Budget 75% · 3 / 4 subagents");
    const out = standing({ max_cost_usd: 2 }, { cost_usd: 2.1 }, 1.05, "cost", "cost");
    expect(meterLabel(out)).toBe("Budget: 105% of cost used; cost ran out");
    expect(standingShort(out)).toBe("Budget 105% · $2.10 / $2.00");
    const none = standing({}, {}, 0, null);
    expect(meterLabel(none)).toBe("Budget: no limits");
    expect(standingShort(none)).toBe("Budget: no limits");
  });

  it("says who gave a budget, for every origin Rust has, and which limits were cut", () => {
    expect(Object.keys(BUDGET_ORIGIN_WORDS).sort()).toEqual([...BUDGET_ORIGINS].sort());
    expect(budgetSource("task_call", [])).toBe("From the Task call that started it.");
    expect(budgetSource("delegation", ["tokens", "duration"])).toBe(
      "From you, when you delegated it; tokens, wall time cut to what the budgets above it had left.",
    );
  });

  it("says a warning with the figures of the limit it is about", () => {
    const s = standing({ max_tokens: 10_000 }, { tokens: 8000 }, 0.8, "tokens");
    expect(warningText("tokens", s)).toBe("Budget 80% used: 8,000 of 10,000 tokens — its agents were told to wrap up");
    expect(warningText("tokens", { ...s, exhausted: "tokens" })).toBe(
      "Budget ran out: 8,000 of 10,000 tokens — its subtree was stopped",
    );
  });
});
