import { describe, expect, it } from "vitest";
import type { ToolInfo } from "../bindings";
import { asksBeforeSpawning, toolChoice, withAskBeforeSpawning, withToolChoice } from "./approvalSettings";

const tools: ToolInfo[] = [
  { name: "Bash", class: "mutating", default: "ask" },
  { name: "Task", class: "delegation", default: "allow" },
];

describe("per-tool approval settings", () => {
  it("reads a tool's choice from the settings, else its default (allow for a tool not listed)", () => {
    expect(toolChoice({ Bash: "deny" }, tools, "Bash")).toBe("deny");
    expect(toolChoice(undefined, tools, "Bash")).toBe("ask");
    expect(toolChoice({}, [], "Task")).toBe("allow");
  });

  it("stores only choices that differ from the default", () => {
    expect(withToolChoice({ Bash: "deny" }, tools, "Bash", "ask")).toEqual({});
    expect(withToolChoice(undefined, tools, "Bash", "allow")).toEqual({ Bash: "allow" });
  });

  it("asks before spawning exactly when Task is ask", () => {
    expect(asksBeforeSpawning({}, tools)).toBe(false);
    expect(asksBeforeSpawning({ Task: "ask" }, tools)).toBe(true);
    expect(asksBeforeSpawning({ Task: "deny" }, tools)).toBe(false);
    expect(withAskBeforeSpawning({ Bash: "deny" }, tools, true)).toEqual({ Bash: "deny", Task: "ask" });
    expect(withAskBeforeSpawning({ Task: "ask" }, tools, false)).toEqual({});
    expect(withAskBeforeSpawning({ Task: "deny" }, tools, false)).toEqual({});
    // Should Task's default ever be ask, unticking still means it does not ask.
    const asking: ToolInfo[] = [{ name: "Task", class: "delegation", default: "ask" }];
    expect(withAskBeforeSpawning({}, asking, false)).toEqual({ Task: "allow" });
  });
});
