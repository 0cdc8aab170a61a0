/**
 * Typing must not render the session view: in the whole window (App), a
 * keystroke in the prompt box, the Message… field or the Delegate… task
 * renders that field's own subtree, never the agent tree or the output; and
 * the stream's events never render the prompt box, an open dialog whose
 * agent is the one streaming, or the tree's rows (streamed text is not in
 * them). React's <Profiler> counts the commits of each.
 */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { Profiler, createElement, type ComponentType } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../App";
import { openDialog } from "../store/ui";
import { eventMaker } from "../test/events";
import { withLayout } from "../test/layout";
import { appState, applyEvents, resetStores, sessionInfo } from "../test/stores";

const renders: Record<string, number> = {};

/** `C`, its commits (its own and its children's) counted under `name`. */
function counted<P extends object>(name: string, C: ComponentType<P>): ComponentType<P> {
  return function Counted(props: P) {
    return createElement(
      Profiler,
      { id: name, onRender: () => void (renders[name] = (renders[name] ?? 0) + 1) },
      createElement(C, props),
    );
  };
}

vi.mock("../bindings", async (importOriginal) => ({
  // The real constants; every command stays pending (nothing here waits for one).
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: () => () => new Promise(() => undefined) }),
}));
vi.mock("../ipc/actions", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../ipc/actions")>()),
  installEventEffects: () => () => undefined,
  loadAppState: () => Promise.resolve(),
}));
vi.mock("../ipc/history", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../ipc/history")>()),
  installHistoryEffects: () => () => undefined,
}));
vi.mock("../ipc/approvals", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../ipc/approvals")>()),
  installApprovalEffects: () => () => undefined,
}));
// The window's chrome (out of this test's subject) stays out of it.
vi.mock("./StatusBar", () => ({ StatusBar: () => null }));
vi.mock("./TopBar", () => ({ TopBar: () => null }));
vi.mock("./AgentTree", async (importOriginal) => {
  const m = await importOriginal<typeof import("./AgentTree")>();
  return { ...m, AgentTree: counted("tree", m.AgentTree) };
});
vi.mock("./output/OutputView", async (importOriginal) => {
  const m = await importOriginal<typeof import("./output/OutputView")>();
  return { ...m, OutputView: counted("output", m.OutputView) };
});
vi.mock("./PromptBox", async (importOriginal) => {
  const m = await importOriginal<typeof import("./PromptBox")>();
  return { ...m, PromptBox: counted("prompt", m.PromptBox) };
});
vi.mock("./MessageDialog", async (importOriginal) => {
  const m = await importOriginal<typeof import("./MessageDialog")>();
  return { ...m, MessageDialog: counted("message", m.MessageDialog) };
});
vi.mock("./DelegateDialog", async (importOriginal) => {
  const m = await importOriginal<typeof import("./DelegateDialog")>();
  return { ...m, DelegateDialog: counted("delegate", m.DelegateDialog) };
});

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

const e = eventMaker();

function resetCounts(): void {
  for (const k of Object.keys(renders)) renders[k] = 0;
}

function type(testId: string, text: string): void {
  const field = screen.getByTestId(testId);
  for (let i = 1; i <= text.length; i++) fireEvent.change(field, { target: { value: text.slice(0, i) } });
}

/** A frame of the stream: both agents answer a little more. */
function stream(): void {
  act(() =>
    applyEvents([
      e.make("agent-main", { type: "response_chunk", content: " and more" }),
      e.make("agent-s", { type: "response_chunk", content: " still going" }),
    ]),
  );
}

beforeEach(() => {
  resetStores({ session: sessionInfo(), app: appState() });
  applyEvents([
    e.started("agent-main", null, "main"),
    e.make("agent-main", { type: "response_chunk", content: "Working on **it**" }),
    e.started("agent-s", "agent-main", "Stream"),
    e.make("agent-s", { type: "response_chunk", content: "Sub output" }),
  ]);
  render(<App />);
  resetCounts();
});

describe("typing", () => {
  it("in the prompt box renders the prompt box alone, and enables Send", () => {
    const send = screen.getByTestId("send") as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    type("prompt-input", "Add tests");
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("Add tests");
    expect(send.disabled).toBe(false);
    expect(renders.prompt).toBeGreaterThan(0);
    expect(renders.tree ?? 0).toBe(0);
    expect(renders.output ?? 0).toBe(0);
  });

  it("leaves the prompt box alone while events stream in (and the views that show them do render)", () => {
    type("prompt-input", "draft");
    resetCounts();
    stream();
    stream();
    expect(renders.output).toBeGreaterThan(0);
    // Streamed text is not in the tree's rows: they render for what they show (a status, here).
    expect(renders.tree ?? 0).toBe(0);
    act(() => applyEvents([e.status("agent-s", "waiting_approval")]));
    expect(renders.tree).toBeGreaterThan(0);
    expect(renders.prompt ?? 0).toBe(0);
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("draft");
  });

  it("in the Message… field renders the dialog alone, and its agent's events do not render it", () => {
    act(() => openDialog({ kind: "message", agentId: "agent-main" }));
    resetCounts();
    type("message-text", "Stop after the tests");
    expect(renders.message).toBeGreaterThan(0);
    expect(renders.tree ?? 0).toBe(0);
    expect(renders.output ?? 0).toBe(0);
    expect(renders.prompt ?? 0).toBe(0);
    resetCounts();
    stream();
    expect(renders.output).toBeGreaterThan(0);
    expect(renders.message ?? 0).toBe(0);
    expect((screen.getByTestId("message-text") as HTMLTextAreaElement).value).toBe("Stop after the tests");
  });

  it("in the Delegate… task renders the dialog alone, and its parent's events do not render it", () => {
    act(() => openDialog({ kind: "delegate", parentId: "agent-main" }));
    resetCounts();
    type("delegate-prompt", "Write the docs");
    expect(renders.delegate).toBeGreaterThan(0);
    expect(renders.tree ?? 0).toBe(0);
    expect(renders.output ?? 0).toBe(0);
    resetCounts();
    stream();
    expect(renders.output).toBeGreaterThan(0);
    expect(renders.delegate ?? 0).toBe(0);
  });
});
