/**
 * One clock per interval for the whole window: timers mounted at different
 * moments tick together, on the interval's boundaries, and a clock nobody
 * watches stops.
 */
import { act, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { TYPING_HOLD_MS, TYPING_MS } from "../lib/typing";
import { useNow } from "./useNow";

function Timer({ name, active = true }: { name: string; active?: boolean }) {
  const now = useNow(active);
  return <span data-testid={name}>{now}</span>;
}

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(10_000);
});
afterEach(() => vi.useRealTimers());

const shown = (name: string) => Number(screen.getByTestId(name).textContent);

it("ticks every timer in the same update, on the second's boundary, whenever each was mounted", () => {
  const { rerender } = render(<Timer name="a" />);
  act(() => vi.advanceTimersByTime(300));
  rerender(
    <>
      <Timer name="a" />
      <Timer name="b" />
    </>,
  );
  expect([shown("a"), shown("b")]).toEqual([10_000, 10_000]);
  act(() => vi.advanceTimersByTime(699));
  expect([shown("a"), shown("b")]).toEqual([10_000, 10_000]);
  act(() => vi.advanceTimersByTime(1));
  expect([shown("a"), shown("b")]).toEqual([11_000, 11_000]);
  act(() => vi.advanceTimersByTime(1000));
  expect([shown("a"), shown("b")]).toEqual([12_000, 12_000]);
});

it("stops when no timer is active, and reads the time again when one is", () => {
  const { rerender } = render(<Timer name="a" />);
  rerender(<Timer name="a" active={false} />);
  expect(vi.getTimerCount()).toBe(0);
  act(() => vi.advanceTimersByTime(5_500));
  expect(shown("a")).toBe(10_000);
  rerender(<Timer name="a" />);
  expect(shown("a")).toBe(15_000);
  expect(vi.getTimerCount()).toBe(1);
});

it("holds a tick while a person types, until they pause, or a hold past its time at most", () => {
  render(<Timer name="a" />);
  const field = document.createElement("textarea");
  document.body.append(field);
  const key = () => field.dispatchEvent(new Event("input", { bubbles: true }));
  // Typing across the boundary: the tick waits, and comes with the pause.
  act(() => vi.advanceTimersByTime(900));
  for (let i = 0; i < 4; i++) {
    key();
    act(() => vi.advanceTimersByTime(50));
  }
  expect(shown("a")).toBe(10_000);
  act(() => vi.advanceTimersByTime(TYPING_MS));
  expect(shown("a")).toBe(11_000);
  // Typing on without a pause: it ticks once its hold has run out.
  for (let i = 0; i < (1000 + TYPING_HOLD_MS + 1000) / 50; i++) {
    key();
    act(() => vi.advanceTimersByTime(50));
  }
  expect(shown("a")).toBeGreaterThan(11_000);
  field.remove();
});
