/**
 * The settings screen against the backend's lists and facts: providers' key
 * variables, what keys can do without a keyring or with one from the
 * environment, approval choices, model timeouts.
 */
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

function providerCard(kind: string): HTMLElement {
  const card = document.querySelector<HTMLElement>(`[data-provider="${kind}"]`);
  if (!card) throw new Error(`no card for ${kind}`);
  return card;
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.agentCatalog.mockResolvedValue({ definitions: [], problems: [] });
  commands.mcpServers.mockResolvedValue({ status: "ok", data: { servers: [], problems: [], files: [] } });
  resetStores({ app, view: "settings" });
});

describe("SettingsPanel", () => {
  it("says once, plainly, what to do without a keyring, with the backend's reason folded away", async () => {
    await act(async () => {
      render(<SettingsPanel />);
    });
    const note = screen.getByTestId("keyring-unavailable");
    const plain = within(note).getByTestId("keyring-note");
    // The variables named are the backend's, for the providers that take a key.
    expect(plain.textContent).toBe(
      "Arbor found no keyring service on this system, so keys can't be saved here. " +
        "Set ARBOR_TEST_ANTHROPIC_KEY or ARBOR_TEST_OPENAI_KEY in the environment that starts Arbor instead.",
    );
    // Rust's reason is there, once, folded under Details.
    const details = note.querySelector("details");
    expect(details?.open).toBe(false);
    expect(details?.querySelector("summary")?.textContent).toBe("Details");
    expect(details?.querySelector("code")?.textContent).toBe("no secret service");
    expect(note.textContent?.split("no secret service").length).toBe(2);
    expect(screen.getByText("Key from ARBOR_TEST_ANTHROPIC_KEY")).toBeTruthy();
  });

  it("disables the key field and Save key when nothing can be saved, saying why beside them", async () => {
    await act(async () => {
      render(<SettingsPanel />);
    });
    const card = providerCard("openai");
    const field = within(card).getByLabelText("OpenAI API key") as HTMLInputElement;
    const save = within(card).getByTestId("save-key") as HTMLButtonElement;
    expect(field.disabled).toBe(true);
    expect(field.placeholder).toBe("Set ARBOR_TEST_OPENAI_KEY instead");
    expect(save.disabled).toBe(true);
    const reason = within(card).getByTestId("key-reason");
    expect(reason.textContent).toBe("No keyring service, so keys can't be saved here. Set ARBOR_TEST_OPENAI_KEY instead.");
    expect(field.getAttribute("aria-describedby")).toBe(reason.id);
    expect(save.getAttribute("aria-describedby")).toBe(reason.id);
    // A key already in the environment: where it comes from, not a variable to set.
    const anthropic = providerCard("anthropic");
    expect((within(anthropic).getByLabelText("Anthropic API key") as HTMLInputElement).disabled).toBe(true);
    expect((within(anthropic).getByTestId("remove-key") as HTMLButtonElement).disabled).toBe(true);
    expect(within(anthropic).getByTestId("key-reason").textContent).toBe(
      "The key comes from $ARBOR_TEST_ANTHROPIC_KEY; no keyring service, so none can be saved here.",
    );
  });

  it("disables Remove key for a key from the environment and says where it comes from", async () => {
    resetStores({ app: { ...app, keyring: { available: true, problem: null } }, view: "settings" });
    await act(async () => {
      render(<SettingsPanel />);
    });
    expect(screen.queryByTestId("keyring-unavailable")).toBeNull();
    const card = providerCard("anthropic");
    const remove = within(card).getByTestId("remove-key") as HTMLButtonElement;
    expect(remove.disabled).toBe(true);
    const reason = within(card).getByTestId("key-reason");
    expect(reason.textContent).toBe("The key comes from $ARBOR_TEST_ANTHROPIC_KEY (it can't be removed here).");
    expect(remove.getAttribute("aria-describedby")).toBe(reason.id);
    // Saving still works (the variable wins while it is set); the field takes a key.
    const field = within(card).getByLabelText("Anthropic API key") as HTMLInputElement;
    expect(field.disabled).toBe(false);
    fireEvent.change(field, { target: { value: "sk-new" } });
    expect((within(card).getByTestId("save-key") as HTMLButtonElement).disabled).toBe(false);
    // A provider with no key at all has nothing to remove and nothing to explain.
    const openai = providerCard("openai");
    expect((within(openai).getByTestId("remove-key") as HTMLButtonElement).disabled).toBe(true);
    expect(within(openai).queryByTestId("key-reason")).toBeNull();
  });

  it("offers Remove key for a key saved in the keyring", async () => {
    resetStores({
      app: { ...app, keyring: { available: true, problem: null }, providers: [provider({ key_source: "keyring" })] },
      view: "settings",
    });
    await act(async () => {
      render(<SettingsPanel />);
    });
    const card = providerCard("anthropic");
    expect((within(card).getByTestId("remove-key") as HTMLButtonElement).disabled).toBe(false);
    expect(within(card).queryByTestId("key-reason")).toBeNull();
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

  it("sets every model's context window (empty: each model's own) and when agents compact, and saves them", async () => {
    commands.saveSettings.mockImplementation((settings: unknown) =>
      Promise.resolve({ status: "ok", data: { ...app, settings } }),
    );
    resetStores({ app: { ...app, settings: { ...app.settings, context: { window: null, compact_at_percent: 80, summary_model: null } } }, view: "settings" });
    await act(async () => {
      render(<SettingsPanel />);
    });
    const window = screen.getByTestId("context-window") as HTMLInputElement;
    const at = screen.getByTestId("compact-at") as HTMLInputElement;
    expect(window.value).toBe("");
    expect(window.placeholder).toBe("Each model's own");
    expect(at.value).toBe("80");
    fireEvent.change(window, { target: { value: "8192" } });
    fireEvent.change(at, { target: { value: "70" } });
    const summary = screen.getByTestId("summary-model") as HTMLInputElement;
    expect(summary.placeholder).toBe("The agent's own");
    fireEvent.change(summary, { target: { value: "claude-haiku-4-5" } });
    await act(async () => {
      fireEvent.click(screen.getByText("Save settings"));
    });
    expect(commands.saveSettings.mock.calls[0]?.[0]).toMatchObject({
      context: { window: 8192, compact_at_percent: 70, summary_model: "claude-haiku-4-5" },
    });
  });
});
