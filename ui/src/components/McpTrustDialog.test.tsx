/**
 * Starting a session in a workspace whose .mcp.json is not trusted: asked
 * first, in a dialog that shows what would run; each button does what it says
 * and the default one never trusts.
 */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkspaceMcp } from "../bindings";
import { startDemo } from "../ipc/actions";
import { setFoundTypes } from "../store/delegate";
import { trustStore } from "../store/trust";
import { uiStore } from "../store/ui";
import { resetStores, sessionInfo } from "../test/stores";
import { McpTrustDialog } from "./McpTrustDialog";
import { PromptBox } from "./PromptBox";

const commands = {
  // The generation of the page asking (the shell's, src-tauri/src/bridge.rs).
  thisPage: vi.fn(() => Promise.resolve(7)),
  startSession: vi.fn(),
  startDemo: vi.fn(),
  workspaceMcp: vi.fn(),
  trustWorkspaceMcp: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
vi.mock("@tauri-apps/api/core", () => ({ Channel: class {} }));

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });

function file(extra: Partial<WorkspaceMcp> = {}): WorkspaceMcp {
  return {
    workspace: "/home/me/proj",
    path: "/home/me/proj/.mcp.json",
    servers: [
      {
        name: "everything",
        transport: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-everything", "--root", "my files"],
        env_names: ["API_TOKEN", "DEBUG"],
        defined_in: ".mcp.json",
      },
      { name: "docs", transport: "http", command: "https://example.test/mcp", args: [], env_names: [], defined_in: ".mcp.json" },
    ],
    hooks: [],
    allows: [],
    trusted: false,
    changed_since_trusted: false,
    sha256: "abc123",
    ...extra,
  };
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.startSession.mockReturnValue(ok(sessionInfo()));
  commands.startDemo.mockReturnValue(ok(sessionInfo({ demo: true })));
  resetStores({ workspace: "/home/me/proj", provider: "anthropic", model: "" });
});

function show() {
  render(
    <>
      <PromptBox />
      <McpTrustDialog />
    </>,
  );
}

/** Types a prompt and presses Start; resolves once the dialog shows or the start has run. */
async function start(text = "Fix the build") {
  fireEvent.change(screen.getByTestId("prompt-input"), { target: { value: text } });
  await act(async () => {
    fireEvent.click(screen.getByTestId("send"));
  });
}

const dialog = () => screen.queryByTestId("mcp-trust-dialog");

async function press(testId: string) {
  await act(async () => {
    fireEvent.click(screen.getByTestId(testId));
  });
}

