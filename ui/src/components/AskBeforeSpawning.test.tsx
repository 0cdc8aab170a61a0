/**
 * Settings' "Ask before starting subagents": the Task tool's policy in the
 * tools table, shown as one checkbox (ticked: Task = ask; unticked: its default).
 */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Settings } from "../bindings";
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

const tools = [
  { name: "Bash", class: "mutating" as const, default: "ask" as const },
  { name: "Task", class: "delegation" as const, default: "allow" as const },
];

function app(approvals: Settings["approvals"]) {
  return appState({ tools, settings: { default_provider: null, last_workspace: "/w", approvals } });
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.agentCatalog.mockResolvedValue({ definitions: [], problems: [] });
  commands.mcpServers.mockResolvedValue({ status: "ok", data: { servers: [], problems: [], files: [], workspace: null } });
  commands.saveSettings.mockImplementation((settings: Settings) => Promise.resolve({ status: "ok", data: app(settings.approvals) }));
});

async function show(approvals: Settings["approvals"]) {
  resetStores({ app: app(approvals), view: "settings" });
  await act(async () => {
    render(<SettingsPanel />);
  });
  return {
    box: screen.getByTestId("ask-before-spawning") as HTMLInputElement,
    task: screen.getByLabelText("Policy for Task") as HTMLSelectElement,
  };
}

async function save() {
  await act(async () => {
    fireEvent.click(screen.getByText("Save settings"));
  });
  return (commands.saveSettings.mock.calls.at(-1)?.[0] as Settings).approvals;
}

describe("Ask before starting subagents", () => {
  it("is offered in the approvals section with what it does, unticked by default", async () => {
    const { box } = await show({});
    expect(box.checked).toBe(false);
    const section = box.closest("section");
    expect(section?.querySelector("h2")?.textContent).toBe("Approvals");
    expect(box.closest("label")?.textContent).toContain("Ask before starting subagents");
    expect(box.closest("label")?.textContent).toContain("Each Task call becomes an editable card");
  });

  it("ticked sets Task to ask (the table shows it); unticked returns Task to its default", async () => {
    const { box, task } = await show({ Bash: "deny" });
    fireEvent.click(box);
    expect(box.checked).toBe(true);
    expect(task.value).toBe("ask");
    expect(await save()).toEqual({ Bash: "deny", Task: "ask" });

    fireEvent.click(screen.getByTestId("ask-before-spawning"));
    expect((screen.getByTestId("ask-before-spawning") as HTMLInputElement).checked).toBe(false);
    expect((screen.getByLabelText("Policy for Task") as HTMLSelectElement).value).toBe("allow");
    // The default is not stored: Task follows it again.
    expect(await save()).toEqual({ Bash: "deny" });
  });

  it("follows the tools table: Task = ask there ticks it, anything else unticks it", async () => {
    const { box, task } = await show({ Task: "ask" });
    expect(box.checked).toBe(true);
    fireEvent.change(task, { target: { value: "deny" } });
    expect(box.checked).toBe(false);
    fireEvent.change(task, { target: { value: "ask" } });
    expect(box.checked).toBe(true);
  });
});
