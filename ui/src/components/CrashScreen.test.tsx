/** A render error shows what happened and a way back, not a blank window. */
import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CrashScreen } from "./CrashScreen";

const closeWindow = vi.fn(async (_choice: string) => undefined);
vi.mock("../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: { closeWindow: (choice: string) => closeWindow(choice) },
}));

function Broken(): never {
  throw new Error("no such agent: agent-x");
}

afterEach(() => {
  vi.restoreAllMocks();
  closeWindow.mockClear();
});

describe("CrashScreen", () => {
  it("shows its children while they render", () => {
    render(
      <CrashScreen>
        <p>the window</p>
      </CrashScreen>,
    );
    expect(screen.getByText("the window")).toBeTruthy();
    expect(screen.queryByTestId("crash-screen")).toBeNull();
  });

  it("shows the error, and Stop and quit stops the agents the way closing the window does", () => {
    // React reports the error it caught; the screen logs it once more with its component stack.
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
    render(
      <CrashScreen>
        <Broken />
      </CrashScreen>,
    );
    const crash = screen.getByTestId("crash-screen");
    expect(crash.getAttribute("role")).toBe("alert");
    expect(crash.textContent).toContain("Error: no such agent: agent-x");
    expect(screen.getByRole("button", { name: "Reload the window" })).toBeTruthy();
    expect(logged.mock.calls.some((c) => c[0] === "Arbor's window failed to render")).toBe(true);
    // What a reload does: the sessions at work come back.
    expect(crash.textContent).toContain("Reload the window shows the sessions at work again");
    fireEvent.click(screen.getByTestId("crash-stop"));
    expect(closeWindow).toHaveBeenCalledWith("stop");
  });
});
