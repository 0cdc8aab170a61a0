/**
 * The Delegate… form's agent types: the session's, and those found on disk
 * since it started (Settings → Reload, or read again as the form opens),
 * listed but not choosable until Rust says the session can start them.
 */
import { act, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentTypeInfo } from "../bindings";
import { loadCatalog } from "../ipc/actions";
import { ADDED_SINCE } from "../lib/agentTypes";
import { foundTypesStore } from "../store/delegate";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { appState, applyEvents, resetStores, sessionInfo } from "../test/stores";
import { DelegateDialog } from "./DelegateDialog";

const agentCatalog = vi.fn();
const appStateCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: {
    agentCatalog: (...a: unknown[]) => agentCatalog(...a),
    appState: (...a: unknown[]) => appStateCommand(...a),
    describeTask: () => Promise.resolve(""),
  },
}));

const type = (name: string, description: string): AgentTypeInfo => ({
  name,
  description,
  model: null,
  provider: null,
  source: "workspace .claude/agents",
  file: `/work/demo/.claude/agents/${name}.md`,
  acp: null,
  user: false,
});
const tester = type("tester", "Writes and runs tests");
const reviewer = type("reviewer", "Reviews a diff");

function options(): { name: string; text: string; disabled: boolean }[] {
  const select = screen.getByTestId("delegate-type") as HTMLSelectElement;
  return [...select.options].map((o) => ({ name: o.value, text: o.textContent ?? "", disabled: o.disabled }));
}

beforeEach(() => {
  agentCatalog.mockReset();
  appStateCommand.mockReset();
  foundTypesStore.set(null);
  const session = sessionInfo({ agent_types: [tester] });
  resetStores({ session, dialog: { kind: "delegate", parentId: "agent-main" } });
  applyEvents([eventMaker().started("agent-main", null, "main")]);
  // By default Rust still lists the session's types as it started.
  appStateCommand.mockResolvedValue(appState({ sessions: [session] }));
});

describe("the Delegate… form's agent types", () => {
  it("reads the types again as it opens and lists one added since, saying why it can't be chosen yet", async () => {
    agentCatalog.mockResolvedValue({ definitions: [tester, reviewer], problems: [] });
    await act(async () => {
      render(<DelegateDialog parentId="agent-main" />);
    });
    expect(agentCatalog).toHaveBeenCalledWith("/work/demo");
    expect(options()).toEqual([
      { name: "general-purpose", text: "general-purpose", disabled: false },
      { name: "tester", text: "tester", disabled: false },
      { name: "reviewer", text: `reviewer — ${ADDED_SINCE}`, disabled: true },
    ]);
  });

  it("offers types Settings → Reload found for the session's workspace at once", async () => {
    agentCatalog.mockResolvedValueOnce({ definitions: [tester, reviewer], problems: [] });
    await loadCatalog("/work/demo");
    // The form's own read has not answered yet.
    agentCatalog.mockReturnValue(new Promise(() => {}));
    appStateCommand.mockReturnValue(new Promise(() => {}));
    render(<DelegateDialog parentId="agent-main" />);
    expect(options().map((o) => o.name)).toEqual(["general-purpose", "tester", "reviewer"]);
  });

  it("ignores types read for another workspace", async () => {
    agentCatalog.mockResolvedValueOnce({ definitions: [reviewer], problems: [] });
    await loadCatalog("/somewhere/else");
    agentCatalog.mockReturnValue(new Promise(() => {}));
    appStateCommand.mockReturnValue(new Promise(() => {}));
    render(<DelegateDialog parentId="agent-main" />);
    expect(options().map((o) => o.name)).toEqual(["general-purpose", "tester"]);
  });

  it("lets a reloaded type be chosen once Rust lists it among the session's", async () => {
    agentCatalog.mockResolvedValue({ definitions: [tester, reviewer], problems: [] });
    const now = sessionInfo({ agent_types: [tester, reviewer] });
    appStateCommand.mockResolvedValue(appState({ sessions: [now] }));
    await act(async () => {
      render(<DelegateDialog parentId="agent-main" />);
    });
    expect(options()).toEqual([
      { name: "general-purpose", text: "general-purpose", disabled: false },
      { name: "tester", text: "tester", disabled: false },
      { name: "reviewer", text: "reviewer", disabled: false },
    ]);
    expect(uiStore.get().session?.agent_types).toEqual([tester, reviewer]);
  });

  it("takes nothing from another session the backend runs", async () => {
    agentCatalog.mockResolvedValue({ definitions: [tester], problems: [] });
    appStateCommand.mockResolvedValue(
      appState({ sessions: [sessionInfo({ session_id: "s-other", agent_types: [reviewer] })] }),
    );
    await act(async () => {
      render(<DelegateDialog parentId="agent-main" />);
    });
    expect(options().map((o) => o.name)).toEqual(["general-purpose", "tester"]);
  });

  it("keeps the session's types when the backend can't be asked", async () => {
    agentCatalog.mockRejectedValue(new Error("ipc down"));
    appStateCommand.mockRejectedValue(new Error("ipc down"));
    await act(async () => {
      render(<DelegateDialog parentId="agent-main" />);
    });
    expect(options().map((o) => o.name)).toEqual(["general-purpose", "tester"]);
  });
});
