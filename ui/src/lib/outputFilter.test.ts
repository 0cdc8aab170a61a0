import { describe, expect, it } from "vitest";
import { eventMaker, fileChange } from "../test/events";
import { initialSession } from "../store/session/reducer";
import { reduceBatch } from "../test/agents";
import type { OutputItem } from "../store/session/types";
import {
  SHOW_ALL,
  allTools,
  filterItems,
  isShown,
  kindCounts,
  kindsOf,
  onlyTool,
  showsAll,
  toggleKind,
  toggleTool,
  type OutputFilter,
} from "./outputFilter";

/** An agent's items as the reducer builds them: one of every kind. */
function transcript(): OutputItem[] {
  const e = eventMaker();
  const events = [
    e.started("agent-main", null, "main"),
    e.make("agent-main", { type: "user_message", content: "Fix the build" }),
    e.make("agent-main", { type: "imported_entry", kind: "attachment: environment", content: "cwd: /pond" }),
    e.make("agent-main", { type: "thoughts", content: "Look first" }),
    e.make("agent-main", { type: "response", content: "Reading the log" }),
    e.make("agent-main", { type: "tool_call", call_id: "r1", tool_name: "Read", tool_args: { file_path: "a" } }),
    e.make("agent-main", { type: "tool_output", call_id: "r1", content: "ok", is_error: false }),
    e.make("agent-main", { type: "tool_call", call_id: "b1", tool_name: "Bash", tool_args: { command: "make" } }),
    e.approval("agent-main", "q1", "b1", ["main"], "Bash"),
    e.resolved("agent-main", "q1", "approved"),
    e.make("agent-main", { type: "tool_output", call_id: "b1", content: "make: *** failed", is_error: true }),
    e.make("agent-main", { type: "tool_call", call_id: "b2", tool_name: "Bash", tool_args: { command: "make -k" } }),
    e.make("agent-main", { type: "tool_output", call_id: "b2", content: "ok", is_error: false }),
    e.changed("agent-main", fileChange("a.txt", "x", "y", { call_id: "b2" })),
    e.mcp("agent-main", "docs", "failed", null, "could not start"),
    e.mcp("agent-main", "files", "connected", 42),
    e.make("agent-main", {
      type: "agent_finished",
      status: "failed",
      result: "",
      error: "provider broke",
      turns: 2,
      duration_ms: 900,
      files_modified: [],
    }),
  ];
  return reduceBatch(initialSession(), events).agents["agent-main"]?.items ?? [];
}

const kindsOfAll = (items: OutputItem[]) =>
  items.map((it) => `${it.kind}${it.kind === "tool" ? `:${it.toolName}` : ""}=${kindsOf(it).join("+")}`);

describe("the output filter", () => {
  it("gives each item its kinds: an approved failing call is a tool call, an approval and an error", () => {
    expect(kindsOfAll(transcript())).toEqual([
      "user=",
      "imported=imported",
      "thoughts=thinking",
      "response=text",
      "tool:Read=tools",
      "tool:Bash=tools+approvals+errors",
      "tool:Bash=tools",
      "change=tools",
      "mcp=errors",
      "mcp=",
      "finished=errors",
    ]);
  });

  it("shows everything by default, as the same array (the virtualised list keeps its rows)", () => {
    const items = transcript();
    expect(showsAll(SHOW_ALL)).toBe(true);
    expect(filterItems(items, SHOW_ALL)).toBe(items);
  });

  it("shows an item when any of its kinds is on; context always shows", () => {
    const items = transcript();
    // Only errors: the failed call (a tool call too), the MCP failure, the failed result, and the context.
    const errorsOnly: OutputFilter = { hidden: ["text", "thinking", "tools", "approvals", "imported"], hiddenTools: [] };
    expect(kindsOfAll(filterItems(items, errorsOnly))).toEqual([
      "user=",
      "tool:Bash=tools+approvals+errors",
      "mcp=errors",
      "mcp=",
      "finished=errors",
    ]);
    // No thinking and no imported entries: everything else.
    const quiet = toggleKind(toggleKind(SHOW_ALL, "thinking"), "imported");
    const shown = filterItems(items, quiet);
    expect(shown.map((it) => it.kind)).not.toContain("thoughts");
    expect(shown.map((it) => it.kind)).not.toContain("imported");
    expect(shown).toHaveLength(items.length - 2);
    // The same filter again: the same list (memoised on the items and the filter).
    expect(filterItems(items, quiet)).toBe(shown);
    // Switched back on.
    expect(showsAll(toggleKind(toggleKind(quiet, "thinking"), "imported"))).toBe(true);
  });

  it("hides the calls of a tool the person unticked, whatever else they are", () => {
    const items = transcript();
    const noBash = toggleTool(SHOW_ALL, "Bash");
    const tools = filterItems(items, noBash).filter((it) => it.kind === "tool");
    expect(tools.map((it) => (it.kind === "tool" ? it.toolName : ""))).toEqual(["Read"]);
    // The failing Bash call is an error too, and still hidden.
    const failing = items.find((it) => it.kind === "tool" && it.isError);
    expect(failing && isShown(failing, noBash)).toBe(false);
    // Only Bash: the Read call goes, the Bash ones come back.
    const onlyBash = onlyTool(noBash, "Bash", ["Read", "Bash"]);
    expect(onlyBash.hiddenTools).toEqual(["Read"]);
    expect(filterItems(items, onlyBash).filter((it) => it.kind === "tool")).toHaveLength(2);
    // Ticking a tool while the tool calls are off switches them on.
    expect(toggleTool({ hidden: ["tools"], hiddenTools: ["Bash"] }, "Bash")).toEqual({ hidden: [], hiddenTools: [] });
    expect(allTools(onlyBash)).toEqual({ hidden: [], hiddenTools: [] });
    expect(allTools(SHOW_ALL)).toBe(SHOW_ALL);
  });

  it("counts each kind and each tool's calls, tools in the order of their first call", () => {
    const counts = kindCounts(transcript());
    expect(counts.kinds).toEqual({ text: 1, thinking: 1, tools: 4, approvals: 1, errors: 3, imported: 1 });
    expect(counts.tools.map((t) => [t.name, t.count])).toEqual([
      ["Read", 1],
      ["Bash", 2],
    ]);
  });
});
