/**
 * The top bar: the live session's sandbox badge; what a running session runs
 * on (the demo's sample project and scripted model included) rather than the
 * next session's choices; New session always in place; tooltips that go.
 */
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentTypeInfo, ProviderState } from "../bindings";
import { TIP_DELAY_MS } from "../lib/tooltip";
import { bookFromPast, bookStore } from "../store/review";
import { setFoundTypes } from "../store/delegate";
import { patchUi, uiStore } from "../store/ui";
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

const anthropic: ProviderState = {
  kind: "anthropic",
  label: "Anthropic",
  key_source: "none",
  key_var: "ANTHROPIC_API_KEY",
  base_url: "https://api.anthropic.com",
  default_model: "claude-a",
  ready: false,
  problem: null,
};

/** The tooltip an element's anchor shows, or null while it shows none. */
function shownTip(el: HTMLElement): string | null {
  const tip = el.closest(".tip-anchor")?.querySelector<HTMLElement>("[role=tooltip]");
  return tip && !tip.hidden ? tip.textContent : null;
}

describe("what the top bar says runs", () => {
  it("names the demo's own sample project and scripted model, not the chosen workspace and provider", () => {
    resetStores({
      app: appState({ providers: [anthropic] }),
      workspace: "/home/me/project",
      provider: "anthropic",
      session: sessionInfo({
        workspace: "/tmp/arbor-demo-1700000000000",
        provider: "anthropic",
        model: "arbor-demo-scripted",
        demo: true,
      }),
    });
    render(<TopBar />);
    expect(screen.getByTestId("workspace-path").textContent).toBe("/tmp/arbor-demo-1700000000000");
    expect(screen.getByTestId("session-runs").textContent).toBe("Demo (scripted model)");
    expect(screen.queryByText(/not set up/)).toBeNull();
    expect(screen.queryByTestId("provider-select")).toBeNull();
    // The next session's workspace can't be chosen over a running one: New session first, and it says so.
    const choose = screen.getByTestId("pick-workspace") as HTMLButtonElement;
    expect(choose.disabled).toBe(true);
    expect(document.getElementById(choose.getAttribute("aria-describedby") ?? "")?.textContent).toMatch(/New session/);
  });

  it("names a real session's provider and model as it reported them", () => {
    resetStores({
      app: appState({ providers: [{ ...anthropic, ready: true }] }),
      workspace: "/home/me/other",
      model: "claude-next",
      session: sessionInfo({ workspace: "/home/me/project", model: "claude-test" }),
    });
    render(<TopBar />);
    expect(screen.getByTestId("workspace-path").textContent).toBe("/home/me/project");
    expect(screen.getByTestId("session-runs").textContent).toBe("Anthropic · claude-test");
  });

  it("offers the next session's workspace, provider and model when none runs", () => {
    resetStores({ app: appState({ providers: [anthropic] }), workspace: "/home/me/project", provider: "anthropic" });
    render(<TopBar />);
    expect(screen.getByTestId("workspace-path").textContent).toBe("/home/me/project");
    expect((screen.getByTestId("pick-workspace") as HTMLButtonElement).disabled).toBe(false);
    expect(screen.getByTestId("provider-select").textContent).toBe("Anthropic (not set up)");
    expect(screen.queryByTestId("session-runs")).toBeNull();
  });
});

function agentTypeInfo(name: string): AgentTypeInfo {
  return { name, description: `${name}, for tests`, model: null, provider: null, source: "workspace (.claude)", file: null, acp: null, user: false };
}

describe("the main agent's type", () => {
  it("offers the workspace's agent types for the next session's main agent, and a running one says its type", () => {
    resetStores({ app: appState({ providers: [anthropic] }), workspace: "/home/me/project" });
    setFoundTypes("/home/me/project", [agentTypeInfo("code-reviewer")]);
    render(<TopBar />);
    const select = screen.getByTestId("main-type-select") as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(["Main agent", "as code-reviewer"]);
    fireEvent.change(select, { target: { value: "code-reviewer" } });
    expect(uiStore.get().agentType).toBe("code-reviewer");
    cleanup();
    resetStores({
      app: appState({ providers: [{ ...anthropic, ready: true }] }),
      session: sessionInfo({ model: "claude-test", main_type: "code-reviewer" }),
    });
    render(<TopBar />);
    expect(screen.getByTestId("session-runs").textContent).toBe("code-reviewer · Anthropic · claude-test");
    expect(screen.queryByTestId("main-type-select")).toBeNull();
  });
});

describe("New session", () => {
  it("stays in place, disabled with the reason, while no session is open", () => {
    render(<TopBar />);
    const button = screen.getByTestId("new-session") as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    const reason = document.getElementById(button.getAttribute("aria-describedby") ?? "");
    expect(reason?.textContent).toBe("This is a new session's page: the prompt below starts it");
    // It sits where it will be once a session runs: before History and Settings.
    const order = [...document.querySelectorAll("[data-testid]")].map((e) => e.getAttribute("data-testid"));
    expect(order.slice(-3)).toEqual(["new-session", "history-button", "open-settings"]);
  });

  it("offers another session while one is starting: that one goes on", () => {
    resetStores({ app: appState(), starting: true });
    render(<TopBar />);
    const button = screen.getByTestId("new-session") as HTMLButtonElement;
    expect(button.disabled).toBe(false);
  });

  it("opens a fresh page when a session is open", () => {
    resetStores({ app: appState(), session: sessionInfo() });
    render(<TopBar />);
    const button = screen.getByTestId("new-session") as HTMLButtonElement;
    expect(button.disabled).toBe(false);
    fireEvent.click(button);
    expect(screen.getByTestId("new-session")).toBeTruthy();
    expect((screen.getByTestId("new-session") as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("toolbar tooltips", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("show after a rest, not on the native title, and go on a press", () => {
    render(<TopBar />);
    const settings = screen.getByTestId("open-settings");
    expect(settings.getAttribute("title")).toBeNull();
    expect(settings.getAttribute("aria-label")).toBe("Settings");
    fireEvent.pointerEnter(settings.closest(".tip-anchor") as HTMLElement);
    expect(shownTip(settings)).toBeNull();
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
    expect(shownTip(settings)).toBe("Settings");
    fireEvent.pointerDown(settings);
    expect(shownTip(settings)).toBeNull();
    // Still over the button after the press: it stays away until the pointer leaves.
    fireEvent.pointerEnter(settings.closest(".tip-anchor") as HTMLElement);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
    expect(shownTip(settings)).toBeNull();
  });

  it("shows a disabled button's reason on hover", () => {
    render(<TopBar />);
    const button = screen.getByTestId("new-session");
    fireEvent.pointerEnter(button.closest(".tip-anchor") as HTMLElement);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
    expect(shownTip(button)).toBe("This is a new session's page: the prompt below starts it");
  });

  it("does not stay when the button now does something else", () => {
    resetStores({ app: appState(), session: sessionInfo() });
    render(<TopBar />);
    const button = screen.getByTestId("new-session");
    fireEvent.pointerEnter(button.closest(".tip-anchor") as HTMLElement);
    act(() => vi.advanceTimersByTime(TIP_DELAY_MS));
    expect(shownTip(button)).toMatch(/^Start another session/);
    act(() => patchUi({ session: null }));
    expect(shownTip(screen.getByTestId("new-session"))).toBeNull();
  });
});
