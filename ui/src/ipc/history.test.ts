import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../bindings";
import { historyStore } from "../store/history";
import { bookStore, pagesOf } from "../store/review";
import { enqueueFrame, flushEvents, liveStore, sessionStore, slotStateOf } from "../store/sessionStore";
import { trustStore } from "../store/trust";
import { select, uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent, summary } from "../test/past";
import { applyEvents, appState, continuedFrom, frameOf, resetStores, sessionInfo } from "../test/stores";
import { agentUsage, figures, usageUpdate } from "../test/usage";
import {
  closeReview,
  continueReviewed,
  exportTranscript,
  installHistoryEffects,
  loadEarlier,
  loadHistory,
  openPastSession,
  runSearch,
  setHistoryFilter,
  setHistoryStatus,
  setSearchText,
} from "./history";
import { switchSession } from "./sessions";
import { channels } from "../test/channels";

const commands = {
  // The generation of the page asking (the shell's, src-tauri/src/bridge.rs).
  thisPage: vi.fn(() => Promise.resolve(7)),
  listSessions: vi.fn(),
  openSession: vi.fn(),
  loadTranscript: vi.fn(),
  searchTranscripts: vi.fn(),
  exportSession: vi.fn(),
  resumeSession: vi.fn(),
  closeSession: vi.fn(),
  sendCommand: vi.fn(),
  workspaceMcp: vi.fn(),
  trustWorkspaceMcp: vi.fn(),
};
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
const save = vi.fn();
vi.mock("@tauri-apps/plugin-dialog", () => ({ save: (...a: unknown[]) => save(...a), open: vi.fn() }));
vi.mock("@tauri-apps/api/core", async () => ({ Channel: (await import("../test/channels")).FakeChannel }));

const ok = <T>(data: T) => Promise.resolve({ status: "ok" as const, data });
const fail = (message: string) => Promise.resolve({ status: "error" as const, error: { kind: "store", message } });

let off: () => void = () => undefined;
beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  // No .mcp.json in the stored sessions' workspace unless a test says so: nothing is asked.
  commands.workspaceMcp.mockResolvedValue(null);
  commands.closeSession.mockResolvedValue({ status: "ok", data: appState() });
  save.mockReset();
  channels.length = 0;
  resetStores();
  off = installHistoryEffects();
});
afterEach(() => {
  off();
  vi.useRealTimers();
});

/** A stored session: main (its newest page loaded) and a child whose transcript is paged. */
function stored() {
  const e = eventMaker("s-past");
  const skeleton = [
    e.started("agent-main", null, "main"),
    e.status("agent-main", "running"),
    e.started("agent-fish", "agent-main", "Find the fish"),
    e.status("agent-fish", "running"),
  ];
  const fishTask = e.make("agent-fish", { type: "user_message", content: "find it" });
  const fishEarly = e.make("agent-fish", { type: "response", content: "looking" });
  const fishHit = e.make("agent-fish", { type: "response", content: "ZEBRAFISH spotted" });
  const fishLate = e.make("agent-fish", { type: "response", content: "done" });
  const end = [e.status("agent-fish", "completed"), e.status("agent-main", "completed")];
  const mainText = e.make("agent-main", { type: "response", content: "All done" });
  const agents = [storedAgent("agent-main", null), storedAgent("agent-fish", "agent-main", { description: "Find the fish" })];
  const past = pastSession([...skeleton, ...end, mainText], agents);
  return { e, past, fishTask, fishEarly, fishHit, fishLate };
}

function liveSession(): AgentEvent[] {
  const live = eventMaker("s-1");
  const events = [live.started("agent-live", null, "main"), live.status("agent-live", "running")];
  uiStore.set((s) => ({ ...s, session: sessionInfo({ main_agent_id: "agent-live" }), selected: "agent-live" }));
  applyEvents(events);
  return events;
}

