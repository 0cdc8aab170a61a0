/** Settings' "Sandbox" section: the machine's availability, the mode, network, writable directories, running without asking. */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { SANDBOX_MODES, type AppState, type SandboxSettings } from "../bindings";
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

const stored: SandboxSettings = { mode: "workspace", network: false, write: ["~/.cache/pip"], run_sandboxed_without_asking: false };

function app(extra: Partial<AppState> = {}, sandbox: SandboxSettings = stored): AppState {
  return appState({
    settings: { default_provider: null, last_workspace: "/w", approvals: {}, sandbox },
    ...extra,
  });
}

async function open(state: AppState) {
  resetStores({ app: state, view: "settings" });
  await act(async () => {
    render(<SettingsPanel />);
  });
}

const el = <T extends HTMLElement = HTMLInputElement>(id: string) => screen.getByTestId(id) as T;
const saved = () => commands.saveSettings.mock.calls.at(-1)?.[0] as { sandbox: SandboxSettings };

async function save() {
  await act(async () => {
    fireEvent.click(screen.getByText("Save settings"));
  });
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.agentCatalog.mockResolvedValue({ definitions: [], problems: [] });
  commands.mcpServers.mockResolvedValue({ status: "ok", data: { servers: [], problems: [], files: [] } });
  commands.saveSettings.mockImplementation((settings: unknown) =>
    Promise.resolve({ status: "ok", data: { ...app(), settings } }),
  );
});

describe("the Sandbox settings", () => {
  it("says which mechanism this machine sandboxes with, and offers Rust's modes in words", async () => {
    await open(app());
    const status = el("settings-sandbox-status");
    expect(status.textContent).toContain("bubblewrap 0.8.0");
    expect(status.dataset.ok).toBe("true");
    const mode = el<HTMLSelectElement>("settings-sandbox-mode");
    expect([...mode.options].map((o) => o.value)).toEqual([...SANDBOX_MODES]);
    expect(mode.value).toBe("workspace");
    expect([...mode.options].map((o) => o.textContent)).toEqual([
      "Off — commands run as you",
      "Workspace — writes only in the workspace and a private /tmp, secrets hidden",
      "Strict — also hides your home directory",
    ]);
    expect(el<HTMLTextAreaElement>("settings-sandbox-write").value).toBe("~/.cache/pip");
  });

  it("offers running sandboxed commands without asking first, and saves every choice", async () => {
    await open(app());
    const section = screen.getByRole("region", { name: "Sandbox" });
    // First control of the section.
    expect(section.querySelector("input, select, textarea")).toBe(el("settings-sandbox-auto"));
    expect(section.textContent).toContain("The sandbox, not you, holds them; other calls still ask.");
    const auto = el("settings-sandbox-auto");
    expect(auto.disabled).toBe(false);
    expect(auto.checked).toBe(false);
    fireEvent.click(auto);
    fireEvent.change(el("settings-sandbox-mode"), { target: { value: "strict" } });
    fireEvent.click(el("settings-sandbox-network"));
    fireEvent.change(el("settings-sandbox-write"), { target: { value: "~/.cache/pip\n  /opt/build  \n" } });
    // The line being typed stays while it means the same list.
    expect(el<HTMLTextAreaElement>("settings-sandbox-write").value).toBe("~/.cache/pip\n  /opt/build  \n");
    await save();
    expect(commands.saveSettings).toHaveBeenCalledTimes(1);
    expect(saved().sandbox).toEqual({
      mode: "strict",
      network: true,
      write: ["~/.cache/pip", "/opt/build"],
      run_sandboxed_without_asking: true,
    });
  });

  it("cannot run without asking while the sandbox is off", async () => {
    await open(app({}, { ...stored, mode: "off", run_sandboxed_without_asking: true }));
    const auto = el("settings-sandbox-auto");
    expect(auto.disabled).toBe(true);
    expect(auto.checked).toBe(false);
    expect(el("settings-sandbox-auto-blocked").textContent).toContain("sandbox is off");
    expect(el("settings-sandbox-network").disabled).toBe(true);
    fireEvent.change(el("settings-sandbox-mode"), { target: { value: "workspace" } });
    expect(el("settings-sandbox-auto").disabled).toBe(false);
    expect(el("settings-sandbox-auto").checked).toBe(true);
  });

  it("warns when the machine cannot sandbox, and offers nothing that needs it", async () => {
    await open(app({ sandbox: { mechanism: null, problem: "bwrap is not installed" } }));
    const status = el("settings-sandbox-status");
    expect(status.dataset.ok).toBe("false");
    expect(status.getAttribute("role")).toBe("alert");
    expect(status.textContent).toContain("bwrap is not installed");
    expect(el("settings-sandbox-auto").disabled).toBe(true);
    expect(el("settings-sandbox-auto-blocked").textContent).toContain("cannot sandbox");
  });

  it("shows the stored list again after Revert", async () => {
    await open(app());
    fireEvent.change(el("settings-sandbox-write"), { target: { value: "/x\n" } });
    expect(el<HTMLTextAreaElement>("settings-sandbox-write").value).toBe("/x\n");
    fireEvent.click(screen.getByText("Revert"));
    expect(el<HTMLTextAreaElement>("settings-sandbox-write").value).toBe("~/.cache/pip");
  });
});
