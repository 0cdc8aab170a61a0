/**
 * A click on a tree row is answered first: the commit that marks the row
 * selected does not yet hold the newly selected agent's output, which
 * follows in a commit of its own (OutputView's deferred selection). Another
 * session shown brings its output in the same commit as its tree.
 */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { Profiler } from "react";
import { beforeEach, expect, it, vi } from "vitest";
import { eventMaker } from "../../test/events";
import { withLayout } from "../../test/layout";
import { enqueueFrame, sessionStore } from "../../store/sessionStore";
import { reduceBatch } from "../../test/agents";
import { initialSession } from "../../store/session/reducer";
import { applyEvents, frameOf, resetStores, sessionInfo } from "../../test/stores";
import { AgentTree } from "../AgentTree";
import { OutputView } from "./OutputView";

vi.mock("../../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: new Proxy({}, { get: () => () => new Promise(() => undefined) }),
}));

withLayout({ offsetHeight: 700, offsetWidth: 600, clientHeight: 700 });

const e = eventMaker();

beforeEach(() => {
  resetStores({ session: sessionInfo() });
  applyEvents([
    e.started("agent-main", null, "main"),
    e.make("agent-main", { type: "response_chunk", content: "MAIN-OUTPUT here" }),
    e.started("agent-s", "agent-main", "Second"),
    e.make("agent-s", { type: "response_chunk", content: "SECOND-OUTPUT here" }),
  ]);
});

it("marks the clicked row selected in a commit before the one that shows its agent's output", () => {
  const seen: { selected: string | undefined; output: string }[] = [];
  const onCommit = () => {
    seen.push({
      selected: document.querySelector<HTMLElement>('[role="treeitem"][aria-selected="true"]')?.dataset.agentId,
      output: screen.getByTestId("output").textContent ?? "",
    });
  };
  render(
    <Profiler id="window" onRender={onCommit}>
      <AgentTree />
      <OutputView />
    </Profiler>,
  );
  expect(screen.getByTestId("output").textContent).toContain("MAIN-OUTPUT");
  seen.length = 0;
  const row = document.querySelector<HTMLElement>('[data-agent-id="agent-s"]')!;
  act(() => fireEvent.click(row));
  // First the tree, with the output still the main agent's; then the output.
  expect(seen[0]).toMatchObject({ selected: "agent-s" });
  expect(seen[0]?.output).toContain("MAIN-OUTPUT");
  expect(seen.at(-1)?.output).toContain("SECOND-OUTPUT");
  expect(screen.getByTestId("output").textContent).not.toContain("MAIN-OUTPUT");
});

it("lets the stream's batches wait only until the selected agent's output is in", async () => {
  render(
    <>
      <AgentTree />
      <OutputView />
    </>,
  );
  act(() => fireEvent.click(document.querySelector<HTMLElement>('[data-agent-id="agent-s"]')!));
  expect(screen.getByTestId("output").textContent).toContain("SECOND-OUTPUT");
  // The next batch is applied on the next frame, not held until the 250 ms fallback.
  const sent = performance.now();
  await act(async () => {
    enqueueFrame(frameOf([e.make("agent-s", { type: "response_chunk", content: " MORE" })]));
    while (!sessionStore.get().agents["agent-s"]?.items.some((i) => i.kind === "response" && i.text.includes("MORE"))) {
      await new Promise<void>((r) => requestAnimationFrame(() => r()));
    }
  });
  expect(performance.now() - sent).toBeLessThan(200);
  expect(screen.getByTestId("output").textContent).toContain("SECOND-OUTPUT here MORE");
});

it("shows another session's output in the commit that shows its tree, never this session's agent in between", () => {
  const seen: { first: string | undefined; output: string }[] = [];
  render(
    <Profiler
      id="window"
      onRender={() =>
        seen.push({
          first: document.querySelector<HTMLElement>('[role="treeitem"]')?.dataset.agentId,
          output: screen.getByTestId("output").textContent ?? "",
        })
      }
    >
      <AgentTree />
      <OutputView />
    </Profiler>,
  );
  seen.length = 0;
  const other = eventMaker("s-2");
  const state = reduceBatch(initialSession(), [
    other.started("agent-o", null, "other main"),
    other.make("agent-o", { type: "response_chunk", content: "OTHER-OUTPUT here" }),
  ]);
  act(() => sessionStore.set(state));
  // Its output (its header, at first) with its tree; its rows once the list has measured itself.
  expect(seen[0]).toMatchObject({ first: "agent-o" });
  expect(seen[0]?.output).toContain("agent-o");
  expect(screen.getByTestId("output").textContent).toContain("OTHER-OUTPUT");
  expect(seen.some((c) => c.output.includes("MAIN-OUTPUT"))).toBe(false);
});

it("mounts an output that follows its end with its last rows, never its first ones on the way", () => {
  const notes = Array.from({ length: 60 }, (_, i) =>
    e.make("agent-main", { type: "tool_call", call_id: `c${i}`, tool_name: "Bash", tool_args: { command: `echo note-${i}-end` } }),
  );
  applyEvents(notes);
  const commits: string[] = [];
  render(
    <Profiler id="output" onRender={() => commits.push(screen.getByTestId("output").textContent ?? "")}>
      <OutputView />
    </Profiler>,
  );
  // The first commit with rows (the list measures its viewport first) holds the last ones.
  const firstWithRows = commits.find((c) => c.includes("note-"));
  expect(firstWithRows).toContain("note-59-end");
  expect(commits.some((c) => c.includes("note-0-end"))).toBe(false);
});
