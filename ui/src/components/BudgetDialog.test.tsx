/**
 * Raising a budget: Budget… in the agent's header, why a budget stopped it,
 * and the dialog that sends set_budget (prefilled from its budget now; "Raise
 * budget and resume" for an agent its budget stopped).
 */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { bookFromPast, bookStore } from "../store/review";
import { select, uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { withLayout } from "../test/layout";
import { pastSession } from "../test/past";
import { applyEvents, applyUsage, resetStores, sessionInfo } from "../test/stores";
import { agentUsage, budget, figures, standing, usageUpdate } from "../test/usage";
import { BudgetDialog } from "./BudgetDialog";
import { OutputView } from "./output/OutputView";

const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: (_session: unknown, command: unknown) => sendCommand(command) },
}));

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

const WHY = "the tokens budget of agent-b ran out: 520 of 500 tokens used";
const e = eventMaker();

beforeEach(() => {
  sendCommand.mockReset();
  sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
  resetStores({ session: sessionInfo() });
  applyEvents([
    e.started("agent-main", null, "main"),
    e.make("agent-main", { type: "budget_set", budget: budget({ max_tokens: 10_000, max_cost_usd: 2 }), origin: "session", carved: [] }),
    e.status("agent-main", "running"),
    e.started("agent-a", "agent-main", "Write the tests"),
    e.status("agent-a", "running"),
    e.started("agent-b", "agent-main", "Survey"),
    e.make("agent-b", { type: "budget_set", budget: budget({ max_tokens: 500 }), origin: "delegation", carved: [] }),
    e.status("agent-b", "running"),
    e.started("agent-b1", "agent-b", "Helper", { depth: 2 }),
    e.status("agent-b1", "running"),
    e.status("agent-b1", "budget_exhausted"),
    e.make("agent-b1", { type: "agent_finished", status: "budget_exhausted", result: "", error: WHY, turns: 1, duration_ms: 5, files_modified: [] }),
    e.status("agent-b", "budget_exhausted"),
    e.make("agent-b", { type: "agent_finished", status: "budget_exhausted", result: "", error: WHY, turns: 2, duration_ms: 9, files_modified: [] }),
  ]);
  applyUsage(
    usageUpdate(
      [
        agentUsage("agent-main", figures(100), figures(4200), standing({ max_tokens: 10_000, max_cost_usd: 2 }, { tokens: 4200, cost_usd: 0.3 }, 0.42, "tokens")),
        agentUsage("agent-b", figures(400), figures(520), standing({ max_tokens: 500 }, { tokens: 520 }, 1.04, "tokens", "tokens")),
      ],
      figures(4200),
    ),
  );
});

const field = (kind: string) => screen.getByTestId(`budget-field-${kind}`) as HTMLInputElement;

async function submit() {
  await act(async () => {
    fireEvent.click(screen.getByTestId("budget-submit"));
  });
}

