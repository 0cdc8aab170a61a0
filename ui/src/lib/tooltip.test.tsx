/**
 * The floating tooltip (`float`): over the page, not inside a box that clips
 * (a tree row), placed at its button and kept in the window; gone when a
 * scroll carries its button away, not when another pane scrolls.
 */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TIP_DELAY_MS, Tip } from "./tooltip";

/** Where the button is, and how big the tooltip is (jsdom lays nothing out). */
let buttonAt = { left: 100, right: 122, top: 300, bottom: 318 };
const TIP_SIZE = { width: 200, height: 40 };

beforeEach(() => {
  vi.useFakeTimers();
  vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(function (this: HTMLElement) {
    const r = this.getAttribute("role") === "tooltip" ? { left: 0, top: 0, ...TIP_SIZE } : { ...buttonAt, width: 22, height: 18 };
    return { x: r.left, y: r.top, right: r.left + r.width, bottom: r.top + r.height, ...r, toJSON: () => r } as DOMRect;
  });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  buttonAt = { left: 100, right: 122, top: 300, bottom: 318 };
});

function renderTip(align: "start" | "end" = "start") {
  const view = render(
    <div data-testid="pane">
      <Tip text="Stop this agent" float align={align}>
        {(describedBy) => (
          <button type="button" data-testid="button" aria-label="Stop" aria-describedby={describedBy}>
            ■
          </button>
        )}
      </Tip>
    </div>,
  );
  const button = screen.getByTestId("button");
  const tip = document.getElementById(button.getAttribute("aria-describedby") ?? "") as HTMLElement;
  fireEvent.pointerEnter(button.closest(".tip-anchor") as HTMLElement);
  act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
  return { button, tip, unmount: view.unmount };
}

describe("a floating tooltip", () => {
  it("is over the page, under its button, lined up with it", () => {
    const { button, tip } = renderTip();
    expect(tip.hidden).toBe(false);
    expect(tip.parentElement).toBe(document.body);
    expect(button.closest("[data-testid=pane]")?.contains(tip)).toBe(false);
    expect(tip.style.position).toBe("fixed");
    expect(tip.style.top).toBe("324px");
    expect(tip.style.left).toBe("100px");
  });

  it("lines up with the button's right edge for `end`, and stays inside the window", () => {
    buttonAt = { left: 878, right: 900, top: 300, bottom: 318 };
    const { tip } = renderTip("end");
    expect(tip.style.left).toBe(`${900 - 200}px`);
  });

  it("goes over its button when there is no room under it, and never past the window's edge", () => {
    // jsdom's window is 1024 × 768.
    buttonAt = { left: 950, right: 972, top: 740, bottom: 758 };
    const { tip } = renderTip();
    expect(tip.style.top).toBe(`${740 - 6 - 40}px`);
    expect(tip.style.left).toBe(`${1024 - 4 - 200}px`);
  });

  it("goes when its button's pane scrolls, not when another one does", () => {
    const other = document.createElement("div");
    document.body.append(other);
    const { tip } = renderTip();
    fireEvent.scroll(other);
    expect(tip.hidden).toBe(false);
    fireEvent.scroll(screen.getByTestId("pane"));
    expect(tip.hidden).toBe(true);
    other.remove();
  });

  it("leaves the page with its button", () => {
    const { tip, unmount } = renderTip();
    expect(tip.isConnected).toBe(true);
    unmount();
    expect(tip.isConnected).toBe(false);
  });
});

describe("focus a closing dialog gives back", () => {
  it("shows no tooltip when the focus follows the pointer, and shows one when it follows a key", () => {
    const { container } = render(
      <Tip text="Message…: steer it">
        <button type="button">M</button>
      </Tip>,
    );
    const button = container.querySelector("button")!;
    const shown = () => container.ownerDocument.querySelector("[role=tooltip]:not([hidden])");
    fireEvent.pointerDown(document.body);
    act(() => button.focus());
    act(() => vi.advanceTimersByTime(2_000));
    expect(shown()).toBeNull();
    act(() => button.blur());
    fireEvent.keyDown(document.body, { key: "Tab" });
    act(() => button.focus());
    act(() => vi.advanceTimersByTime(2_000));
    expect(shown()).not.toBeNull();
  });
});