describe("the history list", () => {
  it("lists with the filters, and reloads once typing pauses", async () => {
    vi.useFakeTimers();
    commands.listSessions.mockReturnValue(ok([summary()]));
    await loadHistory();
    expect(commands.listSessions).toHaveBeenLastCalledWith({ text: null, status: null, offset: 0 });
    expect(historyStore.get()).toMatchObject({ loading: false, error: null, more: false });
    expect(historyStore.get().sessions).toHaveLength(1);

    setHistoryFilter("po");
    setHistoryFilter("pond ");
    expect(commands.listSessions).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(300);
    expect(commands.listSessions).toHaveBeenCalledTimes(2);
    expect(commands.listSessions).toHaveBeenLastCalledWith({ text: "pond", status: null, offset: 0 });

    setHistoryStatus("failed");
    await vi.advanceTimersByTimeAsync(0);
    expect(commands.listSessions).toHaveBeenLastCalledWith({ text: "pond", status: "failed", offset: 0 });
  });

  it("shows the backend's error", async () => {
    commands.listSessions.mockReturnValue(fail("the transcript database /d/arbor.db is locked"));
    await loadHistory();
    expect(historyStore.get()).toMatchObject({ loading: false, error: "the transcript database /d/arbor.db is locked" });
  });

  it("searches on demand", async () => {
    const hit = { session_id: "s-past", session_prompt: "p", agent_id: "agent-fish", agent_path: ["main", "Find the fish"], seq: 7, ts: 0, event_type: "response", snippet: "[ZEBRAFISH]" };
    commands.searchTranscripts.mockReturnValue(ok([hit]));
    setSearchText("  ZEBRAFISH ");
    await runSearch();
    expect(commands.searchTranscripts).toHaveBeenCalledWith("ZEBRAFISH");
    expect(historyStore.get()).toMatchObject({ searched: "ZEBRAFISH", searching: false, hits: [hit] });
  });
});

