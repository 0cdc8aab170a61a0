import { beforeEach, describe, expect, it, vi } from "vitest";
import type { ApprovalRule, PastSession, SessionInfo } from "../bindings";
import { bookStore } from "../store/review";
import { inboxEntries } from "../store/inbox";
import { flushEvents, liveStore, liveViews, sessionStore, slotStateOf } from "../store/sessionStore";
import { askClose, openDialog, uiStore } from "../store/ui";
import { eventMaker } from "../test/events";
import { pastSession, storedAgent } from "../test/past";
import { frameOf, resetStores, sessionInfo } from "../test/stores";
import { installShownMemory, joinMissing, joinRunning, newSession, openSession, switchSession } from "./sessions";
import { channels } from "../test/channels";

const commands = {
  thisPage: vi.fn(() => Promise.resolve(7)),
  attachSession: vi.fn(), sessionChanges: vi.fn(), appState: vi.fn() };
vi.mock("../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: new Proxy({}, { get: (_t, k: string) => commands[k as keyof typeof commands] }),
}));
vi.mock("@tauri-apps/api/core", async () => ({ Channel: (await import("../test/channels")).FakeChannel }));

const ok = <T>(data: T) => Promise.resolve({ status: "ok" as const, data });
const fail = (kind: string, message: string) => Promise.resolve({ status: "error" as const, error: { kind, message } });

/** A running session as the store holds it: main, and a child waiting for an answer to its Write. */
function running(id: string) {
  const e = eventMaker(id);
  const events = [
    e.started("agent-main", null, "main"),
    e.status("agent-main", "running"),
    e.started("agent-kid", "agent-main", "Write the notes"),
    e.status("agent-kid", "running"),
    e.approval("agent-kid", `req-${id}`, `call-${id}`, ["main", "Write the notes"]),
    e.status("agent-kid", "waiting_approval"),
    e.make("agent-main", { type: "response", content: `working on ${id}` }),
  ];
  const agents = [
    storedAgent("agent-main", null, { status: "running" }),
    storedAgent("agent-kid", "agent-main", { status: "waiting_approval", description: "Write the notes" }),
  ];
  const past: PastSession = { ...pastSession(events, agents, { id }), runs: { kind: "here" } };
  return { e, past, info: sessionInfo({ session_id: id }), through: events.length };
}

function attached(s: ReturnType<typeof running>, rules: ApprovalRule[] = []) {
  return { info: s.info, past: s.past, through: s.through, rules };
}

beforeEach(() => {
  for (const f of Object.values(commands)) f.mockReset();
  commands.sessionChanges.mockReturnValue(ok([]));
  channels.length = 0;
  resetStores();
});

