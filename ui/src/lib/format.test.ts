import { describe, expect, it } from "vitest";
import { clipOutput, OUTPUT_PREVIEW } from "./format";

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
