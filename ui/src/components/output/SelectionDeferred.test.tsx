/**
 * A click on a tree row is answered first: the commit that marks the row
 * selected does not yet hold the newly selected agent's output, which
 * follows in a commit of its own (OutputView's deferred selection).
 */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { Profiler } from "react";
import { beforeEach, expect, it, vi } from "vitest";
import { eventMaker } from "../../test/events";
import { withLayout } from "../../test/layout";
import { enqueueFrame, sessionStore } from "../../store/sessionStore";
import { applyEvents, resetStores, sessionInfo } from "../../test/stores";
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
    enqueueFrame({ events: [e.make("agent-s", { type: "response_chunk", content: " MORE" })], usage: null, rules: null, timeline: null });
    while (!sessionStore.get().agents["agent-s"]?.items.some((i) => i.kind === "response" && i.text.includes("MORE"))) {
      await new Promise<void>((r) => requestAnimationFrame(() => r()));
    }
  });
  expect(performance.now() - sent).toBeLessThan(200);
  expect(screen.getByTestId("output").textContent).toContain("SECOND-OUTPUT here MORE");
});
