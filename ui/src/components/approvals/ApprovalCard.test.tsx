/** A card's preview of what the call would do (file diffs, commands, MCP calls, a stale file) and a spawn's form. */
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalPreview, Value } from "../../bindings";
import { askFor, filePreview, spawnPlan } from "../../test/approvals";
import { eventMaker } from "../../test/events";
import { applyEvents, resetStores, sessionInfo } from "../../test/stores";
import { ApprovalInbox } from "../ApprovalInbox";

const sendCommand = vi.fn();
vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: { sendCommand: (_session: unknown, command: unknown) => sendCommand(command) },
}));

let e = eventMaker();

beforeEach(() => {
  sendCommand.mockReset();
  sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
  e = eventMaker();
  resetStores({ session: sessionInfo() });
  applyEvents([e.started("agent-main", null, "main"), e.started("agent-u", "agent-main", "Update changelog")]);
});

function ask(preview: ApprovalPreview, tool = "Write", args: Value = { file_path: "CHANGELOG.md", content: "x" }) {
  applyEvents(askFor(e.make, "agent-u", "r1", { tool, args, preview, path: ["main", "Update changelog"] }));
  render(<ApprovalInbox />);
  return screen.getByTestId("approval");
}
const lines = (root: HTMLElement) =>
  within(root)
    .getAllByTestId("diff-line")
    .map((l) => `${l.dataset.kind}:${l.querySelector(".text")?.textContent ?? ""}`);

describe("a file change's preview", () => {
  it("shows an overwrite's lost lines as removed, beside what replaces them", () => {
    const card = ask(filePreview("CHANGELOG.md", "# Changes\n- old entry\n- older entry\n", "# Changes\n- new entry\n"));
    const diff = within(card).getByTestId("approval-diff");
    expect(lines(diff)).toEqual(["ctx:# Changes", "del:- old entry", "del:- older entry", "add:- new entry"]);
    expect(card.textContent).toContain("CHANGELOG.md");
    expect(within(card).queryByText("new file")).toBeNull();
  });

  it("shows an Edit's hunk with its context, not the whole file, and wraps long lines to the card", () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const after = before.replace("line 15\n", `line fifteen ${"and a very long tail ".repeat(10)}\n`);
    const card = ask(filePreview("src/a.rs", before, after), "Edit", { file_path: "src/a.rs", old_string: "line 15", new_string: "x" });
    const diff = within(card).getByTestId("approval-diff");
    const shown = lines(diff);
    // Three lines of context either side of the change, the rest folded.
    expect(shown[0]).toBe("ctx:line 12");
    expect(shown).toContain("del:line 15");
    expect(shown.at(-1)).toBe("ctx:line 18");
    expect(shown).toHaveLength(8);
    expect(within(diff).getAllByTestId("diff-fold").map((f) => f.textContent)).toEqual(["⋯ 11 unchanged lines", "⋯ 12 unchanged lines"]);
    expect(diff.className).toContain("wrap-lines");
  });

  it("shows a new file all added", () => {
    const card = ask(filePreview("NOTES.md", null, "one\ntwo\n"));
    expect(lines(within(card).getByTestId("approval-diff"))).toEqual(["add:one", "add:two"]);
    expect(within(card).getByText("new file")).toBeTruthy();
  });

  it("says why a side is missing, and shows the arguments when the call cannot apply", () => {
    const card = ask(
      filePreview("src/a.rs", "fn a() {}\n", null, "The text to replace is not in the file."),
      "Edit",
      { file_path: "src/a.rs", old_string: "fn b", new_string: "fn c" },
    );
    expect(within(card).getByTestId("preview-note").textContent).toContain("The text to replace is not in the file.");
    expect(within(card).getByText("cannot apply")).toBeTruthy();
    expect(within(card).queryByTestId("approval-diff")).toBeNull();
    expect(lines(card)).toEqual(["del:fn b", "add:fn c"]);
  });

  it("folds a long diff to its hunks until all lines are asked for", () => {
    const before = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const after = before.replace("line 50", "line fifty");
    const card = ask(filePreview("big.txt", before, after));
    const diff = within(card).getByTestId("approval-diff");
    expect(within(diff).getAllByTestId("diff-line")).toHaveLength(8);
    expect(within(diff).getAllByTestId("diff-fold").map((f) => f.textContent)).toEqual(["⋯ 47 unchanged lines", "⋯ 46 unchanged lines"]);
    fireEvent.click(within(diff).getByText("Show all 101 lines"));
    expect(within(diff).getAllByTestId("diff-line")).toHaveLength(101);
    expect(within(diff).queryByTestId("diff-fold")).toBeNull();
  });

  it("warns when the file changed on disk while the request waited", () => {
    const card = ask(filePreview("CHANGELOG.md", "a\n", "b\n"));
    expect(within(card).queryByTestId("approval-stale")).toBeNull();
    act(() => applyEvents([e.make("agent-u", { type: "approval_stale", request_id: "r1", message: "The file changed on disk." })]));
    expect(within(screen.getByTestId("approval")).getByTestId("approval-stale").textContent).toContain("The file changed on disk.");
  });
});

