import { describe, expect, it } from "vitest";
import { AGENT_STATUSES } from "../bindings";
import { clipOutput, endTone, formatTurns, OUTPUT_PREVIEW, orList, resultMeta, statusLabel } from "./format";

describe("statuses in words", () => {
  it("has words for every status Rust has", () => {
    for (const s of AGENT_STATUSES) expect(statusLabel(s)).not.toBe("");
    expect(statusLabel("truncated")).toBe("cut off");
    expect(statusLabel("max_turns")).toBe("turn limit reached");
    expect(statusLabel("budget_exhausted")).toBe("budget exhausted");
  });

  it("reads a cut-off answer like a turn limit: stopped at a limit, not failed", () => {
    expect(endTone("truncated")).toBe("limit");
    expect(endTone("max_turns")).toBe("limit");
    expect(endTone("failed")).toBe("failed");
    expect(endTone("cancelled")).toBe("stopped");
    // Stopped by a budget: its own tone, neither a failure nor a plain stop.
    expect(endTone("budget_exhausted")).toBe("budget");
  });

  it("joins alternatives", () => {
    expect(orList([])).toBe("");
    expect(orList(["a"])).toBe("a");
    expect(orList(["a", "b", "c"])).toBe("a, b or c");
  });
});

describe("clipOutput", () => {
  const long = "a".repeat(OUTPUT_PREVIEW) + "b".repeat(500);

  it("shows short output whole", () => {
    expect(clipOutput("hello", false, false)).toEqual({ text: "hello", hidden: 0 });
  });

  it("shows the start of a finished call's long output and counts the rest", () => {
    const c = clipOutput(long, false, false);
    expect(c.hidden).toBe(500);
    expect(c.text.startsWith("aaa")).toBe(true);
    expect(c.text.includes("b")).toBe(false);
  });

  it("shows the latest end while the output streams", () => {
    const c = clipOutput(long, true, false);
    expect(c.text.endsWith("b".repeat(500))).toBe(true);
    expect(c.text.startsWith("…")).toBe(true);
  });

  it("shows everything when asked", () => {
    expect(clipOutput(long, false, true)).toEqual({ text: long, hidden: 0 });
  });
});

describe("a result's figures", () => {
  const base = { run: 1, runs: 1, latest: true, turns: 2, durationMs: 5_000, allTurns: 2, allMs: 5_000 };
  it("gives the agent's totals on its only run", () => {
    expect(resultMeta(base)).toBe("2 turns · 5s");
    // An earlier run that ended without a result (its process died) still counts in the totals.
    expect(resultMeta({ ...base, turns: 1, durationMs: 100, allTurns: 3, allMs: 4_100 })).toBe("3 turns · 4s");
    expect(formatTurns(1)).toBe("1 turn");
  });
  it("gives the totals over every run on the latest result, and an earlier run's own figures on its result", () => {
    expect(resultMeta({ ...base, run: 2, runs: 2, turns: 1, durationMs: 30_000, allTurns: 3, allMs: 95_000 })).toBe(
      "run 2 of 2 · 3 turns · 1m 35s in all runs",
    );
    expect(resultMeta({ ...base, run: 1, runs: 3, latest: false, turns: 1, durationMs: 10_000, allTurns: 9, allMs: 99_000 })).toBe(
      "run 1 of 3 · 1 turn · 10s this run",
    );
  });
});
