import { describe, expect, it } from "vitest";
import {
  firstLine,
  firstStringArg,
  isMcpTool,
  mcpSourceLabel,
  mcpStateLabel,
  mcpStatusText,
  mcpToolShortName,
  parseMcpTool,
  toolDisplayName,
} from "./mcp";

describe("MCP tool names", () => {
  it("splits mcp__<server>__<tool> into server and tool", () => {
    expect(parseMcpTool("mcp__everything__echo")).toEqual({ server: "everything", tool: "echo" });
    expect(parseMcpTool("mcp__my-server__get_tiny_image")).toEqual({ server: "my-server", tool: "get_tiny_image" });
    expect(parseMcpTool("mcp__a_b__c__d")).toEqual({ server: "a_b", tool: "c__d" });
    expect(toolDisplayName("mcp__everything__echo")).toBe("everything · echo");
    expect(isMcpTool("mcp__everything__echo")).toBe(true);
  });

  it("leaves built-in and malformed names alone", () => {
    for (const name of ["Bash", "Task", "mcp_everything_echo", "mcp__everything", "mcp____echo", "mcp__everything__"]) {
      expect(parseMcpTool(name)).toBeNull();
      expect(toolDisplayName(name)).toBe(name);
    }
    expect(isMcpTool(null)).toBe(false);
  });

  it("strips the prefix of a configured server's tools, cleaned as the backend cleans it", () => {
    expect(mcpToolShortName("everything", "mcp__everything__echo")).toBe("echo");
    expect(mcpToolShortName("my.server", "mcp__my_server__fetch")).toBe("fetch");
    expect(mcpToolShortName("x", "plain")).toBe("plain");
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
    expect(mcpSourceLabel({ kind: "agent", agent_type: "researcher" })).toEqual({ text: "Agent type researcher only", path: null });
    const tool = { name: "mcp__a__b", description: "", read_only: false };
    expect(mcpStateLabel({ state: "ready", tools: [tool, tool] })).toBe("ready · 2 tools");
    expect(mcpStateLabel({ state: "ready", tools: [tool] })).toBe("ready · 1 tool");
    expect(mcpStateLabel({ state: "unchecked", tools: [] })).toBe("not checked");
    expect(mcpStateLabel({ state: "failed", tools: [] })).toBe("failed");
    expect(firstLine("\n  Echoes the input.\nMore text")).toBe("Echoes the input.");
  });
});
