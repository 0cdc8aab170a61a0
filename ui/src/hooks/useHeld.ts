/**
 * A value held still while `hold` is true: it stays what it was when the hold
 * began, and catches up when the hold ends. The output behind a dialog holds
 * its rows: rendering the stream there would hold back every key typed in the
 * dialog (Message… to a streaming agent took 40–50 ms a keystroke at p95).
 */
import { useMemo } from "react";

const HOLD = Symbol("hold");

export function useHeld<T>(value: T, hold: boolean): T {
  const key = hold ? HOLD : value;
  // Keyed on `key`, not `value`: while held, the key does not change and the memo keeps the value it took.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  return useMemo(() => value, [key]);
}
