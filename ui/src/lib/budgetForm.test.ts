/** Budget fields as typed: prefilled from a budget, parsed back (wall time in minutes), and what is wrong with them. */
import { describe, expect, it } from "vitest";
import { BUDGET_KINDS } from "../bindings";
import { budget } from "../test/usage";
import { budgetFields, budgetOrNull, firstProblem, parseBudget, parseField, parseSpawnRate } from "./budgetForm";

describe("budget fields", () => {
  it("show a budget's limits, wall time in minutes, and read them back the same", () => {
    const b = budget({ max_tokens: 10_000, max_cost_usd: 0.5, max_duration_seconds: 90, max_subagents: 3 });
    const fields = budgetFields(b);
    expect(fields).toEqual({ tokens: "10000", cost: "0.5", duration: "1.5", subagents: "3" });
    expect(parseBudget(fields, BUDGET_KINDS)).toEqual({ ok: true, budget: b });
    expect(budgetFields(null)).toEqual({ tokens: "", cost: "", duration: "", subagents: "" });
  });

  it("read an empty field as no limit, and separators people type as nothing", () => {
    expect(parseField("tokens", "")).toEqual({ ok: true, limit: null });
    expect(parseField("tokens", " 10,000 ")).toEqual({ ok: true, limit: 10_000 });
    expect(parseField("cost", "$2")).toEqual({ ok: true, limit: 2 });
    expect(parseField("duration", "10")).toEqual({ ok: true, limit: 600 });
    expect(parseBudget(budgetFields(null), BUDGET_KINDS)).toEqual({ ok: true, budget: budget() });
  });

  it("name what is not a positive number, per field", () => {
    for (const text of ["0", "-5", "abc", "1e3", "NaN"]) expect(parseField("tokens", text).ok, text).toBe(false);
    expect(parseField("tokens", "1.5")).toEqual({ ok: false, problem: "Tokens: a whole number above 0, or empty" });
    expect(parseField("subagents", "2.5").ok).toBe(false);
    expect(parseField("cost", "0")).toEqual({ ok: false, problem: "Dollars: a number above 0, or empty" });
    expect(parseField("duration", "0.001").ok).toBe(false);
    const parsed = parseBudget({ tokens: "-1", cost: "x", duration: "5", subagents: "" }, BUDGET_KINDS);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(Object.keys(parsed.problems)).toEqual(["tokens", "cost"]);
    expect(firstProblem(parsed)).toBe("Tokens: a whole number above 0, or empty");
  });

  it("keep the limits of kinds the form does not show", () => {
    const base = budget({ max_tokens: 1, max_subagents: 4 });
    const parsed = parseBudget({ tokens: "500", cost: "", duration: "", subagents: "99" }, ["tokens", "cost", "duration"], base);
    expect(parsed).toEqual({ ok: true, budget: budget({ max_tokens: 500, max_subagents: 4 }) });
  });

  it("send no budget for a delegation whose fields are all empty", () => {
    expect(budgetOrNull(budget())).toBeNull();
    expect(budgetOrNull(budget({ max_cost_usd: 1 }))).toEqual(budget({ max_cost_usd: 1 }));
  });

  it("read the spawn rate as a whole number, 0 being no guard and empty Rust's default", () => {
    expect(parseSpawnRate("")).toEqual({ ok: true, rate: null });
    expect(parseSpawnRate("0")).toEqual({ ok: true, rate: 0 });
    expect(parseSpawnRate(" 12 ")).toEqual({ ok: true, rate: 12 });
    expect(parseSpawnRate("-1").ok).toBe(false);
    expect(parseSpawnRate("2.5").ok).toBe(false);
  });
});
