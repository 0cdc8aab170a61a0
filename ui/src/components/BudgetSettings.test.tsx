/** Settings' "Budgets" section: the stored budgets shown, edited and saved as Rust's shape, bad fields held back, Rust's refusal shown. */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AppState, BudgetSettings } from "../bindings";
import { appState, resetStores } from "../test/stores";
import { budget } from "../test/usage";
import { SettingsPanel } from "./SettingsPanel";

const commands = {
  saveSettings: vi.fn(),
  agentCatalog: vi.fn(),
  mcpServers: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));

const stored: BudgetSettings = {
  session: budget({ max_tokens: 10_000, max_cost_usd: 2, max_duration_seconds: 600, max_subagents: 5 }),
  // A subagents limit the form does not show (set in the file): kept as it is.
  subagent: budget({ max_tokens: 5000, max_subagents: 2 }),
  max_spawns_per_minute: 30,
};

function app(budgets: BudgetSettings | null = stored): AppState {
  return appState({ settings: { default_provider: null, last_workspace: "/w", approvals: {}, ...(budgets ? { budgets } : {}) } });
}

async function open(state: AppState) {
  resetStores({ app: state, view: "settings" });
  await act(async () => {
    render(<SettingsPanel />);
  });
}

const input = (id: string) => screen.getByTestId(id) as HTMLInputElement;
const type = (id: string, value: string) => fireEvent.change(input(id), { target: { value } });
const saveButton = () => screen.getByTestId("save-settings") as HTMLButtonElement;
const saved = () => commands.saveSettings.mock.calls.at(-1)?.[0] as { budgets: BudgetSettings };

async function save() {
  await act(async () => {
    fireEvent.click(saveButton());
  });
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.agentCatalog.mockResolvedValue({ definitions: [], problems: [] });
  commands.mcpServers.mockResolvedValue({ status: "ok", data: { servers: [], problems: [], files: [] } });
  commands.saveSettings.mockImplementation((settings: unknown) => Promise.resolve({ status: "ok", data: { ...app(), settings } }));
});

describe("the Budgets settings", () => {
  it("explains budgets in one line and shows the stored limits, wall time in minutes", async () => {
    await open(app());
    const section = screen.getByRole("region", { name: "Budgets" });
    expect(screen.getByTestId("settings-budgets-about").textContent).toBe(
      "A budget covers an agent and everything it starts. At 80% its agents are told to wrap up; when it runs out they stop as “budget exhausted”. An empty field is no limit.",
    );
    expect(section.contains(input("settings-budget-session-tokens"))).toBe(true);
    expect(input("settings-budget-session-tokens").value).toBe("10000");
    expect(input("settings-budget-session-cost").value).toBe("2");
    expect(input("settings-budget-session-duration").value).toBe("10");
    expect(input("settings-budget-session-subagents").value).toBe("5");
    expect(input("settings-budget-subagent-tokens").value).toBe("5000");
    expect(input("settings-budget-subagent-cost").value).toBe("");
    // Every subagent's default: tokens, dollars and wall time.
    expect(screen.queryByTestId("settings-budget-subagent-subagents")).toBeNull();
    expect(input("settings-budget-spawn-rate").value).toBe("30");
  });

  it("saves what was typed as Rust's shape: seconds, nulls for no limit, limits it does not show kept", async () => {
    await open(app());
    expect(saveButton().disabled).toBe(true);
    type("settings-budget-session-tokens", "20,000");
    type("settings-budget-session-cost", "");
    type("settings-budget-session-duration", "1.5");
    type("settings-budget-subagent-cost", "0.5");
    type("settings-budget-spawn-rate", "0");
    await save();
    expect(commands.saveSettings).toHaveBeenCalledTimes(1);
    expect(saved().budgets).toEqual({
      session: budget({ max_tokens: 20_000, max_duration_seconds: 90, max_subagents: 5 }),
      subagent: budget({ max_tokens: 5000, max_cost_usd: 0.5, max_subagents: 2 }),
      max_spawns_per_minute: 0,
    });
    expect(screen.getByText("Saved")).toBeTruthy();
    // What Rust answered is what the form shows now.
    expect(input("settings-budget-session-duration").value).toBe("1.5");
  });

  it("starts empty with no budgets stored, and sends limits only once typed", async () => {
    await open(app(null));
    expect(input("settings-budget-session-tokens").value).toBe("");
    expect(input("settings-budget-spawn-rate").value).toBe("");
    type("settings-budget-session-cost", "5");
    await save();
    // An empty spawn rate is left to Rust's default.
    expect(saved().budgets).toEqual({ session: budget({ max_cost_usd: 5 }), subagent: budget() });
  });

  it("names a field that is not a positive number and holds Save until it is", async () => {
    await open(app());
    type("settings-budget-session-tokens", "-3");
    expect(screen.getByTestId("settings-budget-session-tokens-problem").textContent).toBe(
      "Tokens: a whole number above 0, or empty",
    );
    expect(input("settings-budget-session-tokens").getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByTestId("settings-budget-problem").textContent).toBe("Session tokens: a whole number above 0, or empty");
    expect(saveButton().disabled).toBe(true);
    type("settings-budget-spawn-rate", "1.5");
    expect(screen.getByTestId("settings-budget-spawn-rate-problem")).toBeTruthy();
    type("settings-budget-session-tokens", "3000");
    type("settings-budget-spawn-rate", "10");
    expect(screen.queryByTestId("settings-budget-problem")).toBeNull();
    expect(saveButton().disabled).toBe(false);
    await save();
    expect(saved().budgets.session?.max_tokens).toBe(3000);
    expect(saved().budgets.max_spawns_per_minute).toBe(10);
  });

  it("shows Rust's refusal as it says it", async () => {
    commands.saveSettings.mockResolvedValue({
      status: "error",
      error: { kind: "settings", message: "budgets.session.max_cost_usd must be above 0" },
    });
    await open(app());
    type("settings-budget-session-cost", "3");
    await save();
    expect(screen.getByRole("alert").textContent).toBe("budgets.session.max_cost_usd must be above 0");
  });

  it("shows the stored limits again after Revert, a bad field included", async () => {
    await open(app());
    type("settings-budget-session-tokens", "abc");
    expect(saveButton().disabled).toBe(true);
    fireEvent.click(screen.getByText("Revert"));
    expect(input("settings-budget-session-tokens").value).toBe("10000");
    expect(screen.queryByTestId("settings-budget-problem")).toBeNull();
  });
});
