/**
 * A tool call as the model writes it: its card shows from the first piece of
 * its input (`tool_input_chunk`), open, marked "writing…", its arguments
 * growing; the `tool_call` completes that same card; a response that broke
 * off leaves it "incomplete · not run".
 */
import { render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../bindings";
import { eventMaker, worktreeUpdate } from "../../test/events";
import { withLayout } from "../../test/layout";
import { arriveFrame, resetStores, sessionInfo } from "../../test/stores";
import { select } from "../../store/ui";
import { OutputView } from "./OutputView";

vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: {},
}));

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

let e = eventMaker();

const arrive = (...events: AgentEvent[]) => arriveFrame(events);
const piece = (callId: string, toolName: string, content: string) =>
  e.make("agent-main", { type: "tool_input_chunk", call_id: callId, tool_name: toolName, content });

const cards = () => screen.getByTestId("output").querySelectorAll<HTMLElement>(".tool");
function card(): HTMLElement {
  const all = cards();
  expect(all).toHaveLength(1);
  return all[0]!;
}
const writing = () => within(card()).queryByTestId("tool-writing");
const head = () => card().querySelector(".tool-head") as HTMLElement;
/** The Task prompt the card shows (its arguments' text block), or null while they are folded away. */
const shownPrompt = () => card().querySelector(".tool-body pre.block")?.textContent ?? null;

/** A Task call's input, as the model writes it, in three pieces. */
const TASK_PIECES = [
  '{"description": "Write the greeting", "prompt": "Write a gree',
  "ting file called hello.txt",
  '\\nthen stop", "subagent_type": "writer"}',
];
const TASK_ARGS = { description: "Write the greeting", prompt: "Write a greeting file called hello.txt\nthen stop", subagent_type: "writer" };

beforeEach(() => {
  e = eventMaker();
  resetStores({ session: sessionInfo() });
  arrive(
    e.started("agent-main", null, "main"),
    e.make("agent-main", { type: "user_message", content: "Greet", from: "person" }),
    e.status("agent-main", "running"),
    e.make("agent-main", { type: "response", content: "Delegating the greeting" }),
  );
});

describe("a tool call as the model writes it", () => {
  it("shows from the first piece, open, its Task prompt growing, and the tool_call completes that card", () => {
    render(<OutputView />);
    expect(cards()).toHaveLength(0);

    arrive(piece("t1", "Task", TASK_PIECES[0]!));
    const first = card();
    expect(writing()?.textContent).toBe("writing…");
    expect(head().getAttribute("aria-expanded")).toBe("true");
    expect(head().textContent).toContain("Write the greeting");
    expect(shownPrompt()).toBe("Write a gree");

    arrive(piece("t1", "Task", TASK_PIECES[1]!));
    expect(card()).toBe(first);
    expect(writing()).not.toBeNull();
    expect(shownPrompt()).toBe("Write a greeting file called hello.txt");

    arrive(piece("t1", "Task", TASK_PIECES[2]!));
    expect(shownPrompt()).toBe("Write a greeting file called hello.txt\nthen stop");
    expect(card().querySelector(".tool-body .badge")?.textContent).toBe("writer");

    // The call itself: the same card, complete; no second one.
    arrive(e.make("agent-main", { type: "tool_call", call_id: "t1", tool_name: "Task", tool_args: TASK_ARGS }));
    expect(card()).toBe(first);
    expect(writing()).toBeNull();
    expect(card().textContent).not.toContain("incomplete");
    expect(head().textContent).toContain("Write the greeting");
    expect(head().querySelector(".status-icon.running")).not.toBeNull();
    // A Task call is not read-only: it stays open, its prompt whole (the call's own arguments now).
    expect(shownPrompt()).toBe(TASK_ARGS.prompt);
  });

  it("grows a Write's content as lines of its diff", () => {
    render(<OutputView />);
    arrive(piece("w1", "Write", '{"file_path": "hello.txt", "content": "line one'));
    const added = () => [...card().querySelectorAll(".diff-line.add")].map((l) => l.textContent);
    expect(writing()).not.toBeNull();
    expect(card().querySelector(".file-path")?.textContent).toContain("hello.txt");
    expect(added()).toHaveLength(1);
    expect(added()[0]).toContain("line one");
    arrive(piece("w1", "Write", "\\nline two"));
    expect(added()).toHaveLength(2);
    expect(added()[1]).toContain("line two");
  });

  it("says a call whose input broke off with the response is incomplete and was not run", () => {
    render(<OutputView />);
    arrive(piece("t1", "Task", TASK_PIECES[0]!), piece("t1", "Task", TASK_PIECES[1]!));
    const first = card();
    expect(writing()).not.toBeNull();
    arrive(
      e.make("agent-main", {
        type: "agent_finished",
        status: "failed",
        result: "",
        error: "the stream broke off",
        turns: 1,
        duration_ms: 10,
        files_modified: [],
      }),
    );
    expect(card()).toBe(first);
    expect(writing()).toBeNull();
    expect(head().textContent).toContain("incomplete · not run");
    // What it had written stays to read (a Task call is not read-only: its card stays open).
    expect(head().getAttribute("aria-expanded")).toBe("true");
    expect(shownPrompt()).toBe("Write a greeting file called hello.txt");
  });
});

