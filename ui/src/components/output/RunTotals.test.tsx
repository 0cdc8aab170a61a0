import { act, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../bindings";
import { eventMaker } from "../../test/events";
import { withLayout } from "../../test/layout";
import { applyEvents, resetStores, sessionInfo } from "../../test/stores";
import { AgentTree } from "../AgentTree";
import { OutputView } from "./OutputView";

vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: {},
}));

withLayout({ offsetHeight: 2000, offsetWidth: 800, clientHeight: 2000 });

const NOW = 1_000_000;
const at = <T extends { ts: number }>(ev: T, ts: number): T => ({ ...ev, ts });

let e = eventMaker();
const finished = (ts: number, turns: number, ms: number, result: string): AgentEvent =>
  at(
    e.make("agent-main", { type: "agent_finished", status: "completed", result, error: null, turns, duration_ms: ms, files_modified: [] }),
    ts,
  );

/** The main agent's first run (10 s, 1 turn) and its resume (2 turns so far, 4 s so far). */
function firstRunThenResumed(): AgentEvent[] {
  return [
    at(e.started("agent-main", null, "main"), NOW - 60_000),
    at(e.status("agent-main", "running"), NOW - 59_000),
    at(e.usage("agent-main", 10, 1), NOW - 55_000),
    at(e.status("agent-main", "completed"), NOW - 49_000),
    finished(NOW - 49_000, 1, 10_000, "First answer"),
    at(e.make("agent-main", { type: "user_message", content: "Now the docs" }), NOW - 10_000),
    at(e.status("agent-main", "running"), NOW - 4_000),
    at(e.usage("agent-main", 10, 1), NOW - 3_000),
    at(e.usage("agent-main", 10, 1), NOW - 2_000),
  ];
}

beforeEach(() => {
  e = eventMaker();
  vi.spyOn(Date, "now").mockReturnValue(NOW);
  resetStores({ session: sessionInfo() });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("an agent's turns and time over every run", () => {
  it("shows the totals in its tree row and its header while it runs again, and the first run's own on its result", () => {
    applyEvents(firstRunThenResumed());
    render(
      <>
        <AgentTree />
        <OutputView />
      </>,
    );
    // 10 s of the first run and 4 s of this one (the wait between them is not the agent's).
    expect(screen.getByTestId("tree-elapsed").textContent).toBe("14s");
    expect(screen.getByTestId("tree-elapsed").title).toBe("3 turns · 14s over every run");
    const header = screen.getByTestId("output").querySelector(".output-header .sub")?.textContent ?? "";
    expect(header).toContain("3 turns");
    expect(screen.getByTestId("header-elapsed").textContent).toBe(" · 14s");
    // A run is under way after it: the result is run 1 of 2, with that run's figures.
    expect(screen.getAllByTestId("result-meta").map((m) => m.textContent)).toEqual(["run 1 of 2 · 1 turn · 10s this run"]);
  });

  it("gives the latest result the totals over every run once it ends", () => {
    applyEvents([
      ...firstRunThenResumed(),
      at(e.status("agent-main", "completed"), NOW - 1_000),
      finished(NOW - 1_000, 2, 3_000, "Second answer"),
    ]);
    render(
      <>
        <AgentTree />
        <OutputView />
      </>,
    );
    expect(screen.getByTestId("tree-elapsed").textContent).toBe("13s");
    expect(screen.getAllByTestId("result-meta").map((m) => m.textContent)).toEqual([
      "run 1 of 2 · 1 turn · 10s this run",
      "run 2 of 2 · 3 turns · 13s in all runs",
    ]);
    expect(screen.getAllByTestId("result-meta")[1]?.title).toBe("This run: 2 turns · 3s");
  });

  it("counts a run the process ended without a result in the totals (one result: no run numbers)", () => {
    applyEvents([
      at(e.started("agent-main", null, "main"), NOW - 60_000),
      at(e.status("agent-main", "running"), NOW - 60_000),
      at(e.usage("agent-main", 10, 1), NOW - 59_000),
      at(e.status("agent-main", "interrupted"), NOW - 40_000),
      at(e.status("agent-main", "running"), NOW - 5_000),
      at(e.usage("agent-main", 10, 1), NOW - 4_000),
      at(e.status("agent-main", "completed"), NOW - 2_000),
      finished(NOW - 2_000, 1, 3_000, "Done"),
    ]);
    act(() => {
      render(<OutputView />);
    });
    expect(screen.getAllByTestId("result-meta").map((m) => m.textContent)).toEqual(["2 turns · 23s"]);
  });
});
