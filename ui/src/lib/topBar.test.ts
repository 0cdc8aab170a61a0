/** What the top bar names while a session runs, and when New session can act. */
import { describe, expect, it } from "vitest";
import { sessionInfo } from "../test/stores";
import { DEMO_RUNS, newSessionState, sessionRuns } from "./topBar";

const providers = [
  {
    kind: "anthropic" as const,
    label: "Anthropic",
    key_source: "none" as const,
    key_var: "ANTHROPIC_API_KEY",
    base_url: "",
    default_model: "claude-a",
    ready: false,
    problem: null,
  },
];

describe("the top bar", () => {
  it("names the demo by what it is, whatever its provider field says", () => {
    expect(sessionRuns(sessionInfo({ demo: true, provider: "anthropic", model: "arbor-demo-scripted" }), providers)).toBe(
      DEMO_RUNS,
    );
  });

  it("names a session's provider by its label, and its model", () => {
    expect(sessionRuns(sessionInfo({ provider: "anthropic", model: "claude-b" }), providers)).toBe("Anthropic · claude-b");
    expect(sessionRuns(sessionInfo({ provider: "elsewhere", model: "m" }), providers)).toBe("elsewhere · m");
  });

  it("lets New session act when there is something to clear, and says why not otherwise", () => {
    expect(newSessionState({ live: true, reviewing: false, starting: false }).enabled).toBe(true);
    expect(newSessionState({ live: false, reviewing: true, starting: false }).enabled).toBe(true);
    // One starting goes on beside the next.
    expect(newSessionState({ live: false, reviewing: false, starting: true }).enabled).toBe(true);
    expect(newSessionState({ live: false, reviewing: false, starting: false })).toEqual({
      enabled: false,
      reason: "This is a new session's page: the prompt below starts it",
    });
  });
});