describe("reviewing a past session", () => {
  it("shows it in place of the live session, which goes on out of sight and comes back", async () => {
    liveSession();
    const { past, fishEarly, fishHit, fishLate } = stored();
    commands.openSession.mockReturnValue(ok(past));
    expect(await openPastSession("s-past")).toBe(true);
    expect(commands.openSession).toHaveBeenCalledWith("s-past");
    expect(bookStore.get().review?.sessionId).toBe("s-past");
    expect(sessionStore.get().sessionId).toBe("s-past");
    expect(Object.keys(sessionStore.get().agents)).toEqual(["agent-main", "agent-fish"]);
    expect(uiStore.get()).toMatchObject({ view: "session", selected: null });

    // Selecting the child loads its newest page, once.
    commands.loadTranscript.mockReturnValue(ok({ events: [fishHit, fishLate], more_before: true }));
    select("agent-fish");
    await vi.waitFor(() => expect(pagesOf(bookStore.get().review!, "agent-fish").status).toBe("loaded"));
    expect(commands.loadTranscript).toHaveBeenCalledWith("s-past", "agent-fish", null);
    expect(sessionStore.get().agents["agent-fish"]?.items.map((i) => i.kind)).toEqual(["response", "response"]);
    select(null);
    select("agent-fish");
    expect(commands.loadTranscript).toHaveBeenCalledTimes(1);

    // "Load earlier" asks for the events before the oldest loaded one.
    commands.loadTranscript.mockReturnValue(ok({ events: [fishEarly], more_before: false }));
    await loadEarlier("agent-fish");
    expect(commands.loadTranscript).toHaveBeenLastCalledWith("s-past", "agent-fish", fishHit.seq);
    expect(sessionStore.get().agents["agent-fish"]?.items).toHaveLength(3);

    // Meanwhile the live session went on; back to it, with its selection.
    const live = eventMaker("s-1");
    live.make("agent-live", { type: "thoughts", content: "skip seq 1" });
    live.make("agent-live", { type: "thoughts", content: "skip seq 2" });
    enqueueFrame(frameOf([live.make("agent-live", { type: "response", content: "still live" })]));
    flushEvents();
    expect(sessionStore.get().sessionId).toBe("s-past");
    closeReview();
    expect(bookStore.get().review).toBeNull();
    expect(sessionStore.get().sessionId).toBe("s-1");
    expect(sessionStore.get().agents["agent-live"]?.items).toMatchObject([{ kind: "response", text: "still live" }]);
    expect(uiStore.get().selected).toBe("agent-live");
  });

  it("opens a search hit at its agent, loading pages back to the hit", async () => {
    const { past, fishTask, fishEarly, fishHit, fishLate } = stored();
    commands.openSession.mockReturnValue(ok(past));
    commands.loadTranscript
      .mockReturnValueOnce(ok({ events: [fishLate], more_before: true }))
      .mockReturnValueOnce(ok({ events: [fishEarly, fishHit], more_before: true }));
    // The last-used tabs were the timeline and the changes: the passage is in the output.
    uiStore.set((s) => ({ ...s, sessionView: "timeline", outputTab: "changes" }));
    await openPastSession("s-past", { agentId: "agent-fish", seq: fishHit.seq });
    expect(uiStore.get()).toMatchObject({ sessionView: "agent", outputTab: "output" });
    expect(commands.loadTranscript.mock.calls).toEqual([
      ["s-past", "agent-fish", null],
      ["s-past", "agent-fish", fishLate.seq],
    ]);
    expect(uiStore.get()).toMatchObject({ selected: "agent-fish", focus: { agentId: "agent-fish", seq: fishHit.seq } });
    const fish = sessionStore.get().agents["agent-fish"];
    expect(fish?.items.map((i) => (i.kind === "response" ? i.text : i.kind))).toEqual(["looking", "ZEBRAFISH spotted", "done"]);
    expect(pagesOf(bookStore.get().review!, "agent-fish")).toMatchObject({ moreBefore: true, oldest: fishEarly.seq });
    expect(fishTask.seq).toBeLessThan(fishEarly.seq);
  });

  it("reports a session that cannot be opened and stays where it was", async () => {
    liveSession();
    commands.openSession.mockReturnValue(fail("no stored session s-x"));
    expect(await openPastSession("s-x")).toBe(false);
    expect(uiStore.get().errors.map((e) => e.message)).toEqual(["Could not open the session: no stored session s-x"]);
    expect(sessionStore.get().sessionId).toBe("s-1");
  });
});

