import { describe, expect, it } from "vitest";
import { AGENT_STATUSES } from "../bindings";
import { clipOutput, endTone, OUTPUT_PREVIEW, orList, statusLabel } from "./format";

describe("statuses in words", () => {
  it("has words for every status Rust has", () => {
    for (const s of AGENT_STATUSES) expect(statusLabel(s)).not.toBe("");
    expect(statusLabel("truncated")).toBe("cut off");
    expect(statusLabel("max_turns")).toBe("turn limit reached");
    expect(statusLabel("budget_exhausted")).toBe("budget exhausted");
  });

  it("reads a cut-off answer like a turn limit: stopped at a limit, not failed", () => {
    expect(endTone("truncated")).toBe("limit");
    expect(endTone("max_turns")).toBe("limit");
    expect(endTone("failed")).toBe("failed");
    expect(endTone("cancelled")).toBe("stopped");
    // Stopped by a budget: its own tone, neither a failure nor a plain stop.
    expect(endTone("budget_exhausted")).toBe("budget");
  });

  it("joins alternatives", () => {
    expect(orList([])).toBe("");
    expect(orList(["a"])).toBe("a");
    expect(orList(["a", "b", "c"])).toBe("a, b or c");
  });
});

describe("clipOutput", () => {
  const long = "a".repeat(OUTPUT_PREVIEW) + "b".repeat(500);

  it("shows short output whole", () => {
    expect(clipOutput("hello", false, false)).toEqual({ text: "hello", hidden: 0 });
  });

  it("shows the start of a finished call's long output and counts the rest", () => {
    const c = clipOutput(long, false, false);
    expect(c.hidden).toBe(500);
    expect(c.text.startsWith("aaa")).toBe(true);
    expect(c.text.includes("b")).toBe(false);
  });

  it("shows the latest end while the output streams", () => {
    const c = clipOutput(long, true, false);
    expect(c.text.endsWith("b".repeat(500))).toBe(true);
    expect(c.text.startsWith("…")).toBe(true);
  });

  it("shows everything when asked", () => {
    expect(clipOutput(long, false, true)).toEqual({ text: long, hidden: 0 });
  });
});
