import { waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { installPerfProbe } from "./perf";

beforeEach(() => {
  delete window.__arborPerf;
  window.localStorage.setItem("arborPerf", "1");
});

afterEach(() => {
  window.localStorage.removeItem("arborPerf");
  document.body.replaceChildren();
});

describe("the perf probe", () => {
  it("is off unless asked for", () => {
    window.localStorage.removeItem("arborPerf");
    installPerfProbe();
    expect(window.__arborPerf).toBeUndefined();
  });

  it("times each input in a text field to the end of the next painted frame", async () => {
    installPerfProbe();
    const area = document.body.appendChild(document.createElement("textarea"));
    const input = document.body.appendChild(document.createElement("input"));
    const other = document.body.appendChild(document.createElement("div"));
    area.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("input", { bubbles: true }));
    // Not a text field: not counted.
    other.dispatchEvent(new Event("input", { bubbles: true }));
    await waitFor(() => expect(window.__arborPerf?.inputs).toHaveLength(2));
    for (const ms of window.__arborPerf?.inputs ?? []) {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThan(1_000);
    }
    // A later input, in a later frame, adds its own.
    area.dispatchEvent(new Event("input", { bubbles: true }));
    await waitFor(() => expect(window.__arborPerf?.inputs).toHaveLength(3));
  });
});
