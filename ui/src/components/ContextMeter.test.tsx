/** An agent's context, as Rust derived it from its usage and window, on its tree row and in its output's header. */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, expect, it, vi } from "vitest";
import { select } from "../store/ui";
import { eventMaker } from "../test/events";
import { withLayout } from "../test/layout";
import { applyEvents, resetStores, sessionInfo } from "../test/stores";
import { AgentTree } from "./AgentTree";
import { OutputView } from "./output/OutputView";

withLayout({ offsetHeight: 700, offsetWidth: 900, clientHeight: 700 });

const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { sendCommand: (_session: unknown, command: unknown) => sendCommand(command) },
}));

const e = eventMaker();
const usage = (agent: string, input: number, cacheRead: number) =>
  e.make(agent, {
    type: "usage",
    input_tokens: input,
    output_tokens: 10,
    cache_read_tokens: cacheRead,
    cache_write_tokens: 0,
    cost_usd: null,
  });

beforeEach(() => {
  sendCommand.mockReset();
  sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
  resetStores({ session: sessionInfo() });
  applyEvents([
    e.started("agent-main", null, "main"),
    e.status("agent-main", "running"),
    e.make("agent-main", { type: "context_window", tokens: 200_000, source: "model" }),
    usage("agent-main", 2_000, 10_000),
    e.started("agent-b", "agent-main", "Read the logs"),
    e.status("agent-b", "running"),
    e.make("agent-b", { type: "context_window", tokens: 128_000, source: "guess" }),
    usage("agent-b", 100_000, 0),
  ]);
});

function meterOf(id: string) {
  const row = screen.getAllByTestId("tree-node").find((n) => n.dataset.agentId === id);
  return row?.querySelector<HTMLElement>("[data-testid=tree-context]") ?? null;
}

it("fills each row's meter to its last request's share of its window, amber near compaction, and says a guess", () => {
  render(<AgentTree />);
  const main = meterOf("agent-main");
  // Its last request's input, cache included: 12k of 200k.
  expect(main?.getAttribute("title")).toBe("12k of 200k tokens in context (6%)");
  expect(main?.dataset.tone).toBe("ok");
  const child = meterOf("agent-b");
  expect(child?.getAttribute("title")).toBe("100k of 128k tokens in context (78%) (the window a guess)");
  expect(child?.dataset.tone).toBe("warn");
  // A compaction brings it down at once, to the compacted conversation's estimate.
  act(() =>
    applyEvents([
      e.make("agent-b", {
        type: "context_compacted",
        trigger: "threshold",
        before_tokens: 100_000,
        window_tokens: 128_000,
        after_tokens: 30_000,
        cleared_results: 4,
        summarized_messages: 0,
        summary: null,
        usage: null,
      }),
    ]),
  );
  expect(meterOf("agent-b")?.getAttribute("title")).toBe("30k of 128k tokens in context (23%) (the window a guess)");
});

it("shows an agent's context in its output's header, a guessed window marked", () => {
  act(() => select("agent-b"));
  render(<OutputView />);
  expect(screen.getByTestId("header-context").textContent).toBe("100k / ~128k context");
});

it("asks for a compaction of the shown agent from its header, and says when it will happen", () => {
  act(() => select("agent-b"));
  render(<OutputView />);
  const button = screen.getByTestId("compact-agent");
  expect(button.getAttribute("title")).toContain("before its next request");
  fireEvent.click(button);
  expect(sendCommand).toHaveBeenCalledWith({ type: "compact", agent_id: "agent-b" });
});

it("marks a fork on its tree row, in place of its type", () => {
  act(() =>
    applyEvents([
      e.started("agent-f", "agent-main", "Side task", { subagent_type: "general-purpose", fork: { messages: 7 } }),
      e.status("agent-f", "running"),
    ]),
  );
  render(<AgentTree />);
  const row = (id: string) => screen.getAllByTestId("tree-node").find((n) => n.dataset.agentId === id);
  const fork = row("agent-f")?.querySelector<HTMLElement>("[data-testid=tree-fork]");
  expect(fork?.textContent).toBe("fork");
  expect(fork?.getAttribute("title")).toBe("A fork of its parent: it started from its parent's 7 messages");
  expect(row("agent-f")?.querySelector(".badge.type")).toBeNull();
  expect(row("agent-b")?.querySelector("[data-testid=tree-fork]")).toBeNull();
});
