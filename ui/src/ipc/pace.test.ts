/** The backend is told which live session the window shows: that one at display rate, the others in the background. */
import { beforeEach, expect, it, vi } from "vitest";
import { initialSession } from "../store/session/reducer";
import { leaveCurrent, openSlot, setSlotInfo, showPastSession, switchToSlot } from "../store/sessionStore";
import { resetStores, sessionInfo } from "../test/stores";
import { TYPING_MS } from "../lib/typing";
import { installPaceEffects } from "./pace";

const showSession = vi.fn(() => Promise.resolve(null));
vi.mock("../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => (k === "showSession" ? showSession : undefined) }),
}));

beforeEach(() => {
  resetStores();
  showSession.mockClear();
});

it("names the shown live session once each time it changes, and none behind a review or a fresh page", () => {
  const off = installPaceEffects();
  expect(showSession.mock.calls).toEqual([[null]]);
  // A session starting is current before its id is known; then it is named.
  const a = openSlot(initialSession());
  expect(showSession.mock.calls).toEqual([[null]]);
  setSlotInfo(a, sessionInfo({ session_id: "s-a" }));
  const b = openSlot(initialSession());
  setSlotInfo(b, sessionInfo({ session_id: "s-b" }));
  expect(showSession.mock.calls.slice(1)).toEqual([["s-a"], [null], ["s-b"]]);
  switchToSlot(a, null);
  expect(showSession).toHaveBeenLastCalledWith("s-a");
  // A past session in review: no live session is shown.
  showPastSession(initialSession());
  expect(showSession).toHaveBeenLastCalledWith(null);
  switchToSlot(b, null);
  leaveCurrent(null);
  expect(showSession.mock.calls.slice(-2)).toEqual([["s-b"], [null]]);
  const calls = showSession.mock.calls.length;
  switchToSlot(b, null);
  switchToSlot(b, null);
  expect(showSession.mock.calls.length).toBe(calls + 1);
  off();
});

it("names none while a person types, and the shown one again once they pause, telling the backend twice a burst", () => {
  vi.useFakeTimers();
  try {
    const off = installPaceEffects();
    const a = openSlot(initialSession());
    setSlotInfo(a, sessionInfo({ session_id: "s-a" }));
    expect(showSession).toHaveBeenLastCalledWith("s-a");
    const calls = showSession.mock.calls.length;
    const field = document.createElement("textarea");
    document.body.append(field);
    for (let i = 0; i < 10; i++) {
      field.dispatchEvent(new Event("input", { bubbles: true }));
      vi.advanceTimersByTime(TYPING_MS / 2);
    }
    expect(showSession.mock.calls.slice(calls)).toEqual([[null]]);
    vi.advanceTimersByTime(TYPING_MS);
    expect(showSession.mock.calls.slice(calls)).toEqual([[null], ["s-a"]]);
    field.remove();
    off();
  } finally {
    vi.useRealTimers();
  }
});
