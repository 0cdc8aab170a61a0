import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SANDBOX_MODES, type Command, type ToolInfo } from "../bindings";
import { bookFromPast, bookStore } from "../store/review";
import { sessionStore } from "../store/sessionStore";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { pastSession } from "../test/past";
import { applyEvents, appState, resetStores, sessionInfo } from "../test/stores";
import { withLayout } from "../test/layout";
import { AgentTree } from "./AgentTree";

// The tree is virtualised: a pane 700 px tall shows every row of these small trees.
withLayout({ offsetHeight: 700, offsetWidth: 320, clientHeight: 700 });
import { DelegateDialog } from "./DelegateDialog";
import { MessageDialog } from "./MessageDialog";
import { ToolCard } from "./output/ToolCard";

const sendCommand = vi.fn();
const describeTask = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: {
    sendCommand: (_session: unknown, command: unknown) => sendCommand(command),
    describeTask: (...a: unknown[]) => describeTask(...a),
  },
}));

const types = [
  { name: "tester", description: "Writes and runs tests", model: "claude-haiku", provider: null, source: "project", file: "/w/.claude/agents/tester.md", acp: null, user: false },
  { name: "general-purpose", description: "dup", model: null, provider: null, source: "built-in", file: null, acp: null, user: false },
];

/** The session's event maker, so later events follow on in sequence. */
let events = eventMaker();

beforeEach(() => {
  sendCommand.mockReset();
  describeTask.mockReset();
  describeTask.mockImplementation((prompt: string) => Promise.resolve(`Label for ${prompt}`));
  resetStores({ session: sessionInfo({ agent_types: types }), dialog: { kind: "delegate", parentId: "agent-a" } });
  const e = (events = eventMaker());
  applyEvents([e.started("agent-main", null, "main"), e.started("agent-a", "agent-main", "Write the tests"), e.status("agent-a", "running")]);
});

const input = (id: string) => screen.getByTestId(id) as HTMLInputElement;

describe("DelegateDialog", () => {
  it("shows the parent and offers general-purpose plus the session's agent types", () => {
    render(<DelegateDialog parentId="agent-a" />);
    const form = screen.getByTestId("delegate-form");
    expect(form.textContent).toContain("Write the tests");
    expect(form.textContent).toContain("agent-a");
    const options = Array.from((screen.getByTestId("delegate-type") as HTMLSelectElement).options).map((o) => o.value);
    expect(options).toEqual(["general-purpose", "tester"]);
    fireEvent.change(screen.getByTestId("delegate-type"), { target: { value: "tester" } });
    expect(form.textContent).toContain("Writes and runs tests");
  });

  it("delegates with Ctrl+Enter in the task box, as the prompt box sends", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "delegated", agent_id: "agent-new" } });
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(input("delegate-prompt"), { target: { value: "Count the text files" } });
    fireEvent.keyDown(input("delegate-prompt"), { key: "Enter" });
    expect(sendCommand).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.keyDown(input("delegate-prompt"), { key: "Enter", ctrlKey: true });
    });
    expect(sendCommand).toHaveBeenCalledWith(expect.objectContaining({ type: "delegate", prompt: "Count the text files" }));
    expect(uiStore.get().selected).toBe("agent-new");
  });

  it("sends the delegate command built from the form and selects the new agent", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "delegated", agent_id: "agent-new" } });
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(screen.getByTestId("delegate-type"), { target: { value: "tester" } });
    fireEvent.change(input("delegate-prompt"), { target: { value: "  Count the text files  " } });
    fireEvent.change(input("delegate-description"), { target: { value: "Count text files" } });
    fireEvent.change(input("delegate-model"), { target: { value: "claude-opus" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("delegate-submit"));
    });
    expect(sendCommand).toHaveBeenCalledWith({
      type: "delegate",
      parent_id: "agent-a",
      prompt: "Count the text files",
      description: "Count text files",
      subagent_type: "tester",
      model: "claude-opus",
      max_turns: null,
      sandbox: null,
      isolation: null,
      budget: null,
    });
    expect(uiStore.get().dialog).toBeNull();
    expect(uiStore.get().selected).toBe("agent-new");
    // The task shows once the backend's user_message for the new agent arrives, not before.
    expect(sessionStore.get().agents["agent-new"]).toBeUndefined();
  });

  it("sends general-purpose as no type and empty optional fields as null", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(input("delegate-prompt"), { target: { value: "Do it" } });
    await act(async () => {
      fireEvent.submit(screen.getByTestId("delegate-form"));
    });
    expect(sendCommand).toHaveBeenCalledWith({
      type: "delegate",
      parent_id: "agent-a",
      prompt: "Do it",
      description: null,
      subagent_type: null,
      model: null,
      max_turns: null,
      sandbox: null,
      isolation: null,
      budget: null,
    });
  });

  it("requires a task and shows the backend's error inline", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    await act(async () => {
      fireEvent.click(screen.getByTestId("delegate-submit"));
    });
    expect(sendCommand).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toContain("Write the task");

    sendCommand.mockResolvedValue({ status: "error", error: { kind: "session", message: "the subagent limit (10) is reached" } });
    fireEvent.change(input("delegate-prompt"), { target: { value: "More work" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("delegate-submit"));
    });
    expect(screen.getByRole("alert").textContent).toContain("the subagent limit (10) is reached");
    expect(uiStore.get().dialog).toEqual({ kind: "delegate", parentId: "agent-a" });
  });
});

