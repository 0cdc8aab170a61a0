/** The external store: a batch of changes across stores is told once, after all of them, so readers see them together. */
import { describe, expect, it } from "vitest";
import { batch, createStore } from "./store";

describe("batch", () => {
  it("tells each changed store's subscribers once, after every change, in the order the stores changed", () => {
    const a = createStore(0);
    const b = createStore("x");
    const seen: string[] = [];
    a.subscribe(() => seen.push(`a sees ${a.get()} ${b.get()}`));
    b.subscribe(() => seen.push(`b sees ${a.get()} ${b.get()}`));
    const out = batch(() => {
      a.set(1);
      b.set("y");
      // Nested: told with the outer batch, not at its own end.
      batch(() => a.set(2));
      expect(seen).toEqual([]);
      return "done";
    });
    expect(out).toBe("done");
    expect(seen).toEqual(["a sees 2 y", "b sees 2 y"]);
    // Outside a batch a change is told at once; one that changes nothing is not told.
    a.set(3);
    a.set(3);
    expect(seen).toEqual(["a sees 2 y", "b sees 2 y", "a sees 3 y"]);
  });

  it("still tells what changed when the batch throws", () => {
    const a = createStore(0);
    let told = 0;
    a.subscribe(() => (told += 1));
    expect(() =>
      batch(() => {
        a.set(1);
        throw new Error("midway");
      }),
    ).toThrow("midway");
    expect(told).toBe(1);
    a.set(2);
    expect(told).toBe(2);
  });
});