describe("a reloaded window joins the sessions still running", () => {
  it("brings each back live with its cards, shows the one it showed, and takes frames only after the stored part", async () => {
    const a = running("s-a");
    const b = running("s-b");
    commands.attachSession.mockImplementation((id: string) => ok(id === "s-a" ? attached(a) : attached(b)));
    await joinRunning([a.info, b.info], "s-b");

    expect(commands.attachSession).toHaveBeenCalledTimes(2);
    expect(liveStore.get().slots.map((s) => slotStateOf(s.key).sessionId)).toEqual(["s-a", "s-b"]);
    expect(uiStore.get().session?.session_id).toBe("s-b");
    expect(sessionStore.get().sessionId).toBe("s-b");
    expect(bookStore.get().live?.storedThrough).toBe(b.through);
    const text = sessionStore.get().agents["agent-main"]?.items.map((i) => ("text" in i ? i.text : ""));
    expect(text).toContain("working on s-b");
    // Both sessions' waiting calls are in the one inbox, each with its session.
    expect(inboxEntries(liveViews.get()).map((x) => [x.sessionId, x.approval.requestId])).toEqual([
      ["s-a", "req-s-a"],
      ["s-b", "req-s-b"],
    ]);
    // Their earlier file changes were asked for.
    expect(commands.sessionChanges).toHaveBeenCalledWith("s-a", null);

    // s-b's channel: a frame that ends within the stored part is dropped; the next one applies.
    const channel = channels[1];
    if (!channel) throw new Error("one channel per session");
    const stale = b.e.make("agent-main", { type: "response", content: "already stored" });
    channel.onmessage({ ...frameOf([{ ...stale, seq: 3 }]), through: b.through });
    const answered = b.e.resolved("agent-kid", "req-s-b", { type: "approved" } as never);
    channel.onmessage(frameOf([answered]));
    flushEvents();
    const items = sessionStore.get().agents["agent-main"]?.items.map((i) => ("text" in i ? i.text : ""));
    expect(items).not.toContain("already stored");
    expect(inboxEntries(liveViews.get()).map((x) => x.approval.requestId)).toEqual(["req-s-a"]);
  });

  it("joins each session once, however often it is asked", async () => {
    const a = running("s-a");
    commands.attachSession.mockReturnValue(ok(attached(a)));
    await Promise.all([joinRunning([a.info], "s-a"), joinRunning([a.info], "s-a")]);
    await joinRunning([a.info], "s-a");
    expect(commands.attachSession).toHaveBeenCalledTimes(1);
    expect(liveStore.get().slots).toHaveLength(1);
  });

  it("shows a fresh page when the window showed none of them; the rules in force come back", async () => {
    const a = running("s-a");
    const rule = { tool: "Bash", pattern: "cargo test", agent_scope: null } as unknown as ApprovalRule;
    commands.attachSession.mockReturnValue(ok(attached(a, [rule])));
    await joinRunning([a.info], null);
    expect(liveStore.get().slots).toHaveLength(1);
    expect(uiStore.get().session).toBeNull();
    const slot = liveStore.get().slots[0];
    expect(slot && slotStateOf(slot.key).rules).toEqual([rule]);
  });

  it("keeps the session the window shows for the next page; none on a fresh page", async () => {
    const off = installShownMemory();
    const a = running("s-a");
    const b = running("s-b");
    commands.attachSession.mockImplementation((id: string) => ok(id === "s-a" ? attached(a) : attached(b)));
    await joinRunning([a.info, b.info], "s-a");
    expect(window.sessionStorage.getItem("arbor.shownSession")).toBe("s-a");
    const second = liveStore.get().slots[1];
    switchSession(second?.key ?? "");
    expect(window.sessionStorage.getItem("arbor.shownSession")).toBe("s-b");
    newSession();
    expect(window.sessionStorage.getItem("arbor.shownSession")).toBeNull();
    off();
  });

  it("leaves what the person opened meanwhile: a session joined late goes beside it", async () => {
    const a = running("s-a");
    let resolve: (v: unknown) => void = () => undefined;
    commands.attachSession.mockReturnValue(new Promise((r) => (resolve = r)));
    const done = joinRunning([a.info], "s-a");
    await vi.waitFor(() => expect(commands.attachSession).toHaveBeenCalled());
    // The person starts a session while the join waits.
    const mine = openSession();
    resolve({ status: "ok", data: attached(a) });
    await done;
    expect(liveStore.get().current).toBe(mine);
    expect(liveStore.get().slots.map((s) => s.info?.session_id ?? null)).toEqual([null, "s-a"]);
    expect(inboxEntries(liveViews.get()).map((x) => x.approval.requestId)).toEqual(["req-s-a"]);
  });

  it("joins what the shell says a page that went had started, without showing it", async () => {
    const a = running("s-a");
    const b = running("s-b");
    commands.attachSession.mockImplementation((id: string) => ok(id === "s-a" ? attached(a) : attached(b)));
    await joinRunning([a.info], "s-a");
    commands.appState.mockResolvedValue({ sessions: [a.info, b.info] });
    await joinMissing();
    expect(commands.attachSession).toHaveBeenCalledTimes(2);
    expect(liveStore.get().slots.map((s) => slotStateOf(s.key).sessionId)).toEqual(["s-a", "s-b"]);
    expect(uiStore.get().session?.session_id).toBe("s-a");
  });

  it("skips a session closed meanwhile, shown already or refused to a page that is going without a word, and says when one cannot be shown", async () => {
    const a = running("s-a");
    const b = running("s-b");
    const c = running("s-c");
    const d = running("s-d");
    const refusals: Record<string, Promise<unknown>> = {
      "s-a": fail("no_session", "not running"),
      "s-c": fail("already_shown", "shown"),
      "s-d": fail("page_gone", "the page that asked has gone"),
    };
    commands.attachSession.mockImplementation((id: string) => refusals[id] ?? fail("store", "disk I/O error"));
    await joinRunning([a.info, b.info, c.info, d.info] as SessionInfo[], "s-a");
    // Each asked as this page: the shell knows a page that went by the generation it names.
    expect(commands.attachSession.mock.calls.map((c) => c[1])).toEqual([7, 7, 7, 7]);
    expect(liveStore.get().slots).toHaveLength(0);
    expect(uiStore.get().errors.map((e) => e.message)).toEqual([
      "Could not show a running session: disk I/O error. Reloading the window tries again.",
    ]);
  });

  it("leaves the close question open as it shows a joined session; a dialog about an agent goes with its page", async () => {
    const a = running("s-a");
    const b = running("s-b");
    commands.attachSession.mockImplementation((id: string) => ok(id === "s-a" ? attached(a) : attached(b)));
    // The shell asked as the page listened, before the page's join showed the session it showed.
    askClose({ sessionsAtWork: 2 });
    await joinRunning([a.info, b.info], "s-b");
    expect(uiStore.get().session?.session_id).toBe("s-b");
    expect(uiStore.get().closeQuestion).toEqual({ sessionsAtWork: 2 });

    openDialog({ kind: "message", agentId: "agent-main" as never });
    switchSession(liveStore.get().slots[0]?.key ?? "");
    expect(uiStore.get().dialog).toBeNull();
    expect(uiStore.get().closeQuestion).toEqual({ sessionsAtWork: 2 });
  });
});