describe("other previews", () => {
  it("shows a command in full, where it runs and why", () => {
    const command = "cargo test --workspace -- --nocapture && echo done";
    const card = ask({ kind: "command", command, cwd: "/work/demo/crates", description: "Run the tests" }, "Bash", { command });
    const preview = within(card).getByTestId("preview-command");
    expect(preview.querySelector("pre")?.textContent).toBe(command);
    expect(preview.textContent).toContain("/work/demo/crates");
    expect(preview.textContent).toContain("Run the tests");
  });

  it("says a command runs sandboxed, and with what", () => {
    const command = "npm test";
    const sandbox = {
      state: "sandboxed" as const,
      mode: "workspace" as const,
      mechanism: "bubblewrap 0.8.0",
      writable: ["/work/demo", "/tmp"],
      network: false,
      hidden: ["/home/me/.ssh"],
    };
    const card = ask({ kind: "command", command, cwd: "/work/demo", description: null, sandbox }, "Bash", { command });
    const line = within(card).getByTestId("approval-sandbox");
    expect(line.dataset.state).toBe("sandboxed");
    expect(line.textContent).toBe("Sandboxed · workspace · network off · writes: /work/demo, /tmp");
    expect(line.className).toContain("held");
    expect(line.getAttribute("title")).toContain("bubblewrap 0.8.0");
    expect(line.getAttribute("title")).toContain("/home/me/.ssh");
  });

  it("warns when a command will not be sandboxed, never showing protection", () => {
    const command = "rm -rf build";
    const card = ask(
      { kind: "command", command, cwd: "/work/demo", description: null, sandbox: { state: "unavailable", reason: "bwrap is not installed" } },
      "Bash",
      { command },
    );
    const line = within(card).getByTestId("approval-sandbox");
    expect(line.dataset.state).toBe("unavailable");
    expect(line.textContent).toBe("NOT sandboxed: bwrap is not installed");
    expect(line.className).toContain("open");
    expect(line.textContent).not.toMatch(/^Sandboxed/);
  });

  it("says when the sandbox is off", () => {
    const command = "make";
    const card = ask({ kind: "command", command, cwd: "/w", description: null, sandbox: { state: "off" } }, "Bash", { command });
    const line = within(card).getByTestId("approval-sandbox");
    expect(line.dataset.state).toBe("off");
    expect(line.textContent).toBe("NOT sandboxed: the sandbox is off");
  });

  it("shows no sandbox line for an old transcript's command", () => {
    const command = "ls";
    const card = ask({ kind: "command", command, cwd: "/w", description: null, sandbox: null }, "Bash", { command });
    expect(within(card).queryByTestId("approval-sandbox")).toBeNull();
  });

  it("shows an MCP call's server, tool and arguments", () => {
    const card = ask({ kind: "mcp", server: "everything", tool: "echo" }, "mcp__everything__echo", { message: "hello there" });
    const preview = within(card).getByTestId("preview-mcp");
    expect(preview.textContent).toContain("everything");
    expect(preview.textContent).toContain("echo");
    expect(preview.textContent).toContain('"message": "hello there"');
  });
});