describe("starting in a workspace with an untrusted .mcp.json", () => {
  it("asks nothing when the workspace has no file, or a trusted one", async () => {
    commands.workspaceMcp.mockResolvedValue(null);
    show();
    await start();
    expect(commands.workspaceMcp).toHaveBeenCalledWith("/home/me/proj");
    expect(dialog()).toBeNull();
    expect(commands.startSession).toHaveBeenCalledTimes(1);

    commands.workspaceMcp.mockResolvedValue(file({ trusted: true }));
    // A new session again (with one running, the prompt would go to its main agent).
    act(() => uiStore.set((s) => ({ ...s, session: null })));
    await start("Again");
    expect(dialog()).toBeNull();
    expect(commands.startSession).toHaveBeenCalledTimes(2);
    expect(commands.trustWorkspaceMcp).not.toHaveBeenCalled();
  });

  it("shows the file, each server's full command line or URL and its variables' names, and focuses Start without them", async () => {
    commands.workspaceMcp.mockResolvedValue(file());
    show();
    await start();
    const d = dialog();
    expect(d).not.toBeNull();
    expect(d?.getAttribute("aria-label")).toBe("Start this workspace's MCP servers?");
    expect(d?.textContent).toContain("/home/me/proj/.mcp.json");
    expect(d?.textContent).not.toContain("changed since you trusted it");
    const rows = within(d!).getAllByTestId("mcp-trust-server");
    expect(rows.map((r) => r.dataset.server)).toEqual(["everything", "docs"]);
    expect(rows[0]?.querySelector(".launch-line")?.textContent).toBe(
      "npx -y @modelcontextprotocol/server-everything --root 'my files'",
    );
    expect(rows[0]?.textContent).toContain("API_TOKEN");
    expect(rows[0]?.textContent).toContain("DEBUG");
    expect(rows[1]?.querySelector(".launch-line")?.textContent).toBe("https://example.test/mcp");
    // Enter on the focused button starts without trusting.
    expect(document.activeElement).toBe(screen.getByTestId("mcp-trust-skip"));
    expect(commands.startSession).not.toHaveBeenCalled();
  });

  it("lists each hook a workspace's settings define, with its event, matcher, command and file", async () => {
    commands.workspaceMcp.mockResolvedValue(
      file({
        servers: [],
        path: "/home/me/proj/.claude/settings.json",
        hooks: [
          { event: "PreToolUse", matcher: "Bash", command: "./guard.sh", defined_in: "/home/me/proj/.claude/settings.json" },
          { event: "Stop", matcher: null, command: "npm test", defined_in: "agent type reviewer" },
        ],
      }),
    );
    show();
    await start();
    const d = dialog();
    expect(d?.getAttribute("aria-label")).toBe("Run this workspace's commands?");
    expect(d?.textContent).toContain("these 2 hooks");
    expect(d?.textContent).toContain("outside the agents' sandbox");
    const rows = within(d!).getAllByTestId("mcp-trust-hook");
    expect(rows.map((r) => r.dataset.event)).toEqual(["PreToolUse", "Stop"]);
    expect(rows[0]?.textContent).toContain("Bash");
    expect(rows[0]?.querySelector(".launch-line")?.textContent).toBe("./guard.sh");
    expect(rows[1]?.textContent).toContain("in agent type reviewer");
    expect(within(d!).queryAllByTestId("mcp-trust-server")).toHaveLength(0);
  });

  it("starts the main agent as the type chosen for this workspace, and as Arbor's own for another", async () => {
    commands.workspaceMcp.mockResolvedValue(null);
    setFoundTypes("/home/me/proj", [
      { name: "code-reviewer", description: "d", model: null, provider: null, source: "workspace (.claude)", file: null, acp: null, user: false },
    ]);
    act(() => uiStore.set((s) => ({ ...s, agentType: "code-reviewer" })));
    show();
    await start();
    expect(commands.startSession.mock.calls[0]?.[0]).toMatchObject({ workspace: "/home/me/proj", agent_type: "code-reviewer" });
    act(() => uiStore.set((s) => ({ ...s, session: null, workspace: "/home/me/other" })));
    await start("Again");
    expect(commands.startSession.mock.calls[1]?.[0]).toMatchObject({ workspace: "/home/me/other", agent_type: null });
  });

  it("says when the file changed since it was trusted", async () => {
    commands.workspaceMcp.mockResolvedValue(file({ changed_since_trusted: true }));
    show();
    await start();
    expect(dialog()?.textContent).toContain("changed since you trusted it");
  });

  it("Trust and start trusts the file, then starts", async () => {
    commands.workspaceMcp.mockResolvedValue(file());
    commands.trustWorkspaceMcp.mockReturnValue(ok(file({ trusted: true })));
    show();
    await start();
    await press("mcp-trust-accept");
    expect(dialog()).toBeNull();
    expect(commands.trustWorkspaceMcp).toHaveBeenCalledWith("/home/me/proj", "abc123");
    expect(commands.startSession).toHaveBeenCalledTimes(1);
    expect(commands.trustWorkspaceMcp.mock.invocationCallOrder[0]).toBeLessThan(
      commands.startSession.mock.invocationCallOrder[0] ?? 0,
    );
    expect(commands.startSession.mock.calls[0]?.[0]).toMatchObject({ workspace: "/home/me/proj", prompt: "Fix the build" });
    expect(uiStore.get().session?.session_id).toBe("s-1");
  });

  it("Start without them starts without trusting", async () => {
    commands.workspaceMcp.mockResolvedValue(file());
    show();
    await start();
    await press("mcp-trust-skip");
    expect(dialog()).toBeNull();
    expect(commands.trustWorkspaceMcp).not.toHaveBeenCalled();
    expect(commands.startSession).toHaveBeenCalledTimes(1);
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("");
  });

  it("Cancel (or Escape) starts nothing and keeps the prompt", async () => {
    commands.workspaceMcp.mockResolvedValue(file());
    show();
    await start();
    await press("mcp-trust-cancel");
    expect(dialog()).toBeNull();
    expect(commands.trustWorkspaceMcp).not.toHaveBeenCalled();
    expect(commands.startSession).not.toHaveBeenCalled();
    expect(uiStore.get().session).toBeNull();
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("Fix the build");

    await start();
    await act(async () => {
      fireEvent.keyDown(dialog()!, { key: "Escape" });
    });
    expect(dialog()).toBeNull();
    expect(commands.startSession).not.toHaveBeenCalled();
  });

  it("starts nothing when trusting fails, and says why", async () => {
    commands.workspaceMcp.mockResolvedValue(file());
    commands.trustWorkspaceMcp.mockReturnValue(
      Promise.resolve({ status: "error", error: { kind: "settings", message: "cannot write trust.json" } }),
    );
    show();
    await start();
    await press("mcp-trust-accept");
    expect(commands.startSession).not.toHaveBeenCalled();
    expect(uiStore.get().errors.map((e) => e.message)).toEqual([
      "Could not trust /home/me/proj/.mcp.json: cannot write trust.json",
    ]);
  });

  it("never asks before the demo", async () => {
    commands.workspaceMcp.mockResolvedValue(file());
    show();
    await act(async () => {
      await startDemo();
    });
    expect(commands.workspaceMcp).not.toHaveBeenCalled();
    expect(trustStore.get()).toBeNull();
    expect(commands.startDemo).toHaveBeenCalledTimes(1);
  });
});
