/**
 * jsdom has no layout: while a file's tests run, elements report these sizes,
 * so the virtualised lists (the output, the tree) render rows. Their rows (the
 * elements they measure, marked with `data-index`) are `rowHeight` tall, as a
 * line or a card is: a list mounts the rows near its view, not all of them.
 */
import { afterAll, beforeAll } from "vitest";

/** A row's height unless a file says otherwise: a line or a card's. */
export const ROW_HEIGHT = 60;

export function withLayout(sizes: { offsetHeight: number; offsetWidth: number; clientHeight: number }, rowHeight = ROW_HEIGHT): void {
  const saved: [string, PropertyDescriptor | undefined][] = [];
  beforeAll(() => {
    for (const [k, v] of Object.entries(sizes)) {
      saved.push([k, Object.getOwnPropertyDescriptor(HTMLElement.prototype, k)]);
      Object.defineProperty(HTMLElement.prototype, k, {
        configurable: true,
        get(this: HTMLElement) {
          return k === "offsetHeight" && this.hasAttribute("data-index") ? rowHeight : v;
        },
      });
    }
  });
  afterAll(() => {
    for (const [k, d] of saved) if (d) Object.defineProperty(HTMLElement.prototype, k, d);
  });
}
