import { describe, expect, it } from "vitest";
import { delegateCommand } from "./commands";
import { initialType, isDelegateShortcut, limitSummary, narrowedTools, taskPrefill } from "./delegate";

const all = ["Read", "Write", "Bash"];

describe("the Delegate… form's rules", () => {
  it("sends tools only once some are unticked, in the list's order", () => {
    expect(narrowedTools(all, new Set())).toBeNull();
    expect(narrowedTools(all, new Set(["Gone"]))).toBeNull();
    expect(narrowedTools(all, new Set(["Write"]))).toEqual(["Read", "Bash"]);
    expect(narrowedTools(all, new Set(all))).toEqual([]);
    expect(limitSummary(all, new Set(), "default")).toBe("all tools · parent's approvals");
    expect(limitSummary(all, new Set(["Bash"]), "plan")).toBe("2 of 3 tools · read-only");
  });

  it("builds the command with tools and mode only when narrowed", () => {
    const form = { parentId: "agent-a", subagentType: "general-purpose", prompt: " Go ", description: "", model: "" };
    const plain = delegateCommand({ ...form, tools: null, permissionMode: "default" });
    expect(plain).toEqual({
      type: "delegate",
      parent_id: "agent-a",
      prompt: "Go",
      description: null,
      subagent_type: null,
      model: null,
      max_turns: null,
      sandbox: null,
      isolation: null,
      budget: null,
    });
    expect(delegateCommand({ ...form, tools: ["Read"], permissionMode: "dontAsk" })).toMatchObject({
      tools: ["Read"],
      permission_mode: "dontAsk",
    });
    const sandbox = { mode: "strict" as const, network: false, write: null };
    expect(delegateCommand({ ...form, sandbox })).toMatchObject({ sandbox });
    expect(delegateCommand({ ...form, isolation: "worktree" })).toMatchObject({ isolation: "worktree" });
    const budget = { max_tokens: 5000, max_cost_usd: null, max_duration_seconds: 600, max_subagents: null };
    expect(delegateCommand({ ...form, budget })).toMatchObject({ budget });
  });

  it("prefills from a Task call's arguments", () => {
    expect(taskPrefill({ prompt: "Count files", subagent_type: "tester", description: "x" })).toEqual({
      prompt: "Count files",
      subagentType: "tester",
    });
    expect(taskPrefill({ prompt: "Go", subagent_type: " " })).toEqual({ prompt: "Go", subagentType: null });
    expect(taskPrefill(null)).toEqual({ prompt: "", subagentType: null });
    expect(initialType("tester", ["general-purpose", "tester"], "general-purpose")).toBe("tester");
    expect(initialType("gone", ["general-purpose"], "general-purpose")).toBe("general-purpose");
    expect(initialType(null, ["general-purpose"], "general-purpose")).toBe("general-purpose");
  });

  it("knows Shift+D", () => {
    const key = { key: "D", shiftKey: true, ctrlKey: false, metaKey: false, altKey: false };
    expect(isDelegateShortcut(key)).toBe(true);
    expect(isDelegateShortcut({ ...key, shiftKey: false, key: "d" })).toBe(false);
    expect(isDelegateShortcut({ ...key, metaKey: true })).toBe(false);
  });
});
