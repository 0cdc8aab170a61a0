import { describe, expect, it } from "vitest";
import { firstLine, firstStringArg, launchLine, mcpSourceLabel, mcpStateLabel, mcpStatusText, toolDisplayName } from "./mcp";

describe("MCP tool names", () => {
  it("names an MCP tool by the server and tool its call names, any other by its name as it is", () => {
    expect(toolDisplayName("mcp__everything__echo", { server: "everything", tool: "echo" })).toBe("everything · echo");
    // Rust's names win over anything the model's name seems to say.
    expect(toolDisplayName("mcp__my_server__fetch", { server: "my.server", tool: "fetch" })).toBe("my.server · fetch");
    for (const name of ["Bash", "Task", "mcp__everything__echo"]) expect(toolDisplayName(name, null)).toBe(name);
  });

  it("summarises an MCP call by its first string argument", () => {
    expect(firstStringArg({ count: 3, message: "hello\nworld" })).toBe("hello");
    expect(firstStringArg({ a: 1 })).toBeNull();
    expect(firstStringArg(["x"])).toBeNull();
  });
});

describe("MCP labels", () => {
  it("words an agent's connection status", () => {
    expect(mcpStatusText("everything", "connected", 123, null)).toEqual({
      failed: false,
      text: "MCP everything started (pid 123)",
    });
    expect(mcpStatusText("everything", "closed", 123, null).text).toBe("MCP everything started (pid 123) · stopped");
    expect(mcpStatusText("web", "connected", null, null).text).toBe("MCP web connected");
    expect(mcpStatusText("x", "failed", null, "exited or hung up")).toEqual({ failed: true, text: "MCP x failed: exited or hung up" });
  });

  it("names where a server is configured and its state", () => {
    expect(mcpSourceLabel({ kind: "workspace", path: "/w/.mcp.json" })).toEqual({ text: "Workspace .mcp.json", path: "/w/.mcp.json" });
    expect(mcpSourceLabel({ kind: "file", path: "/home/u/.config/arbor/mcp.json" }).path).toBe("/home/u/.config/arbor/mcp.json");
    expect(mcpSourceLabel({ kind: "client", client: "Zed" })).toEqual({ text: "Given by Zed (ACP)", path: null });
    expect(mcpSourceLabel({ kind: "agent", agent_type: "researcher" })).toEqual({ text: "Agent type researcher only", path: null });
    const tool = { name: "mcp__a__b", tool: "b", description: "", read_only: false };
    expect(mcpStateLabel({ state: "ready", tools: [tool, tool] })).toBe("ready · 2 tools");
    expect(mcpStateLabel({ state: "ready", tools: [tool] })).toBe("ready · 1 tool");
    expect(mcpStateLabel({ state: "unchecked", tools: [] })).toBe("not checked");
    expect(mcpStateLabel({ state: "failed", tools: [] })).toBe("failed");
    expect(firstLine("\n  Echoes the input.\nMore text")).toBe("Echoes the input.");
  });
});

describe("what a workspace server would run", () => {
  it("shows the whole command line, quoting words a shell would split, or the URL", () => {
    const launch = { name: "x", transport: "stdio", env_names: [], defined_in: ".mcp.json" };
    expect(launchLine({ ...launch, command: "npx", args: ["-y", "@scope/pkg@1.2", "--dir=/tmp/a"] })).toBe(
      "npx -y @scope/pkg@1.2 --dir=/tmp/a",
    );
    expect(launchLine({ ...launch, command: "/opt/my tool/run", args: ["it's", "", "$HOME; rm -rf /"] })).toBe(
      `'/opt/my tool/run' 'it'\\''s' '' '$HOME; rm -rf /'`,
    );
    expect(launchLine({ ...launch, transport: "http", command: "https://example.test/mcp?a=b c", args: [] })).toBe(
      "https://example.test/mcp?a=b c",
    );
  });
});
