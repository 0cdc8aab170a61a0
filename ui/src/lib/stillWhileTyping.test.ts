/** The window's stepped animations hold still while a person types, and step in phase again after. */
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { holdStill, installStillWhileTyping } from "./stillWhileTyping";
import { TYPING_MS } from "./typing";

/** Enough of a CSS animation for the hold: its name, its start time, pause. */
function animation(animationName: string, startTime: number) {
  const a = {
    animationName,
    startTime: startTime as number | null,
    paused: false,
    playState: "running" as AnimationPlayState,
    pause() {
      a.paused = true;
      a.playState = "paused";
    },
  };
  return a;
}

let field: HTMLTextAreaElement;
beforeEach(() => {
  vi.useFakeTimers();
  field = document.createElement("textarea");
  document.body.append(field);
});
afterEach(() => {
  field.remove();
  vi.useRealTimers();
  Reflect.deleteProperty(document, "getAnimations");
});

it("pauses the spinners and pulses while a person types, and gives them their start back when they pause", () => {
  const spin = animation("spin", 250);
  const pulse = animation("pulse", 1_000);
  const flash = animation("flash", 40);
  Object.defineProperty(document, "getAnimations", { configurable: true, value: () => [spin, pulse, flash] });
  const off = installStillWhileTyping();
  field.dispatchEvent(new Event("input", { bubbles: true }));
  expect([spin.paused, pulse.paused, flash.paused]).toEqual([true, true, false]);
  // Pausing leaves no start time; the pause in typing gives the old one back, so it plays in step.
  spin.startTime = null;
  pulse.startTime = null;
  vi.advanceTimersByTime(TYPING_MS / 2);
  field.dispatchEvent(new Event("input", { bubbles: true }));
  expect(spin.startTime).toBeNull();
  vi.advanceTimersByTime(TYPING_MS + 1);
  expect([spin.startTime, pulse.startTime]).toEqual([250, 1_000]);
  off();
});

it("leaves alone a spinner whose element left while the person typed", () => {
  const gone = animation("spin", 250);
  Object.defineProperty(document, "getAnimations", { configurable: true, value: () => [gone] });
  const off = installStillWhileTyping();
  field.dispatchEvent(new Event("input", { bubbles: true }));
  // Its agent finished meanwhile: the spinner was unmounted, its animation cancelled.
  gone.playState = "idle";
  gone.startTime = null;
  vi.advanceTimersByTime(TYPING_MS + 1);
  expect(gone.startTime).toBeNull();
  off();
});

it("does nothing where the page has no animations to ask for", () => {
  const off = installStillWhileTyping();
  expect(() => {
    field.dispatchEvent(new Event("input", { bubbles: true }));
    vi.advanceTimersByTime(TYPING_MS + 1);
  }).not.toThrow();
  off();
});

it("holds a hidden pane's spinners still, and plays them again on the document clock's periods", () => {
  const spin = Object.assign(animation("spin", 250), { effect: { getTiming: () => ({ delay: -420 }) } });
  const gone = Object.assign(animation("pulse", 100), { effect: { getTiming: () => ({ delay: -10 }) } });
  const flash = animation("flash", 40);
  const pane = document.createElement("div");
  const asked: unknown[] = [];
  Object.defineProperty(pane, "getAnimations", {
    value: (options: unknown) => {
      asked.push(options);
      return [spin, gone, flash];
    },
  });
  const release = holdStill(pane);
  expect(asked).toEqual([{ subtree: true }]);
  expect([spin.paused, gone.paused, flash.paused]).toEqual([true, true, false]);
  // Paused, it has no start time; its spinner's agent finished meanwhile for the other.
  spin.startTime = null;
  gone.playState = "idle";
  gone.startTime = null;
  release();
  expect(spin.startTime).toBe(420);
  expect(gone.startTime).toBeNull();
});
