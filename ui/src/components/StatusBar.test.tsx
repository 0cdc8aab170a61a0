import { act, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it } from "vitest";
import { eventMaker } from "../test/events";
import { applyEvents, applyUsage, resetStores, sessionInfo } from "../test/stores";
import { agentUsage, figures, standing, usageUpdate } from "../test/usage";
import { StatusBar } from "./StatusBar";

const text = (id: string) => screen.getByTestId(id).textContent ?? "";

beforeEach(() => resetStores({ session: sessionInfo() }));

describe("StatusBar", () => {
  it("counts subagents by status, pending approvals, tokens and cost", () => {
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      ...["r1", "r2", "q1", "w1", "c1", "c2", "c3", "f1", "s1", "s2", "s3", "s4"].map((id) =>
        e.started(`agent-${id}`, "agent-main", id),
      ),
      e.status("agent-r1", "running"),
      e.status("agent-r2", "running"),
      e.status("agent-w1", "waiting_approval"),
      e.status("agent-c1", "completed"),
      e.status("agent-c2", "completed"),
      e.status("agent-c3", "completed"),
      e.status("agent-f1", "failed"),
      e.status("agent-s1", "cancelled"),
      e.status("agent-s2", "max_turns"),
      e.status("agent-s3", "truncated"),
      e.status("agent-s4", "interrupted"),
      e.approval("agent-w1", "req-1", "call-1", ["main", "w1"]),
      e.usage("agent-main", 1000, 200, 0.5),
      e.usage("agent-r1", 34, 0, 0.25),
    ]);
    // The session's figures as Rust sends them.
    applyUsage(usageUpdate([agentUsage("agent-r1", figures(34, 0.25))], figures(1234, 0.75)));
    render(<StatusBar />);
    expect(screen.getByTestId("status-bar")).toBeTruthy();
    expect(text("main-status")).toContain("running");
    expect(text("count-running")).toMatch(/^2 running/);
    expect(text("count-queued")).toMatch(/^1 queued/);
    expect(text("count-waiting")).toMatch(/^1 waiting/);
    expect(text("count-completed")).toMatch(/^3 completed/);
    expect(text("count-failed")).toMatch(/^1 failed/);
    // Stopped by a person, at a limit, cut off or by a crash: none of them failed, each counted apart.
    expect(text("count-stopped")).toMatch(/^1 stopped/);
    expect(text("count-max-turns")).toMatch(/^1 at turn limit/);
    expect(text("count-truncated")).toMatch(/^1 cut off/);
    expect(text("count-interrupted")).toMatch(/^1 interrupted/);
    expect(screen.queryByTestId("count-budget")).toBeNull();
    expect(text("count-approvals")).toMatch(/^1 approval/);
    expect(text("total-tokens")).toContain("1234 tokens");
    expect(text("total-tokens")).toContain("$0.75");
    expect(screen.getByTestId("total-tokens").getAttribute("title")).toBe("1.2k tokens");
    // The next figures replace these.
    act(() => applyUsage(usageUpdate([], figures(2000, null))));
    expect(text("total-tokens")).toContain("2000 tokens");
    expect(text("total-tokens")).not.toContain("$");
  });

  it("counts agents a budget stopped apart, only when there are any", () => {
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      e.started("agent-a", "agent-main", "a"),
      e.started("agent-b", "agent-main", "b"),
      e.status("agent-a", "failed"),
    ]);
    render(<StatusBar />);
    expect(screen.queryByTestId("count-budget")).toBeNull();
    act(() => applyEvents([e.status("agent-b", "budget_exhausted"), e.status("agent-main", "budget_exhausted")]));
    // The main agent is not a subagent: it shows as the main status.
    expect(text("count-budget")).toMatch(/^1 budget exhausted/);
    expect(text("count-failed")).toMatch(/^1 failed/);
    expect(screen.queryByTestId("count-stopped")).toBeNull();
    expect(text("main-status")).toContain("budget exhausted");
  });

  it("counts the subagents a person stopped, and those interrupted, as soon as there are any", () => {
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      ...["a", "b", "c", "d", "e"].map((id) => e.started(`agent-${id}`, "agent-main", id)),
      ...["a", "b", "c", "d", "e"].map((id) => e.status(`agent-${id}`, "running")),
      e.status("agent-e", "completed"),
    ]);
    render(<StatusBar />);
    expect(text("count-running")).toMatch(/^4 running/);
    // Nothing stopped yet: no count for it, so the bar keeps its room.
    expect(screen.queryByTestId("count-stopped")).toBeNull();
    expect(screen.queryByTestId("count-interrupted")).toBeNull();
    // Four stopped from the tree: the bar says so, not "0 running … 1 completed 0 failed" alone.
    act(() => applyEvents(["a", "b", "c", "d"].map((id) => e.status(`agent-${id}`, "cancelled"))));
    expect(text("count-running")).toMatch(/^0 running/);
    expect(text("count-stopped")).toMatch(/^4 stopped/);
    expect(screen.getByTestId("count-stopped").getAttribute("title")).toBe("Subagents cancelled");
    expect(text("count-completed")).toMatch(/^1 completed/);
    act(() => applyEvents([e.status("agent-d", "interrupted")]));
    expect(text("count-stopped")).toMatch(/^3 stopped/);
    expect(text("count-interrupted")).toMatch(/^1 interrupted/);
    // In the order of Rust's statuses, each in its own colour.
    const shown = [...screen.getByRole("group", { name: "Subagents by status" }).querySelectorAll<HTMLElement>("[data-status]")];
    expect(shown.map((c) => c.dataset.status)).toEqual(["queued", "running", "waiting_approval", "completed", "failed", "cancelled", "interrupted"]);
    expect(screen.getByTestId("count-interrupted").querySelector(".status-icon")?.className).toContain("interrupted");
  });

  it("shows the session's budget (the main agent's standing) only when it has one", () => {
    const e = eventMaker();
    applyEvents([e.started("agent-main", null, "main"), e.started("agent-a", "agent-main", "a")]);
    // A subagent's budget is not the session's.
    const child = standing({ max_tokens: 100 }, { tokens: 90 }, 0.9, "tokens");
    applyUsage(usageUpdate([agentUsage("agent-a", figures(90), figures(90), child)], figures(90)));
    render(<StatusBar />);
    expect(screen.queryByTestId("session-budget")).toBeNull();
    const main = standing({ max_tokens: 10_000 }, { tokens: 4200 }, 0.42, "tokens");
    act(() => applyUsage(usageUpdate([agentUsage("agent-main", figures(4110), figures(4200), main)], figures(4200))));
    expect(text("session-budget")).toBe("Budget 42% · 4,200 / 10,000 tokens");
    const meter = screen.getByRole("meter");
    expect(meter.getAttribute("aria-label")).toBe("Budget: 42% of tokens used");
    expect(screen.getByTestId("session-budget-meter").dataset.tone).toBe("ok");
    // The next figures replace these.
    const spent = standing({ max_tokens: 10_000 }, { tokens: 10_100 }, 1.01, "tokens", "tokens");
    act(() => applyUsage(usageUpdate([agentUsage("agent-main", figures(10_010), figures(10_100), spent)], figures(10_100))));
    expect(text("session-budget")).toBe("Budget 101% · 10,100 / 10,000 tokens");
    expect(screen.getByTestId("session-budget-meter").dataset.tone).toBe("exhausted");
  });

  it("shows an idle session with zeros", () => {
    resetStores();
    render(<StatusBar />);
    expect(text("main-status")).toContain("idle");
    expect(text("count-running")).toMatch(/^0 running/);
    expect(text("total-tokens")).toContain("0 tokens");
  });
});