describe("a spawn's card", () => {
  const plan = spawnPlan({ subagent_type: "writer", model: "claude-big", tools: ["Read", "Write", "Bash"], max_turns: 20 });
  const spawn = () => ask({ kind: "spawn", ...plan }, "Task", { prompt: plan.prompt, description: plan.description });

  it("shows the subagent's type, model, provider, every tool, max turns and prompt", () => {
    const card = spawn();
    const form = within(card).getByTestId("spawn-card");
    expect(form.textContent).toContain("writer");
    expect(form.textContent).toContain("anthropic");
    expect((within(form).getByTestId("spawn-model") as HTMLInputElement).value).toBe("claude-big");
    expect((within(form).getByTestId("spawn-max-turns") as HTMLInputElement).value).toBe("20");
    expect((within(form).getByTestId("spawn-prompt") as HTMLTextAreaElement).value).toBe(plan.prompt);
    const tools = within(form).getAllByTestId("spawn-tool") as HTMLInputElement[];
    expect(tools.map((t) => [t.dataset.tool, t.checked])).toEqual([
      ["Read", true],
      ["Write", true],
      ["Bash", true],
    ]);
  });

  it("says a fork is one, and what it starts from, in place of a type", () => {
    const fork = spawnPlan({ fork: { messages: 12 } });
    const card = ask({ kind: "spawn", ...fork }, "Task", { prompt: fork.prompt, description: fork.description, fork: true });
    const badge = within(within(card).getByTestId("spawn-card")).getByText("fork");
    expect(badge.getAttribute("title")).toBe("Starts from this agent's 12 messages");
    expect(within(card).getByTestId("spawn-card").textContent).not.toContain("general-purpose");
  });

  it("approves as planned with no edit, from the answers inside the spawn card", async () => {
    spawn();
    await act(async () => {
      fireEvent.click(document.querySelector<HTMLElement>('[data-testid="spawn-card"] [data-testid="approve"]')!);
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "resolve_approval", request_id: "r1", approved: true, scope: "once" });
  });

  it("approves with only what the person changed", async () => {
    const card = spawn();
    fireEvent.change(within(card).getByTestId("spawn-model"), { target: { value: "claude-small" } });
    const bash = (within(card).getAllByTestId("spawn-tool") as HTMLInputElement[]).find((t) => t.dataset.tool === "Bash");
    fireEvent.click(bash!);
    fireEvent.change(within(card).getByTestId("spawn-max-turns"), { target: { value: "5" } });
    await act(async () => {
      fireEvent.click(within(card).getByTestId("approve"));
    });
    expect(sendCommand).toHaveBeenCalledWith({
      type: "resolve_approval",
      request_id: "r1",
      approved: true,
      scope: "once",
      edit: { model: "claude-small", tools: ["Read", "Write"], max_turns: 5 },
    });
  });

  it("sends an edited prompt alone, and cannot be approved with an empty one", async () => {
    const card = spawn();
    const prompt = within(card).getByTestId("spawn-prompt");
    fireEvent.change(prompt, { target: { value: "   " } });
    expect((within(card).getByTestId("approve") as HTMLButtonElement).disabled).toBe(true);
    expect(within(card).getByTestId("spawn-problem")).toBeTruthy();
    fireEvent.change(prompt, { target: { value: "Only the summary" } });
    await act(async () => {
      fireEvent.click(within(card).getByTestId("approve"));
    });
    expect(sendCommand).toHaveBeenCalledWith(expect.objectContaining({ approved: true, edit: { prompt: "Only the summary" } }));
  });

  it("denies with a reason like any card (no edit goes with a denial)", async () => {
    const card = spawn();
    fireEvent.change(within(card).getByTestId("spawn-model"), { target: { value: "claude-small" } });
    fireEvent.click(within(card).getByTestId("deny-with-reason"));
    fireEvent.change(within(card).getByTestId("deny-reason"), { target: { value: "too broad" } });
    await act(async () => {
      fireEvent.click(within(card).getByTestId("deny-reason-send"));
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "resolve_approval", request_id: "r1", approved: false, scope: "once", reason: "too broad" });
  });
});

describe("an external agent's request", () => {
  it("offers the agent's own answers in its words instead of Arbor's scopes, and each answers as Rust says it is", async () => {
    applyEvents(
      askFor(e.make, "agent-u", "r1", {
        path: ["main", "Update changelog"],
        options: [
          { name: "Always Allow", approved: true, scope: "agent" },
          { name: "Allow", approved: true, scope: "once" },
          { name: "Reject", approved: false, scope: "once" },
        ],
      }),
    );
    render(<ApprovalInbox />);
    const card = screen.getByTestId("approval");
    const options = within(card).getAllByTestId("agent-option");
    expect(options.map((b) => b.textContent?.trim())).toEqual(["Always Allow", "Allow", "Reject"]);
    expect(options[0]?.title).toBe("Allow: Write for “Update changelog”");
    expect(within(card).queryByTestId("approval-scope")).toBeNull();
    expect(within(card).queryByTestId("deny-with-reason")).toBeNull();
    await act(async () => {
      fireEvent.click(options[0] as HTMLElement);
      await Promise.resolve();
    });
    expect(sendCommand).toHaveBeenCalledWith({ type: "resolve_approval", request_id: "r1", approved: true, scope: "agent" });
  });
});
