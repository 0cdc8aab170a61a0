/**
 * Messages in an agent's output as the store feeds them: one sent while the
 * agent works shows as queued at the end until the agent's `user_message`
 * announces it taken, then shows as the person's where the agent read it;
 * Arbor's request to carry on is named Arbor's.
 */
import { act, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../bindings";
import { markQueued, sessionStore, unmarkQueued } from "../../store/sessionStore";
import { eventMaker } from "../../test/events";
import { uiStore } from "../../store/ui";
import { withLayout } from "../../test/layout";
import { arriveFrame, resetStores, sessionInfo } from "../../test/stores";
import { OutputView } from "./OutputView";

vi.mock("../../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: {},
}));

withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 });

let e = eventMaker();

const arrive = (...events: AgentEvent[]) => arriveFrame(events);
const said = (content: string, from: "person" | "arbor") => e.make("agent-main", { type: "user_message", content, from });

/** The output's rows in their order: each row's key, and what it says. */
function rows(): { key: string; text: string }[] {
  return [...screen.getByTestId("output").querySelectorAll<HTMLElement>(".output-row")]
    .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
    .map((r) => ({ key: r.dataset.key ?? "", text: r.textContent ?? "" }));
}
const queuedRows = () => screen.queryAllByTestId("queued-message");

beforeEach(() => {
  e = eventMaker();
  resetStores({ session: sessionInfo() });
  arrive(
    e.started("agent-main", null, "main"),
    said("Fix the build", "person"),
    e.status("agent-main", "running"),
    e.make("agent-main", { type: "response", content: "Reading the log first" }),
  );
});

describe("a message sent while the agent works", () => {
  it("shows as queued at the end, then as the person's where the agent read it", () => {
    render(<OutputView />);
    expect(queuedRows()).toHaveLength(0);

    act(() => markQueued("agent-main", "also check the docs"));
    expect(queuedRows()).toHaveLength(1);
    const last = rows().at(-1);
    expect(last?.key).toMatch(/^queued-/);
    expect(last?.text).toBe("You · queued until its next turn" + "also check the docs");
    expect(queuedRows()[0]?.querySelector(".who")?.textContent).toBe("You · queued until its next turn");

    // The agent goes on with its turn: the message stays queued, after what it writes.
    arrive(e.make("agent-main", { type: "response", content: "The linker fails" }));
    expect(rows().map((r) => r.text.slice(0, 16))).toEqual([
      "YouFix the build",
      "Reading the log ",
      "The linker fails",
      "You · queued unt",
    ]);

    // Its next turn takes it: the announcement replaces the queued row, in the place the agent read it.
    const taken = said("also check the docs", "person");
    arrive(taken);
    expect(queuedRows()).toHaveLength(0);
    expect(sessionStore.get().queued).toEqual([]);
    const read = rows().at(-1);
    expect(read?.key).toBe(`e${taken.seq}`);
    const message = screen.getAllByTestId("user-message").at(-1);
    expect(message?.querySelector(".who")?.textContent).toBe("You");
    expect(message?.textContent).toBe("You" + "also check the docs");
    expect(message?.classList.contains("queued")).toBe(false);

    // What the agent writes next comes after it.
    arrive(e.make("agent-main", { type: "response", content: "The docs agree" }));
    expect(rows().map((r) => r.key).slice(-2)).toEqual([`e${taken.seq}`, expect.stringMatching(/^e\d+$/)]);
    expect(rows().at(-1)?.text.trim()).toBe("The docs agree");
  });

  it("keeps messages in the order sent, and drops one whose sending failed", () => {
    render(<OutputView />);
    act(() => {
      markQueued("agent-main", "first");
      markQueued("agent-main", "second");
    });
    expect(queuedRows().map((r) => r.textContent)).toEqual([
      "You · queued until its next turnfirst",
      "You · queued until its next turnsecond",
    ]);
    act(() => unmarkQueued("agent-main", "first"));
    expect(queuedRows().map((r) => r.textContent)).toEqual(["You · queued until its next turnsecond"]);
  });
});

describe("who wrote a message", () => {
  it("names Arbor's request to carry on Arbor's, not the person's, and leaves the person's queued one waiting", () => {
    render(<OutputView />);
    act(() => markQueued("agent-main", "Continue"));
    arrive(e.status("agent-main", "cancelled"), said("Continue", "arbor"), e.status("agent-main", "running"));
    const messages = screen.getAllByTestId("user-message");
    const arbor = messages.at(-1);
    expect(arbor?.querySelector(".who")?.textContent).toBe("Arbor · sent to carry on the run");
    expect(arbor?.textContent).not.toContain("You");
    expect(arbor?.classList.contains("from-arbor")).toBe(true);
    // The person's own message was not the one taken.
    expect(queuedRows()).toHaveLength(1);
    expect(rows().at(-1)?.key).toMatch(/^queued-/);
  });
});

describe("behind a dialog", () => {
  it("holds the output still while a dialog is open, and catches up when it closes", () => {
    render(<OutputView />);
    act(() => uiStore.set({ ...uiStore.get(), dialog: { kind: "message", agentId: "agent-main" } }));
    arrive(e.make("agent-main", { type: "response_chunk", content: "NEW-WORDS while the dialog is open" }));
    expect(screen.getByTestId("output").textContent).not.toContain("NEW-WORDS");
    act(() => uiStore.set({ ...uiStore.get(), dialog: null }));
    expect(screen.getByTestId("output").textContent).toContain("NEW-WORDS");
  });
});
