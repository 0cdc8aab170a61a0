/** The Export… menu: its tooltip never covers the menu it opened. */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TIP_DELAY_MS } from "../lib/tooltip";
import { resetStores } from "../test/stores";
import { ExportMenu } from "./ExportMenu";

vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: {},
}));

function tip(): HTMLElement {
  const el = screen.getByTestId("export-menu").closest(".tip-anchor")?.querySelector<HTMLElement>("[role=tooltip]");
  if (!el) throw new Error("no tooltip");
  return el;
}

beforeEach(() => {
  resetStores();
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("ExportMenu", () => {
  it("hides its tooltip when pressed and keeps it away while the menu is open", () => {
    render(<ExportMenu agentId="agent-main" />);
    const button = screen.getByTestId("export-menu");
    expect(button.getAttribute("title")).toBeNull();
    const anchor = button.closest(".tip-anchor") as HTMLElement;
    fireEvent.pointerEnter(anchor);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
    expect(tip().hidden).toBe(false);
    expect(button.getAttribute("aria-describedby")).toBe(tip().id);

    fireEvent.pointerDown(button);
    fireEvent.click(button);
    expect(screen.getByRole("menu")).toBeTruthy();
    expect(tip().hidden).toBe(true);
    // The pointer comes back over the button (or focus arrives) while the menu is open: still no tooltip.
    fireEvent.pointerLeave(anchor);
    fireEvent.pointerEnter(anchor);
    fireEvent.focus(button);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS * 2));
    expect(tip().hidden).toBe(true);

    fireEvent.keyDown(button, { key: "Escape" });
    expect(screen.queryByRole("menu")).toBeNull();
  });

  it("keeps the tooltip away when the menu is opened from the keyboard", () => {
    render(<ExportMenu agentId="agent-main" />);
    const button = screen.getByTestId("export-menu");
    fireEvent.focus(button);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
    expect(tip().hidden).toBe(false);
    fireEvent.keyDown(button, { key: "Enter" });
    fireEvent.click(button);
    expect(screen.getByRole("menu")).toBeTruthy();
    expect(tip().hidden).toBe(true);
  });
});