const tools: ToolInfo[] = [
  { name: "Read", class: "read_only", default: "allow" },
  { name: "Write", class: "mutating", default: "ask" },
  { name: "Bash", class: "mutating", default: "ask" },
];

/** The delegate command the form sent last. */
const sent = () => sendCommand.mock.calls.at(-1)?.[0] as Extract<Command, { type: "delegate" }>;

async function submit() {
  await act(async () => {
    fireEvent.click(screen.getByTestId("delegate-submit"));
  });
}

describe("DelegateDialog: typing the task", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("puts the cursor in the task, not the agent type", () => {
    render(<DelegateDialog parentId="agent-a" />);
    expect(document.activeElement).toBe(screen.getByTestId("delegate-prompt"));
  });

  it("suggests the backend's label as the description once typing pauses, and sends none when left empty", async () => {
    vi.useFakeTimers();
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    render(<DelegateDialog parentId="agent-a" />);
    const description = input("delegate-description");
    const placeholder = description.placeholder;
    fireEvent.change(input("delegate-prompt"), { target: { value: "Count" } });
    fireEvent.change(input("delegate-prompt"), { target: { value: "Count the files " } });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(150);
    });
    expect(describeTask).not.toHaveBeenCalled();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(100);
    });
    // Once, for the prompt as it was when typing paused (as it is sent: trimmed).
    expect(describeTask.mock.calls).toEqual([["Count the files"]]);
    expect(description.placeholder).toBe("Label for Count the files");
    expect(description.value).toBe("");
    // Emptied: nothing to suggest.
    fireEvent.change(input("delegate-prompt"), { target: { value: " " } });
    expect(description.placeholder).toBe(placeholder);
    fireEvent.change(input("delegate-prompt"), { target: { value: "Count the files" } });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(250);
    });
    await submit();
    expect(sent().description).toBeNull();
  });

  it("has no background checkbox: the only checkboxes are the sandbox's network and the tools", () => {
    resetStores({ ...uiStore.get(), app: appState({ tools }) });
    render(<DelegateDialog parentId="agent-a" />);
    const form = screen.getByTestId("delegate-form");
    expect(form.textContent).not.toContain("background");
    const boxes = Array.from(form.querySelectorAll<HTMLInputElement>('input[type="checkbox"]'));
    expect(boxes.map((b) => b.dataset.testid)).toEqual([
      "delegate-sandbox-network",
      "delegate-tool",
      "delegate-tool",
      "delegate-tool",
    ]);
  });
});

describe("DelegateDialog: Limit this agent", () => {
  beforeEach(() => {
    uiStore.set((s) => ({ ...s, app: appState({ tools }) }));
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
  });

  it("offers every tool ticked and the modes in words; unchanged, it sends neither tools nor a mode", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    const boxes = screen.getAllByTestId("delegate-tool") as HTMLInputElement[];
    expect(boxes.map((b) => [b.dataset.tool, b.checked])).toEqual([
      ["Read", true],
      ["Write", true],
      ["Bash", true],
    ]);
    expect(screen.getByTestId("delegate-form").textContent).toContain("MCP tools follow the agent type");
    const mode = screen.getByTestId("delegate-mode") as HTMLSelectElement;
    expect([...mode.options].map((o) => o.value)).toEqual(["default", "plan", "dontAsk"]);
    expect(mode.value).toBe("default");
    for (const o of mode.options) expect(o.textContent).not.toBe(o.value);
    fireEvent.change(input("delegate-prompt"), { target: { value: "Do it" } });
    await submit();
    expect("tools" in sent()).toBe(false);
    expect("permission_mode" in sent()).toBe(false);
  });

  it("sends the ticked tools once one is unticked, and a stricter mode when chosen", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.click(screen.getAllByTestId("delegate-tool")[2]!);
    fireEvent.change(screen.getByTestId("delegate-mode"), { target: { value: "plan" } });
    fireEvent.change(input("delegate-prompt"), { target: { value: "Look around" } });
    await submit();
    expect(sent()).toMatchObject({ type: "delegate", parent_id: "agent-a", tools: ["Read", "Write"], permission_mode: "plan" });
  });

  it("sends no tools again once every tool is ticked again", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    const read = screen.getAllByTestId("delegate-tool")[0]!;
    fireEvent.click(read);
    fireEvent.click(read);
    fireEvent.change(screen.getByTestId("delegate-mode"), { target: { value: "dontAsk" } });
    fireEvent.change(input("delegate-prompt"), { target: { value: "Go" } });
    await submit();
    expect("tools" in sent()).toBe(false);
    expect(sent().permission_mode).toBe("dontAsk");
  });
});

