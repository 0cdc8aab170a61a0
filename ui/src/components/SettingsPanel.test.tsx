/** The settings screen against the backend's lists: providers' key variables, approval choices, model timeouts. */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { APPROVAL_CHOICES, type ProviderState } from "../bindings";
import { appState, resetStores } from "../test/stores";
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

const provider = (extra: Partial<ProviderState>): ProviderState => ({
  kind: "anthropic",
  label: "Anthropic",
  key_source: "environment",
  key_var: "ARBOR_TEST_ANTHROPIC_KEY",
  base_url: "https://api.anthropic.com",
  default_model: "claude-a",
  ready: true,
  problem: null,
  ...extra,
});

const app = appState({
  providers: [
    provider({}),
    provider({ kind: "openai", label: "OpenAI", key_source: "none", key_var: "ARBOR_TEST_OPENAI_KEY", ready: false }),
  ],
  keyring: { available: false, problem: "no secret service" },
  tools: [{ name: "Bash", class: "mutating", default: "ask" }],
  settings: { default_provider: null, last_workspace: "/w", approvals: {}, timeouts: { idle_seconds: 90 } },
});

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.agentCatalog.mockResolvedValue({ definitions: [], problems: [] });
  commands.mcpServers.mockResolvedValue({ status: "ok", data: { servers: [], problems: [], files: [] } });
  resetStores({ app, view: "settings" });
});

describe("SettingsPanel", () => {
  it("names each provider's environment variable as the backend does", async () => {
    await act(async () => {
      render(<SettingsPanel />);
    });
    expect(screen.getByText(/still come from the environment/).textContent).toContain(
      "(ARBOR_TEST_ANTHROPIC_KEY, ARBOR_TEST_OPENAI_KEY)",
    );
    // The backend's reason reads as one sentence, said once.
    expect(screen.getByText(/still come from the environment/).textContent).toMatch(/^No secret service\. Keys can still/);
    expect(screen.getByText("Key from ARBOR_TEST_ANTHROPIC_KEY")).toBeTruthy();
  });

  it("offers the backend's approval choices, in its order", async () => {
    await act(async () => {
      render(<SettingsPanel />);
    });
    const select = screen.getByLabelText("Policy for Bash") as HTMLSelectElement;
    expect([...select.options].map((o) => o.value)).toEqual([...APPROVAL_CHOICES]);
    expect(within(select).getByText("ask (default)")).toBeTruthy();
  });

  it("edits the model timeouts beside the limits and saves them", async () => {
    commands.saveSettings.mockImplementation((settings: unknown) =>
      Promise.resolve({ status: "ok", data: { ...app, settings } }),
    );
    await act(async () => {
      render(<SettingsPanel />);
    });
    const idle = screen.getByLabelText(/Give up on a silent model after/) as HTMLInputElement;
    const budget = screen.getByLabelText(/Most time one model turn may take, retries included/) as HTMLInputElement;
    expect(idle.value).toBe("90");
    expect(budget.value).toBe("");
    fireEvent.change(budget, { target: { value: "600" } });
    fireEvent.change(idle, { target: { value: "0" } });
    await act(async () => {
      fireEvent.click(screen.getByText("Save settings"));
    });
    expect(commands.saveSettings).toHaveBeenCalledTimes(1);
    expect(commands.saveSettings.mock.calls[0]?.[0]).toMatchObject({
      timeouts: { idle_seconds: 90, retry_budget_seconds: 600 },
    });
  });
});
