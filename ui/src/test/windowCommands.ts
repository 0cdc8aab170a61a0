/**
 * The backend commands a whole window (App) calls as it starts and switches
 * sessions, as mocks answering as an idle backend does: the tests that mount
 * App with live sessions share them (each still mocks `../bindings` itself).
 */
import { vi } from "vitest";
import { appState } from "./stores";

const ok = <T,>(data: T) => Promise.resolve({ status: "ok" as const, data });

export function windowCommands() {
  return {
    appState: vi.fn(),
    showSession: vi.fn(() => Promise.resolve(null)),
    sendCommand: vi.fn(),
    closeSession: vi.fn(),
    listSessions: vi.fn(),
    openSession: vi.fn(),
    loadTranscript: vi.fn(),
    agentCatalog: vi.fn(),
    mcpServers: vi.fn(),
    workspaceMcp: vi.fn(),
    describeTask: vi.fn(),
  };
}

/** Resets `commands` to an idle backend's answers (`app` its state): no past sessions, agents or MCP servers. */
export function answerAsIdle(commands: ReturnType<typeof windowCommands>, app = appState()): void {
  for (const f of Object.values(commands)) f.mockReset();
  commands.showSession.mockReturnValue(Promise.resolve(null));
  commands.appState.mockResolvedValue(app);
  commands.sendCommand.mockReturnValue(ok({ kind: "done" }));
  commands.listSessions.mockReturnValue(ok([]));
  commands.agentCatalog.mockResolvedValue({ definitions: [], problems: [] });
  commands.mcpServers.mockReturnValue(ok({ servers: [], problems: [], files: [], workspace: null }));
  commands.workspaceMcp.mockResolvedValue(null);
  commands.describeTask.mockResolvedValue("");
}
