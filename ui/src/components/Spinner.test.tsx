/** Spinners mounted at different moments turn in step: each one's delay puts it in phase with the document clock. */
import { render } from "@testing-library/react";
import { expect, it, vi } from "vitest";
import { Spinner, inPhase } from "./Spinner";

it("delays each spinner back to the document clock's last whole turn", () => {
  const at = vi.spyOn(performance, "now");
  const started: number[] = [];
  for (const t of [1_250.5, 7_980, 12_000]) {
    at.mockReturnValue(t);
    const { container } = render(<Spinner />);
    const delay = parseFloat((container.firstChild as HTMLElement).style.animationDelay);
    // Its animation, begun now, runs as if begun at `t + delay`: a whole number of turns.
    started.push((t + delay) % 1000);
  }
  expect(started).toEqual([0, 0, 0]);
  at.mockReturnValue(2_100);
  expect(inPhase(1400)).toBe("-700ms");
});

it("pins its animation's start where the page can, so a late first style still turns in step", () => {
  const at = vi.spyOn(performance, "now").mockReturnValue(7_980);
  const animation = { startTime: null as number | null };
  const getAnimations = vi.fn(() => [animation]);
  Object.defineProperty(HTMLElement.prototype, "getAnimations", { configurable: true, value: getAnimations });
  try {
    render(<Spinner />);
    // Delayed 980 ms back and begun at 980 on the timeline: its turns fall on whole seconds.
    expect(animation.startTime).toBe(980);
  } finally {
    Reflect.deleteProperty(HTMLElement.prototype, "getAnimations");
    at.mockRestore();
  }
});
