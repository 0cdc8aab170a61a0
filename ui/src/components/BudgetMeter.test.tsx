/** The budget meter, alone and on the tree's rows: its fill, tone and accessible figures, and "Raise budget…" on a stopped agent. */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { applyEvents, applyUsage, resetStores, sessionInfo } from "../test/stores";
import { agentUsage, figures, standing, usageUpdate } from "../test/usage";
import { withLayout } from "../test/layout";
import { AgentTree } from "./AgentTree";

// The tree is virtualised: a pane 700 px tall shows every row of these small trees.
withLayout({ offsetHeight: 700, offsetWidth: 320, clientHeight: 700 });
import { BudgetMeter } from "./BudgetMeter";

vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: vi.fn() },
}));

const fill = (meter: HTMLElement) => (meter.querySelector(".budget-fill") as HTMLElement).style.width;

describe("BudgetMeter", () => {
  it("fills to the share Rust sent, with the share and its limit for assistive technology, and every limit in its tooltip", () => {
    const s = standing(
      { max_tokens: 10_000, max_cost_usd: 2 },
      { tokens: 8200, cache_read_tokens: 1200, cost_usd: 0.41, cost_incomplete: true },
      0.82,
      "tokens",
    );
    render(<BudgetMeter standing={s} testId="m" />);
    const meter = screen.getByRole("meter");
    expect(meter.getAttribute("aria-label")).toBe("Budget: 82% of tokens used");
    expect(meter.getAttribute("aria-valuenow")).toBe("82");
    expect(meter.getAttribute("aria-valuemin")).toBe("0");
    expect(meter.getAttribute("aria-valuemax")).toBe("100");
    expect(fill(meter)).toBe("82%");
    const box = screen.getByTestId("m");
    // Past Rust's warning share (0.82 ≥ BUDGET_WARNING_FRACTION): amber.
    expect(box.className).toContain("warn");
    expect(box.title.split("\n")).toEqual([
      "Tokens 8,200 of 10,000 (and 1,200 cache reads)",
      "Cost $0.41 of $2.00",
      "Cost: some models' prices are unknown",
    ]);
  });

  it("stays plain below the warning share, turns red once a limit ran out, and never overfills", () => {
    const { rerender } = render(<BudgetMeter standing={standing({ max_tokens: 100 }, { tokens: 30 }, 0.3, "tokens")} testId="m" />);
    expect(screen.getByTestId("m").dataset.tone).toBe("ok");
    rerender(<BudgetMeter standing={standing({ max_tokens: 100 }, { tokens: 130 }, 1.3, "tokens", "tokens")} testId="m" />);
    const box = screen.getByTestId("m");
    expect(box.dataset.tone).toBe("exhausted");
    expect(box.className).toContain("exhausted");
    const meter = screen.getByRole("meter");
    expect(fill(meter)).toBe("100%");
    expect(meter.getAttribute("aria-valuenow")).toBe("100");
    expect(meter.getAttribute("aria-label")).toBe("Budget: 130% of tokens used; tokens ran out");
  });

  it("follows the bar with a short text when asked", () => {
    render(<BudgetMeter standing={standing({ max_tokens: 10_000 }, { tokens: 4200 }, 0.42, "tokens")} withText testId="m" />);
    expect(screen.getByTestId("m").textContent).toBe("Budget 42% · 4,200 / 10,000 tokens");
  });
});

describe("the tree's budget meters", () => {
  beforeEach(() => {
    resetStores({ session: sessionInfo() });
    const e = eventMaker();
    applyEvents([
      e.started("agent-main", null, "main"),
      e.status("agent-main", "running"),
      e.started("agent-a", "agent-main", "Write the tests"),
      e.status("agent-a", "running"),
      e.started("agent-b", "agent-main", "Survey"),
      e.status("agent-b", "budget_exhausted"),
    ]);
    applyUsage(
      usageUpdate(
        [
          agentUsage("agent-main", figures(0), figures(900), standing({ max_tokens: 10_000 }, { tokens: 900 }, 0.09, "tokens")),
          agentUsage("agent-b", figures(500), figures(500), standing({ max_tokens: 500 }, { tokens: 500 }, 1, "tokens", "tokens")),
          agentUsage("agent-a", figures(400)),
        ],
        figures(900),
      ),
    );
  });

  const row = (id: string) => {
    const el = screen.getAllByTestId("tree-node").find((n) => n.dataset.agentId === id);
    if (!el) throw new Error(`no node ${id}`);
    return el;
  };

  it("shows a meter on the rows of agents with a budget only, inside the row's meta line", () => {
    render(<AgentTree />);
    const main = within(row("agent-main")).getByRole("meter");
    expect(main.getAttribute("aria-valuenow")).toBe("9");
    expect(main.closest(".node-meta")).not.toBeNull();
    expect(within(row("agent-a")).queryByRole("meter")).toBeNull();
    expect(within(row("agent-b")).getByTestId("tree-budget").dataset.tone).toBe("exhausted");
  });

  it("offers Raise budget… instead of Resume on an agent its budget stopped", () => {
    render(<AgentTree />);
    // A row's actions show while it is hovered (or selected, or focused).
    fireEvent.mouseEnter(row("agent-a"));
    fireEvent.mouseEnter(row("agent-b"));
    expect(within(row("agent-b")).queryByTestId("node-resume")).toBeNull();
    expect(within(row("agent-a")).queryByTestId("node-raise-budget")).toBeNull();
    act(() => fireEvent.click(within(row("agent-b")).getByTestId("node-raise-budget")));
    expect(uiStore.get().dialog).toEqual({ kind: "budget", agentId: "agent-b" });
    expect(uiStore.get().selected).toBe("agent-b");
  });
});
