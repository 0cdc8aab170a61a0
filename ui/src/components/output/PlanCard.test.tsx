import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { PlanEntry } from "../../bindings";
import { eventMaker } from "../../test/events";
import { initialSession, reduceBatch } from "../../store/session/reducer";
import { PlanCard } from "./PlanCard";

const step = (content: string, status: PlanEntry["status"], priority: PlanEntry["priority"] = "medium"): PlanEntry => ({ content, status, priority });

describe("an agent's plan", () => {
  it("is one card while updates follow one another, and a new card after other output", () => {
    const e = eventMaker();
    const s = reduceBatch(initialSession(), [
      e.started("agent-main", null, "main"),
      e.make("agent-main", { type: "plan", entries: [step("Read", "in_progress"), step("Write", "pending")] }),
      e.make("agent-main", { type: "plan", entries: [step("Read", "completed"), step("Write", "in_progress")] }),
      e.make("agent-main", { type: "response", content: "Read it." }),
      e.make("agent-main", { type: "plan", entries: [step("Read", "completed"), step("Write", "completed")] }),
    ]);
    const plans = (s.agents["agent-main"]?.items ?? []).flatMap((it) => (it.kind === "plan" ? [it] : []));
    expect(plans.map((p) => p.plan.entries.map((x) => x.status))).toEqual([
      ["completed", "in_progress"],
      ["completed", "completed"],
    ]);
    expect(plans[0]?.key).toBe("e2");
  });

  it("marks each step done, under way or to do, and tags the high-priority ones", () => {
    render(<PlanCard plan={{ entries: [step("Read the notes", "completed"), step("Write the summary", "in_progress", "high"), step("Check it", "pending")] }} />);
    const steps = screen.getAllByRole("listitem");
    expect(steps.map((li) => [li.textContent, li.dataset.status, li.title])).toEqual([
      ["Read the notes", "completed", "done"],
      ["Write the summaryhigh", "in_progress", "under way"],
      ["Check it", "pending", "to do"],
    ]);
  });
});
