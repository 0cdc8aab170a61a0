/** A new session's warnings (files and configs it could not use) as dismissible banners beside errors. */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { startDemo } from "../ipc/actions";
import { uiStore } from "../store/ui";
import { resetStores, sessionInfo } from "../test/stores";
import { ErrorBanners } from "./ErrorBanners";

const startDemoCmd = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { startDemo: (...a: unknown[]) => startDemoCmd(...a) },
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
});