describe("continuing a reviewed session", () => {
  it("makes it the live session: what was loaded stays, live events follow and later pages merge", async () => {
    liveSession();
    const { past, fishHit } = stored();
    commands.openSession.mockReturnValue(ok(past));
    await openPastSession("s-past");
    let resolve: (v: unknown) => void = () => undefined;
    commands.resumeSession.mockReturnValue(new Promise((r) => (resolve = r)));
    const done = continueReviewed("  keep going ");
    await vi.waitFor(() => expect(commands.resumeSession).toHaveBeenCalledWith("s-past", "keep going", 7, expect.anything()));
    expect(uiStore.get().starting).toBe(true);
    // Events that come before the answer wait for it.
    const e = eventMaker("s-past");
    for (let i = 0; i < 20; i++) e.make("agent-main", { type: "thoughts", content: "" });
    const liveMsg = e.make("agent-main", { type: "user_message", content: "keep going" });
    // Rust's frame carries the main agent as its events left it (from its stored state).
    const storedMain = past.detail.agents.find((a) => a.id === "agent-main");
    if (!storedMain) throw new Error("the past session has its main agent");
    const mainNow = { ...storedMain, status: "running" as const, ended_at: null, run_started_at: liveMsg.ts };
    channels.at(-1)?.onmessage({ ...frameOf([liveMsg, e.status("agent-main", "running")]), agents: [mainNow] });
    flushEvents();
    expect(sessionStore.get().agents["agent-main"]?.status).toBe("completed");
    resolve({ status: "ok", data: continuedFrom(past) });
    expect(await done).toBe(true);
    flushEvents();
    expect(bookStore.get()).toMatchObject({ review: null, live: { sessionId: "s-past" } });
    expect(bookStore.get().live?.agents).toContainEqual(mainNow);
    expect(uiStore.get()).toMatchObject({ starting: false, session: { session_id: "s-past" } });
    const main = sessionStore.get().agents["agent-main"];
    expect(main?.status).toBe("running");
    expect(main?.items.map((i) => i.kind)).toEqual(["response", "user"]);

    // A stored child's page, loaded now, merges under the live events.
    commands.loadTranscript.mockReturnValue(ok({ events: [fishHit], more_before: false }));
    select("agent-fish");
    await vi.waitFor(() => expect(sessionStore.get().agents["agent-fish"]?.items).toHaveLength(1));
    expect(sessionStore.get().agents["agent-main"]?.status).toBe("running");
  });

  it("reads a stored page only up to where its frames begin: a streamed reply is never shown twice", async () => {
    const { past, fishHit } = stored();
    commands.openSession.mockReturnValue(ok(past));
    await openPastSession("s-past");
    commands.resumeSession.mockReturnValue(ok(continuedFrom(past)));
    expect(await continueReviewed("")).toBe(true);
    // The fish goes on: three chunks arrive as one frame, merged into the first (seq 12).
    const e = eventMaker("s-past");
    const chunks = Array.from({ length: 14 }, (_, i) => e.make("agent-fish", { type: "response_chunk", content: i < 11 ? "" : "go" }));
    const first = chunks[11];
    if (!first) throw new Error("fourteen chunks");
    const merged: AgentEvent = { ...first, type: "response_chunk", content: "gogogo" };
    channels.at(-1)?.onmessage({ ...frameOf([merged]), through: 14 });
    // A frame that ends at or before the stored part (sent before the channel was this window's) is dropped.
    channels.at(-1)?.onmessage(frameOf([e.make("agent-fish", { type: "response", content: "stale" })].map((x) => ({ ...x, seq: 9 }))));
    flushEvents();
    // Selecting the fish reads its stored page below seq 12: the store's own chunks 12–14 stay out.
    commands.loadTranscript.mockReturnValue(ok({ events: [fishHit], more_before: false }));
    select("agent-fish");
    await vi.waitFor(() => expect(commands.loadTranscript).toHaveBeenCalledWith("s-past", "agent-fish", 12));
    await vi.waitFor(() => expect(sessionStore.get().agents["agent-fish"]?.items).toHaveLength(2));
    const texts = sessionStore.get().agents["agent-fish"]?.items.map((i) => ("text" in i ? i.text : i.kind));
    expect(texts).toEqual(["ZEBRAFISH spotted", "gogogo"]);
  });

  it("shows the live session live again when it is the one reviewed, sending the prompt to it", async () => {
    const liveEvents = liveSession();
    const { past } = stored();
    commands.openSession.mockReturnValueOnce(ok({ ...past, detail: { ...past.detail, session: { ...past.detail.session, id: "s-1" } } }));
    await openPastSession("s-1");
    commands.sendCommand.mockReturnValue(ok({ kind: "done" }));
    expect(await continueReviewed(" and now? ")).toBe(true);
    // A live session is not launched twice: the window goes back to it.
    expect(commands.resumeSession).not.toHaveBeenCalled();
    expect(bookStore.get().review).toBeNull();
    expect(sessionStore.get().lastSeq).toBe(liveEvents.at(-1)?.seq);
    expect(commands.sendCommand).toHaveBeenCalledWith("s-1", { type: "send_message", agent_id: null, text: "and now?" });
  });

  it("continues beside the session this window ran, which goes on and is shown again as it was left", async () => {
    liveSession();
    const { past } = stored();
    commands.openSession.mockReturnValue(ok(past));
    await openPastSession("s-past");
    commands.resumeSession.mockReturnValue(ok(continuedFrom(past)));
    expect(await continueReviewed("")).toBe(true);
    expect(commands.closeSession).not.toHaveBeenCalled();
    expect(uiStore.get().session?.session_id).toBe("s-past");
    expect(liveStore.get().slots.map((s) => slotStateOf(s.key).sessionId)).toEqual(["s-1", "s-past"]);
    const first = liveStore.get().slots[0];
    switchSession(first?.key ?? "");
    expect(uiStore.get()).toMatchObject({ selected: "agent-live" });
    expect(uiStore.get().session?.session_id).toBe("s-1");
    expect(sessionStore.get().sessionId).toBe("s-1");
  });

  it("keeps the stored usage figures through closing, reopening and continuing; live frames replace them", async () => {
    liveSession();
    const { past, fishHit } = stored();
    const mainStored = agentUsage("agent-main", figures(100, 0.5), figures(130, 0.75));
    const fishStored = agentUsage("agent-fish", figures(30, 0.25));
    commands.openSession.mockReturnValue(ok({ ...past, usage: usageUpdate([mainStored, fishStored], figures(130, 0.75)) }));
    const usage = () => sessionStore.get().usage;

    await openPastSession("s-past");
    expect(usage().agents).toEqual({ "agent-main": mainStored, "agent-fish": fishStored });
    expect(usage().session).toEqual(figures(130, 0.75));
    // A page rebuilds the displayed state from the book: the figures stay.
    commands.loadTranscript.mockReturnValue(ok({ events: [fishHit], more_before: false }));
    select("agent-fish");
    await vi.waitFor(() => expect(sessionStore.get().agents["agent-fish"]?.items).toHaveLength(1));
    expect(usage().session?.tokens).toBe(130);

    // Back to the live session (which has none yet), then the review again.
    closeReview();
    expect(sessionStore.get().sessionId).toBe("s-1");
    expect(usage()).toEqual({ agents: {}, session: null });
    await openPastSession("s-past");
    expect(usage().agents["agent-main"]).toEqual(mainStored);
    expect(usage().session?.tokens).toBe(130);

    // Continued: the stored figures stay until frames replace them.
    commands.resumeSession.mockReturnValue(ok(continuedFrom(past)));
    expect(await continueReviewed("go on")).toBe(true);
    expect(usage().agents["agent-main"]).toEqual(mainStored);
    expect(usage().session?.tokens).toBe(130);

    // The fish used 20 more tokens: Rust sends its and its ancestors' figures, cumulative.
    const e = eventMaker("s-past");
    for (let i = 0; i < 20; i++) e.make("agent-main", { type: "thoughts", content: "" });
    const fishLive = agentUsage("agent-fish", figures(50, 0.3));
    const mainLive = agentUsage("agent-main", figures(100, 0.5), figures(150, 0.8));
    channels.at(-1)?.onmessage(frameOf([e.usage("agent-fish", 20, 0)], { usage: usageUpdate([fishLive, mainLive], figures(150, 0.8)) }));
    flushEvents();
    expect(usage().agents).toEqual({ "agent-main": mainLive, "agent-fish": fishLive });
    expect(usage().session).toEqual(figures(150, 0.8));

    // A stored child's page rebuilds the live state from its book: the latest figures stay.
    commands.loadTranscript.mockReturnValue(ok({ events: [fishHit], more_before: false }));
    select(null);
    select("agent-fish");
    await vi.waitFor(() => expect(sessionStore.get().agents["agent-fish"]?.items).toHaveLength(1));
    expect(usage().agents["agent-fish"]).toEqual(fishLive);
    expect(usage().session).toEqual(figures(150, 0.8));
  });

  it("asks about its workspace's untrusted .mcp.json first: cancel continues nothing, trust trusts then resumes", async () => {
    const { past } = stored();
    commands.openSession.mockReturnValue(ok(past));
    await openPastSession("s-past");
    const file = { workspace: "/home/me/code/pond", path: "/home/me/code/pond/.mcp.json", servers: [], trusted: false, changed_since_trusted: false, sha256: "seen-sha" };
    commands.workspaceMcp.mockResolvedValue(file);
    commands.resumeSession.mockReturnValue(ok(continuedFrom(past)));

    const cancelled = continueReviewed("go");
    await vi.waitFor(() => expect(trustStore.get()?.mcp).toEqual(file));
    expect(commands.workspaceMcp).toHaveBeenCalledWith("/home/me/code/pond");
    trustStore.get()?.answer("cancel");
    expect(await cancelled).toBe(false);
    expect(commands.resumeSession).not.toHaveBeenCalled();
    expect(bookStore.get().review?.sessionId).toBe("s-past");

    commands.trustWorkspaceMcp.mockReturnValue(ok({ ...file, trusted: true }));
    const trusted = continueReviewed("go");
    await vi.waitFor(() => expect(trustStore.get()).not.toBeNull());
    trustStore.get()?.answer("trust");
    expect(await trusted).toBe(true);
    expect(commands.trustWorkspaceMcp).toHaveBeenCalledWith("/home/me/code/pond", "seen-sha");
    expect(commands.trustWorkspaceMcp.mock.invocationCallOrder[0]).toBeLessThan(
      commands.resumeSession.mock.invocationCallOrder[0] ?? 0,
    );
  });

  it("leaves the live session alone when the backend refuses", async () => {
    const liveEvents = liveSession();
    const { past } = stored();
    commands.openSession.mockReturnValue(ok(past));
    await openPastSession("s-past");
    commands.resumeSession.mockReturnValue(fail("no provider is set up"));
    expect(await continueReviewed("")).toBe(false);
    expect(commands.resumeSession).toHaveBeenCalledWith("s-past", null, 7, expect.anything());
    expect(uiStore.get().errors.map((e) => e.message)).toEqual(["Could not continue the session: no provider is set up"]);
    expect(bookStore.get().review?.sessionId).toBe("s-past");
    closeReview();
    expect(sessionStore.get().lastSeq).toBe(liveEvents.at(-1)?.seq);
    expect(commands.closeSession).not.toHaveBeenCalled();
  });
});

