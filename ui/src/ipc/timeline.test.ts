import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bookStore, pagesOf } from "../store/review";
import { applyFrames, timelineStore } from "../store/timeline";
import { uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent } from "../test/past";
import { applyEvents, resetStores, sessionInfo } from "../test/stores";
import { initialSession } from "../store/session/reducer";
import { openSlot } from "../store/sessionStore";
import { seg, storedTimeline, timelineUpdate } from "../test/timeline";
import { installHistoryEffects, openPastSession } from "./history";
import { ensureTimeline, loadTimeline, showInOutput } from "./timeline";

const commands = {
  openSession: vi.fn(),
  loadTranscript: vi.fn(),
  sessionChanges: vi.fn(),
  sessionTimeline: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));

const ok = <T>(data: T) => Promise.resolve({ status: "ok" as const, data });
const fail = (message: string) => Promise.resolve({ status: "error" as const, error: { kind: "store", message } });

let off: () => void = () => undefined;
beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.sessionChanges.mockReturnValue(ok([]));
  resetStores();
  off = installHistoryEffects();
});
afterEach(() => off());

/** A stored session of a main agent and one child, opened for review. */
async function openPast() {
  const e = eventMaker("s-past");
  const events = [e.started("agent-main", null, "main"), e.started("agent-fish", "agent-main", "Find the fish")];
  const agents = [storedAgent("agent-main", null), storedAgent("agent-fish", "agent-main", { description: "Find the fish" })];
  commands.openSession.mockReturnValue(ok(pastSession(events, agents)));
  await openPastSession("s-past");
  return e;
}

describe("the stored timeline", () => {
  it("is loaded once when a past session's timeline is first shown", async () => {
    await openPast();
    const stored = storedTimeline({ "agent-main": { segments: [seg("model", 0, 10)] }, "agent-fish": { segments: [seg("queued", 1, 5)], waiting: 7 } }, 7);
    commands.sessionTimeline.mockReturnValue(ok(stored));
    await ensureTimeline("s-past");
    await ensureTimeline("s-past");
    expect(commands.sessionTimeline).toHaveBeenCalledTimes(1);
    expect(commands.sessionTimeline).toHaveBeenCalledWith("s-past");
    const t = timelineStore.get()["s-past"];
    expect(t?.load).toBe("loaded");
    expect(t?.lanes["agent-fish"]).toEqual({ segments: [seg("queued", 1, 5)], waitingMs: 7 });
    expect(t?.waitingMs).toBe(7);
  });

  it("is not asked for a session this window started: its frames brought all of it", async () => {
    uiStore.set((s) => ({ ...s, session: sessionInfo() }));
    applyEvents([eventMaker().started("agent-main", null, "main")]);
    applyFrames("s-1", [timelineUpdate([["agent-main", 0, seg("model", 0, null)]])]);
    await ensureTimeline("s-1");
    expect(commands.sessionTimeline).not.toHaveBeenCalled();
    expect(timelineStore.get()["s-1"]?.lanes["agent-main"]?.segments).toHaveLength(1);
  });

  it("keeps a failure to show, and loads again on Retry", async () => {
    await openPast();
    commands.sessionTimeline.mockReturnValueOnce(fail("the transcript database is locked"));
    await ensureTimeline("s-past");
    expect(timelineStore.get()["s-past"]).toMatchObject({ load: "error", error: "the transcript database is locked" });
    commands.sessionTimeline.mockReturnValueOnce(ok(storedTimeline({ "agent-main": { segments: [seg("model", 0, 10)] } })));
    await loadTimeline("s-past");
    expect(timelineStore.get()["s-past"]).toMatchObject({ load: "loaded", error: null });
  });

  it("goes under the segments frames brought while it loaded (a resumed session)", async () => {
    await openPast();
    let answer: (v: unknown) => void = () => undefined;
    commands.sessionTimeline.mockReturnValue(new Promise((r) => (answer = r)));
    const loading = ensureTimeline("s-past");
    applyFrames("s-past", [timelineUpdate([["agent-main", 1, seg("model", 50, null)]])]);
    answer({ status: "ok", data: storedTimeline({ "agent-main": { segments: [seg("model", 0, 10)] } }) });
    await loading;
    expect(timelineStore.get()["s-past"]?.lanes["agent-main"]?.segments).toEqual([seg("model", 0, 10), seg("model", 50, null)]);
  });

  it("forgets the timelines of sessions no longer shown, never a live one's, displayed or not", async () => {
    applyFrames("s-old", [timelineUpdate([["agent-x", 0, seg("model", 0, 1)]])]);
    // Two live sessions; the first is out of sight behind the second.
    for (const id of ["s-live-1", "s-live-2"]) {
      openSlot(initialSession());
      applyEvents([eventMaker(id).started(`${id}-main`, null, "main")]);
      applyFrames(id, [timelineUpdate([[`${id}-main`, 0, seg("model", 0, null)]])]);
    }
    await openPast();
    commands.sessionTimeline.mockReturnValue(ok(storedTimeline({})));
    await ensureTimeline("s-past");
    expect(Object.keys(timelineStore.get()).sort()).toEqual(["s-live-1", "s-live-2", "s-past"]);
  });
});

describe("showInOutput", () => {
  it("selects the agent and scrolls its output to the segment's event", () => {
    applyEvents([eventMaker().started("agent-main", null, "main")]);
    uiStore.set((s) => ({ ...s, sessionView: "timeline", outputTab: "changes" }));
    showInOutput("agent-main", 12);
    expect(uiStore.get()).toMatchObject({
      selected: "agent-main",
      sessionView: "agent",
      outputTab: "output",
      focus: { agentId: "agent-main", seq: 12 },
    });
  });

  it("loads a stored agent's transcript down to the event first, asking for its newest page once", async () => {
    const e = await openPast();
    const early = e.make("agent-fish", { type: "response", content: "looking" });
    const late = e.make("agent-fish", { type: "response", content: "found" });
    commands.loadTranscript
      .mockReturnValueOnce(ok({ events: [late], more_before: true }))
      .mockReturnValueOnce(ok({ events: [early], more_before: false }));
    showInOutput("agent-fish", early.seq);
    await vi.waitFor(() => expect(commands.loadTranscript).toHaveBeenCalledTimes(2));
    expect(commands.loadTranscript.mock.calls).toEqual([
      ["s-past", "agent-fish", null],
      ["s-past", "agent-fish", late.seq],
    ]);
    await vi.waitFor(() => expect(pagesOf(bookStore.get().review!, "agent-fish").oldest).toBe(early.seq));
    expect(uiStore.get().focus).toEqual({ agentId: "agent-fish", seq: early.seq });
  });
});
