import { beforeEach, describe, expect, it, vi } from "vitest";
import type { McpReport } from "../bindings";
import { mcpStore } from "../store/mcp";
import { resetStores } from "../test/stores";
import { loadMcpServers } from "./mcp";

const mcpServers = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { mcpServers: (...a: unknown[]) => mcpServers(...a) },
}));

const report = (name: string): McpReport => ({
  servers: [{ name, source: { kind: "file", path: "/c/mcp.json" }, transport: "stdio", target: name, state: "unchecked", error: null, tools: [] }],
  problems: [],
  files: ["/c/mcp.json"],
  workspace: null,
});

beforeEach(() => {
  mcpServers.mockReset();
  resetStores();
});

describe("loadMcpServers", () => {
  it("keeps only the latest answer, and hides another workspace's servers while loading", async () => {
    mcpServers.mockResolvedValueOnce({ status: "ok", data: report("a") });
    await loadMcpServers("/w1");
    expect(mcpStore.get()).toMatchObject({ workspace: "/w1", loading: false, error: null });
    expect(mcpStore.get().report?.servers[0]?.name).toBe("a");

    let slow: (v: unknown) => void = () => {};
    mcpServers.mockReturnValueOnce(new Promise((r) => (slow = r)));
    const first = loadMcpServers("/w2");
    expect(mcpStore.get()).toMatchObject({ workspace: "/w2", loading: true, report: null });
    mcpServers.mockResolvedValueOnce({ status: "ok", data: report("c") });
    await loadMcpServers("/w2", true);
    expect(mcpServers).toHaveBeenLastCalledWith("/w2", true);
    slow({ status: "ok", data: report("b") });
    await first;
    expect(mcpStore.get().report?.servers[0]?.name).toBe("c");
  });

  it("keeps the last report when checking again fails", async () => {
    mcpServers.mockResolvedValueOnce({ status: "ok", data: report("a") });
    await loadMcpServers(null);
    mcpServers.mockResolvedValueOnce({ status: "error", error: { kind: "settings", message: "unreadable" } });
    await loadMcpServers(null, true);
    expect(mcpStore.get()).toMatchObject({ loading: false, error: "unreadable" });
    expect(mcpStore.get().report?.servers[0]?.name).toBe("a");
  });
});
