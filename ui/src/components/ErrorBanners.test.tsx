/** A new session's warnings (files and configs it could not use) as dismissible banners beside errors. */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { startDemo } from "../ipc/actions";
import { newSession } from "../ipc/sessions";
import { ERROR_MS, pushError, uiStore } from "../store/ui";
import { resetStores, sessionInfo } from "../test/stores";
import { ErrorBanners } from "./ErrorBanners";

const startDemoCmd = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { startDemo: (...a: unknown[]) => startDemoCmd(...a), thisPage: () => Promise.resolve(7) },
}));
vi.mock("@tauri-apps/api/core", () => ({ Channel: class {} }));

beforeEach(() => {
  startDemoCmd.mockReset();
  resetStores();
});

describe("ErrorBanners", () => {
  it("shows each warning of a new session until it is dismissed, not as a modal", async () => {
    const warnings = [".claude/agents/bad.md: no description", ".mcp.json: not valid JSON"];
    startDemoCmd.mockResolvedValue({ status: "ok", data: sessionInfo({ warnings }) });
    render(<ErrorBanners />);
    await act(async () => {
      await startDemo();
    });
    expect(uiStore.get().session?.warnings).toEqual(warnings);
    expect(screen.queryByRole("dialog")).toBeNull();
    const shown = screen.getAllByTestId("warning");
    expect(shown.map((b) => b.textContent)).toEqual(warnings);
    expect(shown[0]?.className).toContain("warn");
    fireEvent.click(shown[0]!.querySelector('[aria-label="Dismiss"]')!);
    expect(screen.getAllByTestId("warning").map((b) => b.textContent)).toEqual([warnings[1]]);
  });

  it("adds no banner for a session that could use everything", async () => {
    startDemoCmd.mockResolvedValue({ status: "ok", data: sessionInfo() });
    render(<ErrorBanners />);
    await act(async () => {
      await startDemo();
    });
    expect(screen.queryByTestId("warning")).toBeNull();
    expect(uiStore.get().errors).toEqual([]);
  });

  it("lets a failed command's banner go by itself, and clears every banner with New session", async () => {
    vi.useFakeTimers();
    try {
      render(<ErrorBanners />);
      act(() => pushError("Could not stop agent-a: no such agent"));
      expect(screen.getAllByTestId("error")).toHaveLength(1);
      act(() => vi.advanceTimersByTime(ERROR_MS - 1));
      expect(screen.getAllByTestId("error")).toHaveLength(1);
      act(() => vi.advanceTimersByTime(1));
      expect(screen.queryByTestId("error")).toBeNull();
      // A session's warnings stay while it is shown, and go with it.
      act(() => {
        uiStore.set((s) => ({ ...s, errors: [{ id: 999, message: ".mcp.json: not valid JSON", kind: "warning" }] }));
        pushError("Could not send: the session ended");
      });
      expect(screen.getAllByTestId("warning")).toHaveLength(1);
      act(() => newSession());
      expect(screen.queryByTestId("warning")).toBeNull();
      expect(screen.queryByTestId("error")).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});
