/** The top bar's sandbox badge: what the live session's commands run in. */
import { render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { bookFromPast, bookStore } from "../store/review";
import { pastSession } from "../test/past";
import { appState, resetStores, sessionInfo } from "../test/stores";
import { TopBar } from "./TopBar";

vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: {},
}));

beforeEach(() => resetStores({ app: appState() }));

describe("the session's sandbox badge", () => {
  it("says a sandboxed session is sandboxed, with the details in its tooltip", () => {
    resetStores({ app: appState(), session: sessionInfo() });
    render(<TopBar />);
    const badge = screen.getByTestId("session-sandbox");
    expect(badge.dataset.state).toBe("sandboxed");
    expect(badge.textContent).toBe("Sandboxed");
    expect(badge.getAttribute("title")).toContain("bubblewrap 0.8.0");
    expect(badge.getAttribute("title")).toContain("Network: off");
    expect(badge.getAttribute("title")).toContain("May write: /work/demo");
  });

  it("warns when the session's commands are not sandboxed, saying why", () => {
    resetStores({
      app: appState(),
      session: sessionInfo({ sandbox: { state: "unavailable", reason: "bwrap cannot create a user namespace" } }),
    });
    render(<TopBar />);
    const badge = screen.getByTestId("session-sandbox");
    expect(badge.dataset.state).toBe("unavailable");
    expect(badge.textContent).toBe("Not sandboxed");
    expect(badge.className).toContain("open");
    expect(badge.getAttribute("title")).toContain("bwrap cannot create a user namespace");
  });

  it("says so when the sandbox is off", () => {
    resetStores({ app: appState(), session: sessionInfo({ sandbox: { state: "off" } }) });
    render(<TopBar />);
    const badge = screen.getByTestId("session-sandbox");
    expect(badge.dataset.state).toBe("off");
    expect(badge.textContent).toBe("Not sandboxed");
  });

  it("shows nothing before a session starts", () => {
    render(<TopBar />);
    expect(screen.queryByTestId("session-sandbox")).toBeNull();
  });

  it("shows nothing over a past session under review", () => {
    resetStores({ app: appState(), session: sessionInfo() });
    bookStore.set({ review: bookFromPast(pastSession([], [])), live: null });
    render(<TopBar />);
    expect(screen.queryByTestId("session-sandbox")).toBeNull();
  });
});