describe("the files a call names", () => {
  const call = (agent: string, id: string, tool: string, args: Record<string, string>) =>
    e.make(agent, { type: "tool_call", call_id: id, tool_name: tool, tool_args: args });
  const headOf = (c: HTMLElement) => c.querySelector(".tool-summary") as HTMLElement;

  it("are named relative to the workspace, whole on hover; one outside it keeps its whole path", () => {
    render(<OutputView />);
    arrive(
      call("agent-main", "w1", "Write", { file_path: "/work/demo/src/hello.txt", content: "hi\n" }),
      call("agent-main", "r1", "Read", { file_path: "/etc/hosts" }),
      call("agent-main", "g1", "Grep", { pattern: "TODO", path: "/work/demo/src" }),
    );
    const [write, read, grep] = [...cards()];
    expect(headOf(write!).textContent).toBe("src/hello.txt");
    expect(headOf(write!).title).toBe("/work/demo/src/hello.txt");
    const file = write!.querySelector(".tool-body .file-path") as HTMLElement;
    expect(file.textContent).toContain("src/hello.txt");
    expect(file.textContent).not.toContain("/work/demo");
    expect(file.title).toBe("/work/demo/src/hello.txt");
    expect(headOf(read!).textContent).toBe("/etc/hosts");
    expect(headOf(read!).title).toBe("");
    // Grep's summary is its pattern, as before.
    expect(headOf(grep!).textContent).toBe("TODO");
  });

  it("are named relative to the worktree an agent works in, its own or its parent's", () => {
    const wt = worktreeUpdate("created", { path: "/data/worktrees/agent-iso" });
    arrive(
      e.started("agent-iso", "agent-main", "Isolated"),
      e.make("agent-iso", { type: "worktree", ...wt }),
      e.started("agent-kid", "agent-iso", "Its child", { depth: 2 }),
      call("agent-kid", "e1", "Edit", { file_path: "/data/worktrees/agent-iso/lib.rs", old_string: "a", new_string: "b" }),
      call("agent-kid", "e2", "Edit", { file_path: "/work/demo/lib.rs", old_string: "a", new_string: "b" }),
    );
    select("agent-kid");
    render(<OutputView />);
    const [inTree, inWorkspace] = [...cards()];
    expect(headOf(inTree!).textContent).toBe("lib.rs");
    // The workspace is not this agent's tree: that file is named whole.
    expect(headOf(inWorkspace!).textContent).toBe("/work/demo/lib.rs");
  });
});
