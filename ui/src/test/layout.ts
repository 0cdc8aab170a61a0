/**
 * jsdom has no layout: while a file's tests run, elements report these sizes,
 * so the virtualised lists (the output, the tree) render rows.
 */
import { afterAll, beforeAll } from "vitest";

export function withLayout(sizes: { offsetHeight: number; offsetWidth: number; clientHeight: number }): void {
  const saved: [string, PropertyDescriptor | undefined][] = [];
  beforeAll(() => {
    for (const [k, v] of Object.entries(sizes)) {
      saved.push([k, Object.getOwnPropertyDescriptor(HTMLElement.prototype, k)]);
      Object.defineProperty(HTMLElement.prototype, k, { configurable: true, get: () => v });
    }
  });
  afterAll(() => {
    for (const [k, d] of saved) if (d) Object.defineProperty(HTMLElement.prototype, k, d);
  });
}
