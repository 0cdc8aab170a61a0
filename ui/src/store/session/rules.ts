/**
 * The approval rules in force, as Rust sends them: a frame names the whole
 * list whenever it changed (null when it did not). The UI never works out
 * which rules stand; it keeps the latest list it was sent, as it does usage.
 * Rules belong to the live session: a reviewed past session has none in force.
 */
import type { ApprovalRule } from "../../bindings";
import type { SessionState } from "./types";

/** `state` with the last of `lists` as its rules; `state` itself when no list came. */
export function withRules(state: SessionState, lists: readonly ApprovalRule[][]): SessionState {
  const latest = lists.at(-1);
  return latest === undefined || latest === state.rules ? state : { ...state, rules: latest };
}
