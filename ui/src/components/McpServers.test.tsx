import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AppState, McpReport, McpServerInfo, WorkspaceMcp } from "../bindings";
import { resetStores } from "../test/stores";
import { SettingsPanel } from "./SettingsPanel";

const commands = {
  mcpServers: vi.fn(),
  agentCatalog: vi.fn(),
  trustWorkspaceMcp: vi.fn(),
  untrustWorkspaceMcp: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });

const app: AppState = {
  taken: 1,
  settings: { default_provider: null, last_workspace: "/work/demo", approvals: {} },
  settings_problem: null,
  providers: [],
  keyring: { available: true, problem: null },
  sessions: [],
  default_workspace: "/home",
  tools: [],
  transcripts: { path: "/data/arbor.db", problem: null },
  sandbox: { mechanism: "bubblewrap 0.8.0", problem: null },
  interrupted: [],
  claude_code_dir: null,
};

function server(extra: Partial<McpServerInfo> = {}): McpServerInfo {
  return {
    name: "everything",
    source: { kind: "workspace", path: "/work/demo/.mcp.json" },
    transport: "stdio",
    target: "npx -y @modelcontextprotocol/server-everything",
    state: "ready",
    error: null,
    tools: [],
    ...extra,
  };
}

function report(extra: Partial<McpReport> = {}): McpReport {
  return {
    servers: [],
    problems: [],
    files: ["/home/u/.config/arbor/mcp.json", "/work/demo/.mcp.json"],
    workspace: null,
    ...extra,
  };
}