describe("DelegateDialog: Sandbox", () => {
  beforeEach(() => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
  });

  it("starts on the parent's sandbox, offering Rust's modes, and sends null for it", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    const mode = screen.getByTestId("delegate-sandbox-mode") as HTMLSelectElement;
    expect([...mode.options].map((o) => o.value)).toEqual(["parent", ...SANDBOX_MODES]);
    expect(mode.value).toBe("parent");
    expect(mode.selectedOptions[0]?.textContent).toBe("Same as parent");
    expect(input("delegate-sandbox-network").disabled).toBe(true);
    fireEvent.change(input("delegate-prompt"), { target: { value: "Do it" } });
    await submit();
    expect(sent().sandbox).toBeNull();
  });

  it("sends the chosen mode and network, which may loosen the parent's", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(screen.getByTestId("delegate-sandbox-mode"), { target: { value: "strict" } });
    const network = input("delegate-sandbox-network");
    expect(network.disabled).toBe(false);
    fireEvent.click(network);
    fireEvent.change(input("delegate-prompt"), { target: { value: "Fetch the docs" } });
    await submit();
    expect(sent().sandbox).toEqual({ mode: "strict", network: true, write: null });
  });

  it("warns that an unsandboxed child runs as you, and sends no network for it", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(screen.getByTestId("delegate-sandbox-mode"), { target: { value: "off" } });
    expect(input("delegate-sandbox-network").disabled).toBe(true);
    expect(screen.getByTestId("delegate-form").textContent).toContain("Its commands run as you, not sandboxed.");
    fireEvent.change(input("delegate-prompt"), { target: { value: "Build it" } });
    await submit();
    expect(sent().sandbox).toEqual({ mode: "off", network: null, write: null });
  });
});

/** A stored session under review: it takes no delegations. */
const pastBook = () => bookFromPast(pastSession([], []));

describe("opening Delegate…", () => {
  function taskCall() {
    applyEvents([
      events.make("agent-a", {
        type: "tool_call",
        call_id: "call-task",
        tool_name: "Task",
        tool_args: { description: "Count files", prompt: "Count the text files", subagent_type: "tester" },
      }),
    ]);
    const item = sessionStore.get().agents["agent-a"]?.items.find((i) => i.kind === "tool");
    if (item?.kind !== "tool") throw new Error("no tool item");
    return item;
  }

  it("from a Task card: under the same parent, with its prompt and type filled in", () => {
    uiStore.set((s) => ({ ...s, dialog: null }));
    const item = taskCall();
    const card = render(<ToolCard item={item} agentId="agent-a" />);
    // Folded cards show their body once opened.
    if (!screen.queryByTestId("task-delegate")) fireEvent.click(card.container.querySelector(".tool-head")!);
    fireEvent.click(screen.getByTestId("task-delegate"));
    expect(uiStore.get().dialog).toEqual({ kind: "delegate", parentId: "agent-a", prompt: "Count the text files", subagentType: "tester" });
    render(<DelegateDialog parentId="agent-a" />);
    expect(input("delegate-prompt").value).toBe("Count the text files");
    expect((screen.getByTestId("delegate-type") as HTMLSelectElement).value).toBe("tester");
  });

  it("offers no Delegate similar… on a Task card of a past session under review", () => {
    uiStore.set((s) => ({ ...s, dialog: null }));
    const item = taskCall();
    bookStore.set({ review: pastBook(), live: null });
    const card = render(<ToolCard item={item} agentId="agent-a" />);
    fireEvent.click(card.container.querySelector(".tool-head")!);
    expect(screen.queryByTestId("task-delegate")).toBeNull();
  });

  it("with Shift+D under the selected agent, never while typing", () => {
    uiStore.set((s) => ({ ...s, dialog: null, selected: "agent-a" }));
    render(
      <>
        <AgentTree />
        <textarea data-testid="elsewhere" />
        <div data-testid="approval" tabIndex={0}>
          <span data-testid="inside-card">a card</span>
        </div>
      </>,
    );
    // Its tooltip (lib/tooltip's, by aria-describedby) names the shortcut, as does aria-keyshortcuts.
    const delegateButton = screen.getAllByTestId("node-delegate")[0];
    expect(document.getElementById(delegateButton?.getAttribute("aria-describedby") ?? "")?.textContent).toContain("Shift+D");
    expect(delegateButton?.getAttribute("aria-keyshortcuts")).toBe("Shift+D");

    const field = screen.getByTestId("elsewhere");
    field.focus();
    fireEvent.keyDown(field, { key: "D", shiftKey: true });
    expect(uiStore.get().dialog).toBeNull();

    fireEvent.keyDown(document.body, { key: "d", shiftKey: false });
    fireEvent.keyDown(document.body, { key: "D", shiftKey: true, ctrlKey: true });
    expect(uiStore.get().dialog).toBeNull();

    // On an approval card the keys are the card's.
    fireEvent.keyDown(screen.getByTestId("inside-card"), { key: "D", shiftKey: true });
    expect(uiStore.get().dialog).toBeNull();

    fireEvent.keyDown(document.body, { key: "D", shiftKey: true });
    expect(uiStore.get().dialog).toEqual({ kind: "delegate", parentId: "agent-a" });

    // Not over another dialog.
    act(() => uiStore.set((s) => ({ ...s, dialog: { kind: "message", agentId: "agent-main" }, selected: "agent-main" })));
    fireEvent.keyDown(document.body, { key: "D", shiftKey: true });
    expect(uiStore.get().dialog).toEqual({ kind: "message", agentId: "agent-main" });
  });
});

