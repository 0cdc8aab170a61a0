import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { select } from "../../store/ui";
import { eventMaker } from "../../test/events";
import { appState, applyEvents, applyUsage, resetStores, sessionInfo } from "../../test/stores";
import { agentUsage, figures, standing, usageUpdate } from "../../test/usage";
import { OutputView } from "./OutputView";
import { ACP_PROVIDER } from "../../bindings";
import { ROW_HEIGHT, withLayout } from "../../test/layout";

vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: {},
}));

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

const e = eventMaker();

beforeEach(() => {
  resetStores({ session: sessionInfo() });
  applyEvents([
    e.started("agent-main", null, "main"),
    e.make("agent-main", { type: "thoughts", content: "main is thinking" }),
    e.make("agent-main", { type: "response_chunk", content: "Splitting **the work**" }),
    e.make("agent-main", {
      type: "tool_call",
      call_id: "t1",
      tool_name: "Task",
      tool_args: { prompt: "Write a greeting file", description: "Write the greeting" },
    }),
    e.started("agent-g", "agent-main", "Write the greeting", { parent_call_id: "t1" }),
    e.make("agent-g", { type: "thoughts", content: "sub thinking" }),
    e.make("agent-g", { type: "tool_call", call_id: "b1", tool_name: "Bash", tool_args: { command: "ls -1" } }),
    e.make("agent-g", { type: "tool_output_chunk", call_id: "b1", content: "hello.txt\n" }),
    e.make("agent-g", {
      type: "tool_call",
      call_id: "e1",
      tool_name: "Edit",
      tool_args: { file_path: "hello.txt", old_string: "hi", new_string: "hello" },
    }),
    e.approval("agent-g", "r1", "e1", ["main", "Write the greeting"]),
  ]);
});

