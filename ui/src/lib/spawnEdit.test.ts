import { describe, expect, it } from "vitest";
import { spawnPlan } from "../test/approvals";
import { editSummary, spawnDraft, spawnEditOf, toggleTool } from "./spawnEdit";

describe("a spawn's edit", () => {
  const plan = spawnPlan();

  it("is nothing while the form is as planned", () => {
    expect(spawnEditOf(plan, spawnDraft(plan))).toEqual({ ok: true, edit: null });
  });

  it("carries only what changed", () => {
    const draft = { ...spawnDraft(plan), model: " claude-small ", maxTurns: "5" };
    expect(spawnEditOf(plan, draft)).toEqual({ ok: true, edit: { model: "claude-small", max_turns: 5 } });
    const prompt = { ...spawnDraft(plan), prompt: "Only the summary" };
    expect(spawnEditOf(plan, prompt)).toEqual({ ok: true, edit: { prompt: "Only the summary" } });
  });

  it("narrows the tools in the plan's order, and re-checking restores them", () => {
    let draft = toggleTool(plan, spawnDraft(plan), "Bash", false);
    draft = toggleTool(plan, draft, "Read", false);
    expect(spawnEditOf(plan, draft)).toEqual({ ok: true, edit: { tools: ["Write"] } });
    draft = toggleTool(plan, draft, "Read", true);
    expect(draft.tools).toEqual(["Read", "Write"]);
    // A tool the plan does not offer cannot be added.
    expect(toggleTool(plan, draft, "WebFetch", true).tools).toEqual(["Read", "Write"]);
  });

  it("refuses an empty prompt, no model, or turns that are not a whole number", () => {
    expect(spawnEditOf(plan, { ...spawnDraft(plan), prompt: "  " }).ok).toBe(false);
    expect(spawnEditOf(plan, { ...spawnDraft(plan), model: "" }).ok).toBe(false);
    expect(spawnEditOf(plan, { ...spawnDraft(plan), maxTurns: "2.5" }).ok).toBe(false);
    expect(spawnEditOf(plan, { ...spawnDraft(plan), maxTurns: "0" }).ok).toBe(false);
  });

  it("reads afterwards as what changed", () => {
    expect(editSummary({ model: "claude-small", tools: ["Read"], max_turns: 5, prompt: "x" }, plan)).toEqual([
      "prompt edited",
      "model claude-test → claude-small",
      "without Write, Bash",
      "max turns 20 → 5",
    ]);
  });
});