function workspaceFile(extra: Partial<WorkspaceMcp> = {}): WorkspaceMcp {
  return {
    workspace: "/work/demo",
    path: "/work/demo/.mcp.json",
    servers: [
      { name: "everything", transport: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"], env_names: ["TOKEN"], defined_in: ".mcp.json" },
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
  commands.agentCatalog.mockResolvedValue({ definitions: [], problems: [] });
  resetStores({ view: "settings", app, workspace: "/work/demo" });
});

async function show() {
  await act(async () => {
    render(<SettingsPanel />);
  });
  return screen.getByTestId("mcp-servers");
}

function rows() {
  return screen.getAllByTestId("mcp-server-row");
}

describe("Settings: MCP servers", () => {
  it("lists a ready server with its source, command line and tools, read-only ones marked", async () => {
    commands.mcpServers.mockReturnValue(
      ok(
        report({
          servers: [
            server({
              tools: [
                { name: "mcp__everything__echo", tool: "echo", description: "Echoes back the input.\nSecond line", read_only: true },
                // The server's own name is shown as Rust gives it, not cut out of the model's name.
                { name: "mcp__everything__add_v2", tool: "add.v2", description: "Adds two numbers", read_only: false },
              ],
            }),
          ],
        }),
      ),
    );
    const section = await show();
    expect(commands.mcpServers).toHaveBeenCalledWith("/work/demo", false);
    const [row] = rows();
    expect(row?.dataset.state).toBe("ready");
    const text = row?.textContent ?? "";
    expect(text).toContain("everything");
    expect(text).toContain("ready · 2 tools");
    expect(text).toContain("Workspace .mcp.json");
    expect(text).toContain("/work/demo/.mcp.json");
    expect(text).toContain("stdio");
    expect(row?.querySelector("code")?.textContent).toBe("npx -y @modelcontextprotocol/server-everything");
    const tools = within(row!).getAllByTestId("mcp-tool");
    expect(tools.map((t) => t.querySelector(".tool-id")?.textContent)).toEqual(["echo", "add.v2"]);
    expect(tools[1]?.querySelector(".tool-id")?.getAttribute("title")).toBe("mcp__everything__add_v2");
    expect(tools[0]?.textContent).toContain("Echoes back the input.");
    expect(tools[0]?.textContent).not.toContain("Second line");
    expect(tools[0]?.textContent).toContain("read-only");
    expect(tools[1]?.textContent).not.toContain("read-only");
    expect(row?.querySelector("details summary")?.textContent).toContain("2 tools · 1 read-only");
    expect(section.textContent).toContain("Read-only tools run without asking; the others ask for approval by default.");
    expect(screen.queryByTestId("mcp-loading")).toBeNull();
  });

  it("shows a failed server's error, an agent-only server and the problems as warnings", async () => {
    commands.mcpServers.mockReturnValue(
      ok(
        report({
          servers: [
            server({ name: "broken", state: "failed", target: "nope --serve", error: "could not be started: `nope`: not found" }),
            server({
              name: "docs",
              source: { kind: "agent", agent_type: "researcher" },
              transport: "http",
              target: "https://example.test/mcp",
              state: "unchecked",
            }),
          ],
          problems: ['/work/demo/.mcp.json: server "x": no command or url'],
        }),
      ),
    );
    await show();
    const [broken, docs] = rows();
    expect(broken?.dataset.state).toBe("failed");
    expect(broken?.textContent).toContain("failed");
    expect(within(broken!).getByTestId("mcp-server-error").textContent).toBe("could not be started: `nope`: not found");
    expect(docs?.dataset.state).toBe("unchecked");
    expect(docs?.textContent).toContain("not checked");
    expect(docs?.textContent).toContain("Agent type researcher only");
    expect(docs?.textContent).toContain("https://example.test/mcp");
    expect(screen.getByTestId("mcp-problem").textContent).toContain('server "x": no command or url');
  });

  it("has an empty state naming the files looked in, with an example", async () => {
    commands.mcpServers.mockReturnValue(ok(report()));
    await show();
    const empty = screen.getByTestId("mcp-empty");
    expect(empty.textContent).toContain("No MCP servers configured");
    expect(empty.textContent).toContain("/home/u/.config/arbor/mcp.json");
    expect(empty.textContent).toContain("/work/demo/.mcp.json");
    expect(empty.querySelector("pre")?.textContent).toContain('"@modelcontextprotocol/server-everything"');
    expect(screen.queryAllByTestId("mcp-server-row")).toEqual([]);
  });

  it("says servers are starting while it waits, and checks again with fresh", async () => {
    let answer: (r: unknown) => void = () => {};
    commands.mcpServers.mockReturnValue(new Promise((resolve) => (answer = resolve)));
    await show();
    expect(screen.getByTestId("mcp-loading").textContent).toContain("Starting servers to list their tools…");
    expect((screen.getByTestId("mcp-check") as HTMLButtonElement).disabled).toBe(true);
    await act(async () => answer({ status: "ok", data: report({ servers: [server({ state: "unchecked" })] }) }));
    expect(screen.queryByTestId("mcp-loading")).toBeNull();
    expect(rows()[0]?.dataset.state).toBe("unchecked");

    commands.mcpServers.mockReturnValue(ok(report({ servers: [server({ tools: [] })] })));
    await act(async () => {
      fireEvent.click(screen.getByTestId("mcp-check"));
    });
    expect(commands.mcpServers).toHaveBeenLastCalledWith("/work/demo", true);
    expect(rows()[0]?.dataset.state).toBe("ready");
    expect(rows()[0]?.textContent).toContain("ready · 0 tools");
  });

  it("shows a failed command as an error, not a blank", async () => {
    commands.mcpServers.mockReturnValue(Promise.resolve({ status: "error", error: { kind: "settings", message: "bad JSON in mcp.json" } }));
    await show();
    expect(screen.getByTestId("mcp-error").textContent).toContain("bad JSON in mcp.json");
    commands.mcpServers.mockRejectedValue(new Error("ipc down"));
    await act(async () => {
      fireEvent.click(screen.getByTestId("mcp-check"));
    });
    expect(screen.getByTestId("mcp-error").textContent).toContain("ipc down");
  });
});

describe("Settings: the workspace's .mcp.json", () => {
  it("lists an untrusted file's servers as not started, and Trust trusts it and lists them again", async () => {
    commands.mcpServers.mockReturnValueOnce(ok(report({ workspace: workspaceFile() })));
    await show();
    const block = screen.getByTestId("mcp-workspace-untrusted");
    expect(block.textContent).toContain("/work/demo/.mcp.json");
    expect(block.textContent).toContain("is not trusted");
    const [row] = within(block).getAllByTestId("mcp-trust-server");
    expect(row?.dataset.server).toBe("everything");
    expect(row?.textContent).toContain("not started");
    expect(row?.querySelector(".launch-line")?.textContent).toBe("npx -y @modelcontextprotocol/server-everything");
    expect(row?.textContent).toContain("TOKEN");
    // Not the "nothing configured" state: there is a file, just not trusted.
    expect(screen.queryByTestId("mcp-empty")).toBeNull();
    expect(screen.queryByTestId("mcp-untrust")).toBeNull();

    commands.trustWorkspaceMcp.mockReturnValue(ok(workspaceFile({ trusted: true })));
    commands.mcpServers.mockReturnValueOnce(ok(report({ servers: [server()], workspace: workspaceFile({ trusted: true }) })));
    await act(async () => {
      fireEvent.click(screen.getByTestId("mcp-trust"));
    });
    expect(commands.trustWorkspaceMcp).toHaveBeenCalledWith("/work/demo", "abc123");
    expect(commands.mcpServers).toHaveBeenCalledTimes(2);
    expect(commands.mcpServers).toHaveBeenLastCalledWith("/work/demo", false);
    expect(screen.queryByTestId("mcp-workspace-untrusted")).toBeNull();
    expect(rows()[0]?.dataset.server).toBe("everything");
    expect(screen.getByTestId("mcp-untrust")).toBeTruthy();
  });

  it("says when an untrusted file changed since it was trusted", async () => {
    commands.mcpServers.mockReturnValue(ok(report({ workspace: workspaceFile({ changed_since_trusted: true }) })));
    await show();
    expect(screen.getByTestId("mcp-workspace-untrusted").textContent).toContain("changed since you trusted it");
  });

  it("offers Untrust for a trusted file, which withdraws the trust and lists again", async () => {
    commands.mcpServers.mockReturnValueOnce(ok(report({ servers: [server()], workspace: workspaceFile({ trusted: true }) })));
    await show();
    expect(screen.queryByTestId("mcp-workspace-untrusted")).toBeNull();
    expect(screen.queryByTestId("mcp-trust")).toBeNull();
    commands.untrustWorkspaceMcp.mockReturnValue(ok(true));
    commands.mcpServers.mockReturnValueOnce(ok(report({ workspace: workspaceFile() })));
    await act(async () => {
      fireEvent.click(screen.getByTestId("mcp-untrust"));
    });
    expect(commands.untrustWorkspaceMcp).toHaveBeenCalledWith("/work/demo");
    expect(commands.mcpServers).toHaveBeenCalledTimes(2);
    expect(screen.getByTestId("mcp-workspace-untrusted")).toBeTruthy();
    expect(screen.queryAllByTestId("mcp-server-row")).toEqual([]);
  });

  it("shows a failed trust inline and keeps the file untrusted", async () => {
    commands.mcpServers.mockReturnValue(ok(report({ workspace: workspaceFile() })));
    await show();
    commands.trustWorkspaceMcp.mockReturnValue(Promise.resolve({ status: "error", error: { kind: "settings", message: "read-only config" } }));
    await act(async () => {
      fireEvent.click(screen.getByTestId("mcp-trust"));
    });
    expect(within(screen.getByTestId("mcp-workspace-untrusted")).getByRole("alert").textContent).toBe("read-only config");
    expect(commands.mcpServers).toHaveBeenCalledTimes(1);
  });
});