describe("OutputView", () => {
  it("streams the main agent's response as Markdown and links a Task call to its subagent", () => {
    render(<OutputView />);
    const out = screen.getByTestId("output");
    expect(out.querySelector("strong")?.textContent).toBe("the work");
    expect(out.textContent).toContain("main is thinking");
    fireEvent.click(screen.getByText(/Open subagent agent-g/));
    expect(screen.getByTestId("output").textContent).toContain("Write a greeting file");
  });

  it("says on a Task's card when an external ACP agent runs the child, and where its process runs", () => {
    const m = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([
      m.started("agent-main", null, "main"),
      m.make("agent-main", { type: "tool_call", call_id: "t9", tool_name: "Task", tool_args: { prompt: "edit", description: "Claude edits" } }),
      m.started("agent-cc", "agent-main", "Claude edits", {
        parent_call_id: "t9",
        provider: ACP_PROVIDER,
        model: "npx @zed-industries/claude-agent-acp",
        external: { command: "npx @zed-industries/claude-agent-acp", sandbox: null },
      }),
    ]);
    render(<OutputView />);
    const line = screen.getByTestId("task-external");
    expect(line.textContent).toContain("npx @zed-industries/claude-agent-acp");
    expect(line.textContent).toContain("its process outside Arbor's sandbox");
  });

  it("says when an external agent has reported no usage (budgets cannot count its tokens), until it reports some", () => {
    const m = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([
      m.started("agent-main", null, "main"),
      m.started("agent-cc", "agent-main", "Claude edits", {
        provider: ACP_PROVIDER,
        model: "npx @zed-industries/claude-agent-acp",
        external: { command: "npx @zed-industries/claude-agent-acp", sandbox: null },
      }),
    ]);
    act(() => select("agent-cc"));
    render(<OutputView />);
    expect(screen.getByTestId("header-no-usage").title).toContain("not counted toward budgets");
    act(() => applyUsage(usageUpdate([agentUsage("agent-cc", figures(800, 0.01), figures(800, 0.01))], figures(800, 0.01))));
    expect(screen.queryByTestId("header-no-usage")).toBeNull();
    // Arbor's own agents always report theirs: no such note.
    act(() => select("agent-main"));
    expect(screen.queryByTestId("header-no-usage")).toBeNull();
  });

  it("shows a subagent's task, tool calls, streamed Bash output and an Edit diff awaiting approval", () => {
    act(() => select("agent-g"));
    render(<OutputView />);
    const out = screen.getByTestId("output");
    expect(out.textContent).toContain("Write a greeting file");
    expect(out.textContent).toContain("ls -1");
    expect(out.textContent).toContain("hello.txt");
    expect(out.textContent).toContain("awaiting approval");
    expect(out.querySelector(".diff-line.del")?.textContent).toContain("hi");
    expect(out.querySelector(".diff-line.add")?.textContent).toContain("hello");
    // Subagents' thinking is hidden until asked for.
    expect(out.textContent).not.toContain("sub thinking");
    fireEvent.click(screen.getByLabelText("Show thinking"));
    expect(screen.getByTestId("output").textContent).toContain("sub thinking");
  });

  it("heads an agent's output with its own tokens and cost as Rust sent them, none before any came", () => {
    render(<OutputView />);
    const sub = () => screen.getByTestId("output").querySelector(".output-header .sub")?.textContent ?? "";
    expect(sub()).not.toContain("tokens");
    act(() => applyUsage(usageUpdate([agentUsage("agent-main", figures(1234, 0.5), figures(5000, 2))], figures(5000, 2))));
    expect(sub()).toContain(" · 1.2k tokens · $0.50");
    expect(sub()).not.toContain("5k");
    // What it used comes before the model and the id: a narrow window cuts those first.
    expect(sub().indexOf("tokens")).toBeLessThan(sub().indexOf("agent-main"));
  });

  it("shows MCP status rows and an MCP tool as server and tool, with JSON args and collapsible output", () => {
    const m = eventMaker("s-1");
    // A read-only tool starts folded; one whose class the backend did not list counts as changing things.
    const tools = [{ name: "mcp__everything__echo", class: "read_only" as const, default: "allow" as const }];
    resetStores({ session: sessionInfo(), app: appState({ tools }) });
    applyEvents([
      m.started("agent-main", null, "main"),
      m.mcp("agent-main", "everything", "connected", 4242),
      m.make("agent-main", {
        type: "tool_call",
        call_id: "m1",
        tool_name: "mcp__everything__echo",
        tool_args: { message: "hello mcp" },
        mcp: { server: "everything", tool: "echo" },
      }),
      m.make("agent-main", { type: "tool_output", call_id: "m1", content: "Echo: hello mcp", is_error: false }),
      m.make("agent-main", {
        type: "tool_call",
        call_id: "m2",
        tool_name: "mcp__everything__add",
        tool_args: { a: 1 },
        mcp: { server: "everything", tool: "add" },
      }),
      m.make("agent-main", { type: "tool_output", call_id: "m2", content: "Sum: 3", is_error: false }),
      m.mcp("agent-main", "broken", "failed", null, "did not finish starting within 30 s"),
      m.mcp("agent-main", "everything", "closed"),
    ]);
    render(<OutputView />);
    const status = screen.getAllByTestId("mcp-status");
    expect(status.map((r) => [r.dataset.server, r.dataset.state])).toEqual([
      ["everything", "closed"],
      ["broken", "failed"],
    ]);
    expect(status[0]?.textContent).toBe("MCP everything started (pid 4242) · stopped");
    expect(status[0]?.className).not.toContain("failed");
    expect(status[1]?.className).toContain("failed");
    expect(status[1]?.textContent).toContain("broken failed: did not finish starting within 30 s");
    const out = screen.getByTestId("output");
    const [head, unknownHead] = out.querySelectorAll(".tool-head");
    expect(unknownHead?.getAttribute("aria-expanded")).toBe("true");
    expect(out.textContent).toContain("Sum: 3");
    expect(head?.querySelector(".mcp-tag")?.textContent).toBe("MCP");
    expect(head?.querySelector(".tool-name")?.textContent).toBe("everything · echo");
    expect(head?.querySelector(".tool-summary")?.textContent).toBe("hello mcp");
    expect(out.textContent).not.toContain("Echo: hello mcp");
    fireEvent.click(head as HTMLElement);
    expect(out.textContent).toContain('"message": "hello mcp"');
    expect(out.textContent).toContain("Echo: hello mcp");
  });

  it("shows a tool call that names no MCP server by its name as it is, even one that looks like an MCP name", () => {
    const m = eventMaker("s-1");
    resetStores({ session: sessionInfo(), app: appState() });
    applyEvents([
      m.started("agent-main", null, "main"),
      // A transcript stored before tool calls named their MCP server.
      m.make("agent-main", { type: "tool_call", call_id: "o1", tool_name: "mcp__a__b", tool_args: { message: "old" } }),
    ]);
    render(<OutputView />);
    const head = screen.getByTestId("output").querySelector(".tool-head");
    expect(head?.querySelector(".mcp-tag")).toBeNull();
    expect(head?.querySelector(".tool-name")?.textContent).toBe("mcp__a__b");
    expect(screen.queryByTestId("mcp-tool-name")).toBeNull();
  });

  it("marks a call whose agent was stopped before the answer as withdrawn, and a cut-off result as incomplete", () => {
    const m = eventMaker("s-1");
    resetStores({ session: sessionInfo() });
    applyEvents([
      m.started("agent-main", null, "main"),
      m.make("agent-main", { type: "tool_call", call_id: "w1", tool_name: "Bash", tool_args: { command: "rm -rf build" } }),
      m.approval("agent-main", "r-w", "w1", ["main"], "Bash"),
      m.resolved("agent-main", "r-w", "withdrawn"),
      m.make("agent-main", { type: "tool_output", call_id: "w1", content: "not run", is_error: true }),
      m.make("agent-main", { type: "response", content: "The docs say" }),
      m.make("agent-main", {
        type: "agent_finished",
        status: "truncated",
        result: "The docs say",
        error: "the answer was cut off at the output limit (4096 tokens)",
        turns: 1,
        duration_ms: 100,
        files_modified: [],
      }),
    ]);
    render(<OutputView />);
    const out = screen.getByTestId("output");
    expect(out.textContent).toContain("Withdrawn — the agent was stopped");
    expect(out.textContent).not.toContain("awaiting approval");
    const note = screen.getByTestId("cut-off-note");
    expect(note.textContent).toContain("incomplete");
    expect(note.textContent).toContain("4096 tokens");
    expect(out.querySelector(".result")?.className).toContain("limit");
    expect(out.querySelector(".result-head")?.textContent).toContain("cut off");
  });

  it("shows a budget warning as a line of its agent's output, and a result a budget stopped in the budget's colour", () => {
    const warned = standing({ max_tokens: 10_000 }, { tokens: 8000 }, 0.8, "tokens");
    const why = "the tokens budget of agent-main ran out: 10,000 of 10,000 tokens used";
    applyEvents([
      e.make("agent-main", { type: "budget_warning", kind: "tokens", standing: warned }),
      e.status("agent-main", "budget_exhausted"),
      e.make("agent-main", {
        type: "agent_finished",
        status: "budget_exhausted",
        result: "",
        error: why,
        turns: 1,
        duration_ms: 5,
        files_modified: [],
      }),
    ]);
    render(<OutputView />);
    const line = screen.getByTestId("budget-warning");
    expect(line.textContent).toBe("Budget 80% used: 8,000 of 10,000 tokens — its agents were told to wrap up");
    expect(line.dataset.kind).toBe("tokens");
    expect(line.querySelector("[role=meter]")?.getAttribute("aria-valuenow")).toBe("80");
    const result = screen.getByTestId("output").querySelector(".result");
    expect(result?.className).toContain("budget");
    expect(result?.querySelector(".budget-note")?.textContent).toBe(why);
    expect(result?.textContent).toContain("budget exhausted");
  });

  it("lays an output shown again out at the heights its rows measured, not at estimates", () => {
    act(() => select("agent-main"));
    render(<OutputView />);
    const inner = () => screen.getByTestId("output").querySelector<HTMLElement>(".output-inner");
    const rows = () => screen.getByTestId("output").querySelectorAll(".output-row").length;
    // Measured at ROW_HEIGHT each (the file's layout) while first shown.
    expect(inner()?.style.height).toBe(`${rows() * ROW_HEIGHT}px`);
    act(() => select("agent-g"));
    // Back, in a layout that would now measure 100 px: the first layout is the one it had.
    const saved = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "offsetHeight");
    Object.defineProperty(HTMLElement.prototype, "offsetHeight", { configurable: true, get: () => 100 });
    try {
      act(() => select("agent-main"));
      expect(inner()?.style.height).toBe(`${rows() * ROW_HEIGHT}px`);
    } finally {
      if (saved) Object.defineProperty(HTMLElement.prototype, "offsetHeight", saved);
    }
  });

  it("shows a compaction as a divider where it happened, its summary unfolded on a click, the output above kept", () => {
    applyEvents([
      e.make("agent-main", {
        type: "context_compacted",
        trigger: "overflow",
        before_tokens: 31_830,
        window_tokens: 30_000,
        after_tokens: 6_200,
        cleared_results: 12,
        summarized_messages: 20,
        summary: "SUMMARY: parts 1 to 12 were read.",
        usage: null,
      }),
      e.make("agent-main", { type: "response", content: "Reading on after it." }),
    ]);
    act(() => select("agent-main"));
    render(<OutputView />);
    const divider = screen.getByTestId("compaction");
    expect(divider.textContent).toContain("Context compacted");
    expect(divider.textContent).toContain("32k → 6.2k tokens (window 30k)");
    expect(divider.textContent).toContain("12 older results cleared · 20 messages summarized");
    expect(screen.queryByTestId("compaction-summary")).toBeNull();
    fireEvent.click(within(divider).getByRole("button"));
    expect(screen.getByTestId("compaction-summary").textContent).toContain("SUMMARY: parts 1 to 12 were read.");
    // The transcript before it is all there.
    expect(screen.getByTestId("output").textContent).toContain("main is thinking");
  });

  it("shows a call's hook runs on its card, a refusal marked, its file unfolded; the call says a hook decided; another hook is a line of its own", () => {
    applyEvents([
      e.make("agent-main", { type: "tool_call", call_id: "rm1", tool_name: "Bash", tool_args: { command: "rm -rf x" } }),
      e.make("agent-main", {
        type: "hook_ran",
        hook_event: "PreToolUse",
        source: "/home/me/proj/.claude/settings.json",
        origin: "workspace",
        matcher: "Bash",
        command: "./guard.sh",
        call_id: "rm1",
        exit_code: 2,
        duration_ms: 12,
        decision: "deny",
        message: "rm -rf is not allowed",
      }),
      e.make("agent-main", {
        type: "tool_output",
        call_id: "rm1",
        content: "This Bash call was refused by a PreToolUse hook; it was not run.",
        is_error: true,
        decided_by: { kind: "hook", hook_event: "PreToolUse", source: "/home/me/proj/.claude/settings.json" },
      }),
    ]);
    act(() => select("agent-main"));
    render(<OutputView />);
    const row = screen.getByTestId("hook-run");
    expect(row.closest("[data-testid=tool-hooks]")).not.toBeNull();
    expect(row.dataset.decision).toBe("deny");
    expect(row.className).toContain("refused");
    expect(row.textContent).toContain("PreToolUse hook");
    expect(row.textContent).toContain("./guard.sh");
    expect(row.textContent).toContain("refused the call");
    expect(row.textContent).toContain("rm -rf is not allowed");
    fireEvent.click(within(row).getByRole("button"));
    expect(row.textContent).toContain("…/.claude/settings.json");
    expect(row.textContent).toContain("the workspace's, trusted");
    expect(row.textContent).toContain("exit 2 · 12 ms");
    const marks = screen.getAllByTestId("decided-by").filter((m) => m.dataset.kind === "hook");
    expect(marks[0]?.textContent).toContain("refused by a PreToolUse hook");
    act(() =>
      applyEvents([
        e.make("agent-main", {
          type: "hook_ran",
          hook_event: "Stop",
          source: "/home/me/.claude/settings.json",
          origin: "user",
          matcher: null,
          command: "npm test",
          call_id: null,
          exit_code: 2,
          duration_ms: 900,
          decision: "block",
          message: "2 tests fail",
        }),
      ]),
    );
    const stop = screen.getAllByTestId("hook-run").find((r) => r.dataset.event === "Stop");
    expect(stop?.closest("[data-testid=tool-hooks]")).toBeNull();
    expect(stop?.textContent).toContain("blocked");
    expect(stop?.textContent).toContain("2 tests fail");
  });

  it("says on a Task card what the child's result added to its parent's context, once it came", () => {
    act(() => select("agent-main"));
    render(<OutputView />);
    expect(screen.queryByTestId("task-context")).toBeNull();
    act(() =>
      applyEvents([e.make("agent-main", { type: "tool_output", call_id: "t1", content: "x".repeat(4_001), is_error: false, decided_by: null })]),
    );
    // Rust's estimate: CHARS_PER_TOKEN characters a token, rounded up.
    expect(screen.getByTestId("task-context").textContent).toBe("+1.0k tok into context");
  });

  it("invites a prompt before any session", () => {
    resetStores();
    render(<OutputView />);
    expect(screen.getByTestId("output").textContent).toContain("No session yet — write a prompt");
    expect(screen.getByTestId("try-demo")).toBeTruthy();
  });
});