describe("export", () => {
  it("asks where to save, exports there and says where it went", async () => {
    liveSession();
    save.mockResolvedValue("/tmp/out.md");
    commands.exportSession.mockReturnValue(ok("/tmp/out.md"));
    await exportTranscript(null, "markdown");
    expect(save).toHaveBeenCalledWith({ defaultPath: "arbor-s-1.md", filters: [{ name: "Markdown", extensions: ["md"] }] });
    expect(commands.exportSession).toHaveBeenCalledWith("s-1", null, "markdown", "/tmp/out.md");
    expect(uiStore.get().errors).toMatchObject([{ kind: "info", message: "Exported to /tmp/out.md" }]);
  });

  it("does nothing when the dialog is cancelled, and reports a failed write", async () => {
    liveSession();
    save.mockResolvedValue(null);
    await exportTranscript("agent-live", "json");
    expect(save).toHaveBeenCalledWith({
      defaultPath: "arbor-s-1-agent-live.json",
      filters: [{ name: "JSON", extensions: ["json"] }],
    });
    expect(commands.exportSession).not.toHaveBeenCalled();
    save.mockResolvedValue("/ro/x.json");
    commands.exportSession.mockReturnValue(fail("cannot write /ro/x.json: read-only file system"));
    await exportTranscript("agent-live", "json");
    expect(uiStore.get().errors).toMatchObject([
      { kind: "error", message: "Export failed: cannot write /ro/x.json: read-only file system" },
    ]);
  });
});
