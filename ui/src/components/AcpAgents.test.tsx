import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentTypeInfo } from "../bindings";
import { AcpAgents } from "./AcpAgents";
import { Catalog } from "./SettingsPanel";

const added = vi.fn();
const removed = vi.fn();
const read = vi.fn();
let definitions: AgentTypeInfo[] = [];

vi.mock("../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: {
    acpPresets: () =>
      Promise.resolve([
        {
          label: "Claude Code",
          name: "claude",
          description: "Claude Code through ACP",
          command: "npx",
          args: ["-y", "@zed-industries/claude-agent-acp"],
          needs: "Node.js",
        },
      ]),
    agentCatalog: (workspace: string | null) => {
      read(workspace);
      return Promise.resolve({ definitions, problems: [] });
    },
    addAcpAgent: (agent: unknown) => {
      added(agent);
      definitions = [...definitions, { ...type("claude", true), acp: "npx -y @zed-industries/claude-agent-acp" }];
      return Promise.resolve({ status: "ok", data: { ...type("claude", true), acp: "npx -y @zed-industries/claude-agent-acp" } });
    },
    removeAcpAgent: (name: string) => {
      removed(name);
      return Promise.resolve({ status: "error", error: { kind: "not_found", message: "no ACP agent named x" } });
    },
  },
}));

function type(name: string, user: boolean): AgentTypeInfo {
  return { name, description: name, model: null, provider: null, source: user ? "user config" : "workspace .claude/agents", file: null, acp: `run-${name}`, user };
}

beforeEach(() => {
  added.mockReset();
  removed.mockReset();
  read.mockReset();
  definitions = [type("mine", true), type("theirs", false), { ...type("plain", true), acp: null }];
});

describe("Settings → External agents (ACP)", () => {
  it("lists the ACP agent types, removable only when they are the user's own", async () => {
    render(<AcpAgents workspace="/w" />);
    const rows = await screen.findAllByTestId("acp-agent");
    expect(rows.map((r) => r.dataset.name)).toEqual(["mine", "theirs"]);
    expect(within(rows[0] as HTMLElement).queryByTestId("acp-agent-remove")).not.toBeNull();
    expect(within(rows[1] as HTMLElement).queryByTestId("acp-agent-remove")).toBeNull();
    await act(async () => {
      fireEvent.click(within(rows[0] as HTMLElement).getByTestId("acp-agent-remove"));
      await Promise.resolve();
    });
    expect(removed).toHaveBeenCalledWith("mine");
    // Rust's refusal is said, as Rust put it.
    expect((await screen.findByTestId("acp-message")).textContent).toBe("no ACP agent named x");
  });

  it("fills the form from a preset and adds the agent with one argument per line", async () => {
    render(<AcpAgents workspace="/w" />);
    await screen.findByRole("option", { name: "Claude Code" });
    fireEvent.change(screen.getByTestId("acp-preset"), { target: { value: "Claude Code" } });
    expect((screen.getByTestId("acp-command") as HTMLInputElement).value).toBe("npx");
    expect((screen.getByTestId("acp-args") as HTMLTextAreaElement).value).toBe("-y\n@zed-industries/claude-agent-acp");
    expect(screen.getByText("Needs: Node.js")).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByTestId("acp-add"));
      await Promise.resolve();
    });
    expect(added).toHaveBeenCalledWith({
      name: "claude",
      description: "Claude Code through ACP",
      command: "npx",
      args: ["-y", "@zed-industries/claude-agent-acp"],
    });
    await waitFor(() => expect(screen.getByTestId("acp-message").textContent).toContain("runs npx -y @zed-industries/claude-agent-acp"));
    expect((screen.getByTestId("acp-name") as HTMLInputElement).value).toBe("");
  });

  it("shows an agent it added in Settings' agent definitions too, without a Reload", async () => {
    render(
      <>
        <Catalog workspace="/w" />
        <AcpAgents workspace="/w" />
      </>,
    );
    const catalog = await screen.findByRole("region", { name: /Agent definitions/ });
    await within(catalog).findAllByText("mine");
    expect(within(catalog).queryAllByText("claude")).toHaveLength(0);
    await screen.findByRole("option", { name: "Claude Code" });
    fireEvent.change(screen.getByTestId("acp-preset"), { target: { value: "Claude Code" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("acp-add"));
      await Promise.resolve();
    });
    expect((await within(catalog).findAllByText("claude")).length).toBeGreaterThan(0);
  });

  it("reads the files once for both cards, once more on Reload, and again when Settings opens again", async () => {
    const settings = () => (
      <>
        <Catalog workspace="/w" />
        <AcpAgents workspace="/w" />
      </>
    );
    const { unmount } = render(settings());
    const catalog = await screen.findByRole("region", { name: /Agent definitions/ });
    await within(catalog).findAllByText("mine");
    await screen.findAllByTestId("acp-agent");
    expect(read.mock.calls).toEqual([["/w"]]);
    await act(async () => {
      fireEvent.click(within(catalog).getByRole("button", { name: "Reload" }));
      await Promise.resolve();
    });
    await waitFor(() => expect(read).toHaveBeenCalledTimes(2));
    unmount();
    render(settings());
    await screen.findAllByTestId("acp-agent");
    expect(read).toHaveBeenCalledTimes(3);
  });
});
