/** The live session's rules in force, as frames bring them, through reviews of past sessions and rebuilds of a resumed session's book. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bookStore } from "../store/review";
import { enqueueFrame, flushEvents, liveSession, sessionStore } from "../store/sessionStore";
import { select, uiStore } from "../store/ui";
import { rule } from "../test/approvals";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent } from "../test/past";
import { frameOf, continuedFrom, resetStores, sessionInfo } from "../test/stores";
import { closeReview, continueReviewed, installHistoryEffects, openPastSession } from "./history";
import { channels } from "../test/channels";

const commands = {
  thisPage: vi.fn(() => Promise.resolve(7)),
  openSession: vi.fn(), loadTranscript: vi.fn(), resumeSession: vi.fn(), workspaceMcp: vi.fn() };
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
vi.mock("@tauri-apps/plugin-dialog", () => ({ save: vi.fn(), open: vi.fn() }));
vi.mock("@tauri-apps/api/core", async () => ({ Channel: (await import("../test/channels")).FakeChannel }));

const ok = <T>(data: T) => Promise.resolve({ status: "ok" as const, data });
const ids = (rules: { rule_id: string }[]) => rules.map((r) => r.rule_id);

function stored() {
  const e = eventMaker("s-past");
  const events = [
    e.started("agent-main", null, "main"),
    e.started("agent-fish", "agent-main", "Find the fish"),
    e.status("agent-fish", "completed"),
    e.status("agent-main", "completed"),
  ];
  const fishPage = e.make("agent-fish", { type: "response", content: "found it" });
  const agents = [storedAgent("agent-main", null), storedAgent("agent-fish", "agent-main", { description: "Find the fish" })];
  return { past: pastSession(events, agents), fishPage };
}

let off: () => void = () => undefined;
beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.workspaceMcp.mockResolvedValue(null);
  channels.length = 0;
  resetStores();
  off = installHistoryEffects();
});
afterEach(() => off());

describe("the rules in force", () => {
  it("stay the live session's while a past session is reviewed (it has none), and come back with it", async () => {
    const live = eventMaker("s-1");
    uiStore.set((s) => ({ ...s, session: sessionInfo() }));
    enqueueFrame(frameOf([live.started("agent-main", null, "main")], { rules: [rule("rule-1")] }));
    flushEvents();
    const { past } = stored();
    commands.openSession.mockReturnValue(ok(past));
    await openPastSession("s-past");
    expect(sessionStore.get().sessionId).toBe("s-past");
    expect(sessionStore.get().rules).toEqual([]);
    expect(ids(liveSession.get().rules)).toEqual(["rule-1"]);

    // A rule set meanwhile (in the live session, out of sight) is listed at once.
    enqueueFrame(frameOf([], { rules: [rule("rule-1"), rule("rule-2")] }));
    flushEvents();
    expect(ids(liveSession.get().rules)).toEqual(["rule-1", "rule-2"]);
    expect(sessionStore.get().rules).toEqual([]);

    closeReview();
    expect(sessionStore.get().sessionId).toBe("s-1");
    expect(ids(sessionStore.get().rules)).toEqual(["rule-1", "rule-2"]);
  });

  it("survive rebuilds of a resumed session's book, and a review opened and closed over it", async () => {
    const { past, fishPage } = stored();
    commands.openSession.mockReturnValue(ok(past));
    await openPastSession("s-past");
    commands.resumeSession.mockReturnValue(ok(continuedFrom(past)));
    expect(await continueReviewed("go on")).toBe(true);
    expect(sessionStore.get().rules).toEqual([]);

    const e = eventMaker("s-past");
    for (let i = 0; i < 10; i++) e.make("agent-main", { type: "thoughts", content: "" });
    channels.at(-1)?.onmessage(frameOf([e.status("agent-main", "running")], { rules: [rule("rule-9")] }));
    flushEvents();
    expect(ids(sessionStore.get().rules)).toEqual(["rule-9"]);
    expect(ids(bookStore.get().live?.rules ?? [])).toEqual(["rule-9"]);

    // A stored child's page rebuilds the live state from its book: the rules stay.
    commands.loadTranscript.mockReturnValue(ok({ events: [fishPage], more_before: false }));
    select("agent-fish");
    await vi.waitFor(() => expect(sessionStore.get().agents["agent-fish"]?.items).toHaveLength(1));
    expect(ids(sessionStore.get().rules)).toEqual(["rule-9"]);

    // Another past session reviewed over it, then closed.
    const other = pastSession([eventMaker("s-other").started("agent-x", null, "x")], [storedAgent("agent-x", null)], { id: "s-other" });
    commands.openSession.mockReturnValue(ok(other));
    await openPastSession("s-other");
    expect(sessionStore.get().rules).toEqual([]);
    expect(ids(liveSession.get().rules)).toEqual(["rule-9"]);
    closeReview();
    expect(ids(sessionStore.get().rules)).toEqual(["rule-9"]);
  });
});