describe("the Budget… dialog", () => {
  it("starts from the agent's budget now, shows what was used, and sends set_budget with the limits typed", async () => {
    uiStore.set((s) => ({ ...s, dialog: { kind: "budget", agentId: "agent-main" } }));
    render(<BudgetDialog agentId="agent-main" />);
    expect(screen.getByRole("dialog").getAttribute("aria-label")).toBe("Budget of the main agent");
    expect(screen.getByTestId("budget-now").textContent).toBe("10,000 tokens · $2.00");
    expect(screen.getByTestId("budget-origin").textContent).toBe("From the session's budget (Settings).");
    expect(screen.getByTestId("budget-used").textContent).toContain("Tokens 4,200 of 10,000 · Cost $0.30 of $2.00");
    expect([field("tokens").value, field("cost").value, field("duration").value, field("subagents").value]).toEqual(["10000", "2", "", ""]);
    expect(screen.getByTestId("budget-submit").textContent).toBe("Set budget");
    fireEvent.change(field("tokens"), { target: { value: "20000" } });
    fireEvent.change(field("duration"), { target: { value: "15" } });
    await submit();
    expect(sendCommand).toHaveBeenCalledWith({
      type: "set_budget",
      agent_id: "agent-main",
      budget: { max_tokens: 20_000, max_cost_usd: 2, max_duration_seconds: 900, max_subagents: null },
    });
    expect(uiStore.get().dialog).toBeNull();
  });

  it("reads Raise budget and resume for an agent its budget stopped", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "resumed", agent_id: "agent-b" } });
    uiStore.set((s) => ({ ...s, dialog: { kind: "budget", agentId: "agent-b" } }));
    render(<BudgetDialog agentId="agent-b" />);
    expect(screen.getByTestId("budget-submit").textContent).toBe("Raise budget and resume");
    expect(field("tokens").value).toBe("500");
    fireEvent.change(field("tokens"), { target: { value: "2000" } });
    await submit();
    expect(sendCommand).toHaveBeenCalledWith({
      type: "set_budget",
      agent_id: "agent-b",
      budget: { max_tokens: 2000, max_cost_usd: null, max_duration_seconds: null, max_subagents: null },
    });
    expect(uiStore.get().dialog).toBeNull();
  });

  it("says so when the change left a stopped agent stopped", async () => {
    // Rust answers `done`, not `resumed`: no room yet, here or above.
    uiStore.set((s) => ({ ...s, dialog: { kind: "budget", agentId: "agent-b1" } }));
    render(<BudgetDialog agentId="agent-b1" />);
    expect(screen.getByTestId("budget-submit").textContent).toBe("Raise budget and resume");
    await submit();
    expect(uiStore.get().dialog).toBeNull();
    const notes = uiStore.get().errors;
    expect(notes.at(-1)).toMatchObject({ kind: "info" });
    expect(notes.at(-1)?.message).toContain("Helper changed, but it stays stopped");
  });

  it("gives a budget to an agent without one", async () => {
    render(<BudgetDialog agentId="agent-a" />);
    expect(screen.getByTestId("budget-now").textContent).toBe("No budget of its own");
    expect(screen.queryByTestId("budget-used")).toBeNull();
    expect(field("tokens").value).toBe("");
    fireEvent.change(field("subagents"), { target: { value: "3" } });
    await submit();
    expect(sendCommand).toHaveBeenCalledWith({
      type: "set_budget",
      agent_id: "agent-a",
      budget: { max_tokens: null, max_cost_usd: null, max_duration_seconds: null, max_subagents: 3 },
    });
  });

  it("holds back a limit that is not a positive number, and shows Rust's refusal as it says it", async () => {
    uiStore.set((s) => ({ ...s, dialog: { kind: "budget", agentId: "agent-main" } }));
    render(<BudgetDialog agentId="agent-main" />);
    fireEvent.change(field("tokens"), { target: { value: "0" } });
    expect(screen.getByTestId("budget-field-tokens-problem").textContent).toBe("Tokens: a whole number above 0, or empty");
    await submit();
    expect(sendCommand).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toBe("Tokens: a whole number above 0, or empty");
    sendCommand.mockResolvedValue({ status: "error", error: { kind: "session", message: "no agent agent-main" } });
    fireEvent.change(field("tokens"), { target: { value: "1" } });
    await submit();
    expect(screen.getByRole("alert").textContent).toBe("no agent agent-main");
    expect(uiStore.get().dialog).toEqual({ kind: "budget", agentId: "agent-main" });
  });
});

describe("the budget in an agent's header", () => {
  it("shows the agent's meter and Budget…, which opens the dialog", () => {
    act(() => select("agent-main"));
    render(<OutputView />);
    expect(screen.getByTestId("output-budget-meter").textContent).toBe("Budget 42% · 4,200 / 10,000 tokens");
    expect(screen.queryByTestId("budget-stop")).toBeNull();
    act(() => fireEvent.click(screen.getByTestId("budget-button")));
    expect(uiStore.get().dialog).toEqual({ kind: "budget", agentId: "agent-main" });
  });

  it("offers Budget… to an agent without one, with no meter", () => {
    act(() => select("agent-a"));
    render(<OutputView />);
    expect(screen.queryByTestId("output-budget-meter")).toBeNull();
    expect(screen.getByTestId("budget-button")).toBeTruthy();
  });

  it("says why a budget stopped the agent, and raises it from there", () => {
    act(() => select("agent-b"));
    render(<OutputView />);
    const stop = screen.getByTestId("budget-stop");
    expect(stop.getAttribute("role")).toBe("alert");
    expect(screen.getByTestId("budget-stop-reason").textContent).toBe(WHY);
    // Its own budget ran out: raising it is the one way on.
    expect(screen.queryByTestId("budget-raise-owner")).toBeNull();
    act(() => fireEvent.click(screen.getByTestId("budget-raise")));
    expect(uiStore.get().dialog).toEqual({ kind: "budget", agentId: "agent-b" });
  });

  it("points a subagent an ancestor's budget stopped at that ancestor's budget", () => {
    act(() => select("agent-b1"));
    render(<OutputView />);
    expect(screen.getByTestId("budget-stop-reason").textContent).toBe(WHY);
    const owner = screen.getByTestId("budget-raise-owner");
    expect(owner.textContent).toBe("Raise Survey's budget…");
    act(() => fireEvent.click(owner));
    expect(uiStore.get().dialog).toEqual({ kind: "budget", agentId: "agent-b" });
  });

  it("offers nothing to change in a past session under review", () => {
    act(() => select("agent-b"));
    bookStore.set({ review: bookFromPast(pastSession([], [])), live: null });
    render(<OutputView />);
    // Why it stopped, and its meter, still show.
    expect(screen.getByTestId("budget-stop-reason").textContent).toBe(WHY);
    expect(screen.getByTestId("output-budget-meter")).toBeTruthy();
    expect(screen.queryByTestId("budget-button")).toBeNull();
    expect(screen.queryByTestId("budget-raise")).toBeNull();
  });
});
