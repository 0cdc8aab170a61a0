import { describe, expect, it } from "vitest";
import { shownPath } from "./paths";

describe("shownPath", () => {
  it("shows a path inside the tree relative to it", () => {
    expect(shownPath("/work/demo/src/main.rs", "/work/demo")).toBe("src/main.rs");
    expect(shownPath("/work/demo/src/main.rs", "/work/demo/")).toBe("src/main.rs");
    expect(shownPath("/work/demo", "/work/demo")).toBe(".");
    expect(shownPath("/work/demo/", "/work/demo")).toBe(".");
  });

  it("keeps a path outside the tree, or one that only shares its name's start, whole", () => {
    expect(shownPath("/work/demo-2/a.txt", "/work/demo")).toBe("/work/demo-2/a.txt");
    expect(shownPath("/etc/passwd", "/work/demo")).toBe("/etc/passwd");
    expect(shownPath("/work/demo/a.txt", null)).toBe("/work/demo/a.txt");
  });

  it("leaves a relative path as the model wrote it", () => {
    expect(shownPath("src/main.rs", "/work/demo")).toBe("src/main.rs");
    expect(shownPath("../x", "/work/demo")).toBe("../x");
  });
});
