import { describe, expect, it } from "vitest";
import { APPROVAL_SCOPES } from "../bindings";
import { rule } from "../test/approvals";
import { approveAllLabel, personMark, policyMark, ruleMark, scopeLabel, windowTitle } from "./approvals";

describe("scope labels", () => {
  it("say exactly what each option covers, with the tool's and the agent's names", () => {
    expect(APPROVAL_SCOPES.map((s) => scopeLabel(s, "Write", "Update changelog"))).toEqual([
      "Just this call",
      "Write for “Update changelog”",
      "Write for “Update changelog” and all its subagents",
      "Write anywhere in this session",
    ]);
  });
});

describe("decision marks", () => {
  it("name a person's answer, with the reason of a denial and the rule it set", () => {
    expect(personMark(true, null).text).toBe("approved by you");
    expect(personMark(false, "too risky")).toMatchObject({ kind: "person", approved: false, text: "denied by you: too risky" });
    expect(personMark(false, null).text).toBe("denied by you");
    expect(personMark(true, null, "Write anywhere in this session").detail).toBe("and set the rule: Write anywhere in this session");
  });

  it("name a rule: what it covers, when it was set, by whose answer, and a revocation", () => {
    const r = rule("rule-1", { scope: "subtree", approved: true });
    const mark = ruleMark({ rule: r, names: { tool: "Write", agent: "main" }, revokedAt: null });
    expect(mark).toMatchObject({ kind: "rule", approved: true, text: "allowed by rule: Write for “main” and all its subagents" });
    expect(mark.detail).toMatch(/^set \S+.* by your answer to “main”'s Write$/);
    expect(mark.detail).toContain(new Date(r.created_at).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }));
    const refused = ruleMark({ rule: { ...r, approved: false, scope: "session" }, names: { tool: "Bash", agent: "x" }, revokedAt: r.created_at + 60_000 });
    expect(refused.text).toBe("refused by rule: Bash anywhere in this session");
    expect(refused.detail).toContain("· revoked");
    expect(policyMark().kind).toBe("policy");
  });
});

describe("counts", () => {
  it("put the number in the approve-all button and the window title", () => {
    expect(approveAllLabel(3, "Update changelog")).toBe("Approve all 3 from “Update changelog”");
    expect(windowTitle(0)).toBe("Arbor");
    expect(windowTitle(3)).toBe("(3) Arbor");
  });
});
