/** The rules in force: set by a scoped answer, listed with their origin in the inbox and in settings, revoked. */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { installApprovalEffects } from "../ipc/approvals";
import { answered, askFor, rule } from "../test/approvals";
import { eventMaker } from "../test/events";
import { appState, arriveFrame, liveHere, resetStores, sessionInfo } from "../test/stores";
import { ApprovalInbox } from "./ApprovalInbox";
import { SettingsPanel } from "./SettingsPanel";

const commands = {
  sendCommand: vi.fn(),
  agentCatalog: vi.fn(),
  mcpServers: vi.fn(),
  workspaceMcp: vi.fn(),
  saveSettings: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));

let e = eventMaker();
const frame = arriveFrame;
const path = ["main", "Update changelog"];

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
  commands.agentCatalog.mockResolvedValue({ definitions: [], problems: [] });
  commands.mcpServers.mockResolvedValue({ status: "ok", data: { servers: [], problems: [], files: [], workspace: null } });
  commands.workspaceMcp.mockResolvedValue(null);
  e = eventMaker();
  resetStores({ session: sessionInfo(), app: appState() });
  frame(
    [
      e.started("agent-main", null, "main"),
      e.started("agent-u", "agent-main", "Update changelog"),
      ...askFor(e.make, "agent-u", "r1", { path }),
      ...askFor(e.make, "agent-u", "r2", { path }),
    ],
    null,
  );
});

describe("Active rules", () => {
  it("lists the settings files' permission rules with their file, beside the answers' rules, with nothing to revoke", () => {
    resetStores({ app: appState() });
    liveHere(
      sessionInfo({
        settings_rules: [
          { decision: "allow", rule: "Bash(git diff:*)", source: "/home/me/.claude/settings.json" },
          { decision: "deny", rule: "Bash(curl:*)", source: "/work/demo/.claude/settings.json" },
          { decision: "ask", rule: "Bash(git push:*)", source: "/work/demo/.claude/settings.json" },
        ],
      }),
    );
    render(<SettingsPanel />);
    const rows = screen.getAllByTestId("settings-rule");
    expect(rows.map((r) => r.dataset.decision)).toEqual(["allow", "deny", "ask"]);
    expect(rows[0]?.textContent).toContain("Allow");
    expect(rows[0]?.textContent).toContain("Bash(git diff:*)");
    expect(rows[0]?.textContent).toContain("from /home/me/.claude/settings.json");
    expect(rows[1]?.textContent).toContain("Refuse");
    expect(rows[2]?.textContent).toContain("Ask");
    expect(within(screen.getByTestId("active-rules")).queryAllByTestId("rule-revoke")).toHaveLength(0);
    expect(screen.getByTestId("active-rules").textContent).toContain("Active rules 3");
  });

  it("lists the rule a scoped answer set, with its origin; the rule answers the other request it covers", async () => {
    const off = installApprovalEffects();
    render(<ApprovalInbox />);
    expect(screen.queryByTestId("active-rules")).toBeNull();
    const card = screen.getAllByTestId("approval").find((c) => c.dataset.requestId === "r1")!;
    fireEvent.click(within(card).getAllByTestId("scope-option").find((o) => o.dataset.scope === "subtree")!);
    await act(async () => {
      fireEvent.click(within(card).getByTestId("approve"));
    });
    expect(commands.sendCommand).toHaveBeenCalledWith("s-1", { type: "resolve_approval", request_id: "r1", approved: true, scope: "subtree" });

    // The backend's answer: the request approved, a rule set, and the other request answered by it.
    const set = rule("rule-1", { agent_id: "agent-u", request_id: "r1", scope: "subtree" });
    frame(
      [
        answered(e.make, "agent-u", "r1", "approved", { scope: "subtree", rule: set }),
        answered(e.make, "agent-u", "r2", "approved", { decidedBy: { kind: "rule", rule: set } }),
      ],
      [set],
    );
    expect(screen.queryAllByTestId("approval")).toHaveLength(0);
    const rows = screen.getAllByTestId("rule");
    expect(rows.map((r) => r.dataset.ruleId)).toEqual(["rule-1"]);
    const text = rows[0]?.textContent ?? "";
    expect(text).toContain("Allow");
    expect(text).toContain("Write for “Update changelog” and all its subagents");
    expect(text).toContain("by your answer to “Update changelog”'s Write");
    off();
  });

  it("revokes: sends revoke_rule, marks the rule until the list comes without it, and the next call asks again", async () => {
    const off = installApprovalEffects();
    const set = rule("rule-1", { agent_id: "agent-u", request_id: "r1", scope: "agent", approved: false });
    frame(
      [
        answered(e.make, "agent-u", "r1", "denied", { scope: "agent", rule: set }),
        answered(e.make, "agent-u", "r2", "denied", { decidedBy: { kind: "rule", rule: set } }),
      ],
      [set],
    );
    render(<ApprovalInbox />);
    const row = screen.getByTestId("rule");
    expect(row.textContent).toContain("Refuse");
    expect(row.textContent).toContain("Write for “Update changelog”");
    await act(async () => {
      fireEvent.click(within(row).getByTestId("rule-revoke"));
    });
    expect(commands.sendCommand).toHaveBeenCalledWith("s-1", { type: "revoke_rule", rule_id: "rule-1" });
    expect((within(screen.getByTestId("rule")).getByTestId("rule-revoke") as HTMLButtonElement).disabled).toBe(true);

    frame([e.make("agent-u", { type: "rule_revoked", rule_id: "rule-1" })], []);
    expect(screen.queryByTestId("rule")).toBeNull();
    frame(askFor(e.make, "agent-u", "r3", { path }), null);
    expect(screen.getAllByTestId("approval").map((c) => c.dataset.requestId)).toEqual(["r3"]);
    off();
  });

  it("are on the settings page too, with a word when there are none", async () => {
    await act(async () => {
      render(<SettingsPanel />);
    });
    expect(screen.getByTestId("active-rules").textContent).toContain("No rules in force");
    frame([], [rule("rule-7", { agent_id: "agent-u", request_id: "r1", scope: "session" })]);
    expect(screen.getByTestId("rule").textContent).toContain("Write anywhere in this session");
  });
});