describe("MessageDialog", () => {
  it("sends a steering message to that agent (its transcript shows it from the backend's user_message)", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    uiStore.set((s) => ({ ...s, dialog: { kind: "message", agentId: "agent-a" } }));
    render(<MessageDialog agentId="agent-a" />);
    fireEvent.change(screen.getByTestId("message-text"), { target: { value: "Use vitest" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("message-submit"));
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "send_message", agent_id: "agent-a", text: "Use vitest" });
    expect(uiStore.get().dialog).toBeNull();
    expect(sessionStore.get().agents["agent-a"]?.items).toEqual([]);
  });
});

describe("DelegateDialog: Isolation", () => {
  it("offers Rust's isolations in words, shared first, and sends null for the shared tree", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    render(<DelegateDialog parentId="agent-a" />);
    const select = screen.getByTestId("delegate-isolation") as HTMLSelectElement;
    expect(Array.from(select.options).map((o) => [o.value, o.textContent])).toEqual([
      ["shared", "Shared tree"],
      ["worktree", "Own git worktree (changes come back on a branch to merge)"],
    ]);
    expect(select.value).toBe("shared");
    fireEvent.change(input("delegate-prompt"), { target: { value: "Try it" } });
    await submit();
    expect(sent().isolation).toBeNull();
  });

  it("sends worktree when the person picks its own git worktree", async () => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(screen.getByTestId("delegate-isolation"), { target: { value: "worktree" } });
    fireEvent.change(input("delegate-prompt"), { target: { value: "Try it apart" } });
    await submit();
    expect(sent().isolation).toBe("worktree");
  });
});

describe("DelegateDialog: a budget of its own", () => {
  beforeEach(() => {
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "delegated", agent_id: "agent-new" } });
  });

  it("sends the limits typed, wall time in seconds, and no subagents limit", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    expect(screen.getByTestId("delegate-budget-summary").textContent).toBe("as its type or Settings say");
    expect(screen.queryByTestId("delegate-budget-subagents")).toBeNull();
    fireEvent.change(input("delegate-prompt"), { target: { value: "Count files" } });
    fireEvent.change(input("delegate-budget-tokens"), { target: { value: "5,000" } });
    fireEvent.change(input("delegate-budget-cost"), { target: { value: "1.25" } });
    fireEvent.change(input("delegate-budget-duration"), { target: { value: "2" } });
    expect(screen.getByTestId("delegate-budget-summary").textContent).toBe("5,000 tokens · $1.25 · 2 min 00 s");
    await submit();
    expect(sent().budget).toEqual({ max_tokens: 5000, max_cost_usd: 1.25, max_duration_seconds: 120, max_subagents: null });
  });

  it("holds back a limit that is not a positive number, and sends none when the fields are empty again", async () => {
    render(<DelegateDialog parentId="agent-a" />);
    fireEvent.change(input("delegate-prompt"), { target: { value: "Count files" } });
    fireEvent.change(input("delegate-budget-cost"), { target: { value: "0" } });
    await submit();
    expect(sendCommand).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toBe("Dollars: a number above 0, or empty");
    expect(screen.getByTestId("delegate-budget-cost-problem")).toBeTruthy();
    fireEvent.change(input("delegate-budget-cost"), { target: { value: "" } });
    await submit();
    expect(sent().budget).toBeNull();
  });
});
