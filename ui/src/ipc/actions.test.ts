import { beforeEach, describe, expect, it, vi } from "vitest";
import type { AppError, AppState } from "../bindings";
import { uiStore } from "../store/ui";
import { applyEvents, resetStores, sessionInfo } from "../test/stores";
import { applyAppState, attempt, stopAgent } from "./actions";
import { newSession, switchSession } from "./sessions";
import { liveStore, sessionStore } from "../store/sessionStore";
import { eventMaker } from "../test/events";

const closeSession = vi.fn();
const sendCommand = vi.fn();
vi.mock("../bindings", async (importOriginal) => ({
  // The real constants (they are Rust's rules); only the commands are faked.
  ...(await importOriginal<typeof import("../bindings")>()),
  commands: {
    closeSession: (...a: unknown[]) => closeSession(...a),
    sendCommand: (...a: unknown[]) => sendCommand(...a),
  },
}));

function app(extra: Partial<AppState> = {}, anthropicModel = "claude-a"): AppState {
  return {
    taken: 1,
    settings: { default_provider: null, last_workspace: "/last", approvals: {} },
    settings_problem: null,
    providers: [
      { kind: "anthropic", label: "Anthropic", key_source: "none", key_var: "ANTHROPIC_API_KEY", base_url: "u", default_model: anthropicModel, ready: false, problem: "no key" },
      { kind: "openai", label: "OpenAI", key_source: "environment", key_var: "OPENAI_API_KEY", base_url: "u", default_model: "gpt-x", ready: true, problem: null },
    ],
    keyring: { available: true, problem: null },
    sessions: [],
    default_workspace: "/home",
    tools: [],
    transcripts: { path: "/data/arbor.db", problem: null },
    sandbox: { mechanism: "bubblewrap 0.8.0", problem: null },
    interrupted: [],
    claude_code_dir: null,
    ...extra,
  };
}

beforeEach(() => resetStores({ app: null }));

describe("applyAppState", () => {
  it("first fills the workspace, the first ready provider and its default model", () => {
    applyAppState(app());
    expect(uiStore.get()).toMatchObject({ workspace: "/last", provider: "openai", model: "gpt-x", appLoading: false });
  });

  it("prefers the default provider from settings, and the default workspace when none was used", () => {
    applyAppState(app({ settings: { default_provider: "anthropic", last_workspace: null } }));
    expect(uiStore.get()).toMatchObject({ workspace: "/home", provider: "anthropic", model: "claude-a" });
  });

  it("later keeps the person's choices but follows a changed default model", () => {
    applyAppState(app({ settings: { default_provider: "anthropic" } }));
    uiStore.set((s) => ({ ...s, workspace: "/chosen" }));
    applyAppState(app({ settings: { default_provider: "anthropic" } }, "claude-b"));
    expect(uiStore.get()).toMatchObject({ workspace: "/chosen", provider: "anthropic", model: "claude-b" });
    uiStore.set((s) => ({ ...s, model: "my-own-model" }));
    applyAppState(app({ settings: { default_provider: "anthropic" } }, "claude-c"));
    expect(uiStore.get().model).toBe("my-own-model");
  });

  it("keeps the newest answer when an older one arrives after it", () => {
    // A state read before a save (a keyring kept it waiting) answers after the save's own.
    const saved = app({ taken: 8, settings: { default_provider: "anthropic", last_workspace: "/saved", approvals: {} } });
    applyAppState(saved);
    applyAppState(app({ taken: 7, settings: { default_provider: null, last_workspace: "/before", approvals: {} } }));
    expect(uiStore.get().app).toBe(saved);
    const later = app({ taken: 9 });
    applyAppState(later);
    expect(uiStore.get().app).toBe(later);
  });
});

describe("attempt", () => {
  it("keeps the backend's error kind beside its message", async () => {
    const r = await attempt(() => Promise.resolve({ status: "error", error: { kind: "not_found", message: "no session sess-x" } }));
    expect(r).toEqual({ ok: false, kind: "not_found", message: "no session sess-x" });
  });

  it("has no kind when the call itself fails", async () => {
    const r = await attempt(() => Promise.reject(new Error("ipc down")));
    expect(r).toEqual({ ok: false, kind: null, message: "ipc down" });
  });

  it("says what Tauri said when it refuses a command with a bare string", async () => {
    const refused = "attach_session not allowed. Command not found";
    const r = await attempt(() => Promise.resolve({ status: "error", error: refused as unknown as AppError }));
    expect(r).toEqual({ ok: false, kind: null, message: refused });
  });
});

describe("the live session", () => {
  it("gets each command by its own id", async () => {
    resetStores({ session: sessionInfo({ session_id: "s-live" }) });
    sendCommand.mockResolvedValue({ status: "ok", data: { kind: "done" } });
    await stopAgent("agent-a");
    expect(sendCommand).toHaveBeenCalledWith("s-live", { type: "cancel", agent_id: "agent-a" });
  });

  it("goes on beside a fresh page after New session, and comes back as it was left", async () => {
    resetStores({ session: sessionInfo({ session_id: "s-live" }) });
    applyEvents([eventMaker("s-live").started("agent-main", null, "main")]);
    uiStore.set((s) => ({ ...s, selected: "agent-main", outputTab: "changes" }));
    newSession();
    expect(closeSession).not.toHaveBeenCalled();
    expect(uiStore.get().session).toBeNull();
    expect(uiStore.get().selected).toBeNull();
    expect(sessionStore.get().roots).toEqual([]);
    const [slot] = liveStore.get().slots;
    expect(liveStore.get()).toMatchObject({ current: null });
    switchSession(slot?.key ?? "");
    expect(uiStore.get().session?.session_id).toBe("s-live");
    expect(uiStore.get()).toMatchObject({ selected: "agent-main", outputTab: "changes" });
    expect(sessionStore.get().roots).toEqual(["agent-main"]);
  });
});
