/** Resets and seeds the stores for component tests. */
import { act } from "@testing-library/react";
import type { AgentEvent, AppState, ApprovalRule, EventFrame, PastSession, SessionInfo, UsageUpdate } from "../bindings";
import { approvalsStore, initialApprovalsUi } from "../store/approvals";
import { changesStore, initialChangesUi } from "../store/changes";
import { historyStore, initialHistory } from "../store/history";
import { importStore, initialImport } from "../store/importer";
import { initialMcp, mcpStore } from "../store/mcp";
import { trustStore } from "../store/trust";
import { bookStore } from "../store/review";
import { withAgents } from "../store/session/agents";
import { initialSession, reduceBatch } from "../store/session/reducer";
import { withUsage } from "../store/session/usage";
import { enqueueFrame, flushEvents, liveStore, openSlot, resetSession, sessionStore, setSlotInfo } from "../store/sessionStore";
import { initialUi, uiStore, type UiState } from "../store/ui";
import { derivedAgents, resetDerivedAgents } from "./agents";

export function resetStores(ui: Partial<UiState> = {}): void {
  resetSession();
  resetDerivedAgents();
  sessionStore.set(initialSession());
  bookStore.set({ review: null, live: null });
  historyStore.set(initialHistory());
  importStore.set(initialImport());
  mcpStore.set(initialMcp());
  trustStore.set(null);
  approvalsStore.set(initialApprovalsUi());
  changesStore.set(initialChangesUi());
  uiStore.set({ ...initialUi(), appLoading: false, ...ui });
}

/**
 * Events (and the rules in force, when given) as the backend's channel brings
 * them: one frame (with the agents they changed, as Rust would derive them),
 * applied when the store flushes its queue, inside React's act.
 */
export function arriveFrame(events: AgentEvent[], rules: ApprovalRule[] | null = null): void {
  act(() => {
    enqueueFrame(frameOf(events, { rules }));
    flushEvents();
  });
}

/**
 * A frame as the backend sends it: `events`, the agents they changed (as Rust
 * would derive them), and whatever of `rest` is given (none by default).
 */
export function frameOf(events: AgentEvent[], rest: Partial<Omit<EventFrame, "events" | "agents">> = {}): EventFrame {
  const through = events.reduce((last, e) => Math.max(last, e.seq), 0);
  return { events, agents: derivedAgents(events), usage: null, rules: null, timeline: null, through, ...rest };
}

/** `resume_session`'s answer for stored session `past`: its frames follow its last stored event. */
export function continuedFrom(past: PastSession): { info: SessionInfo; through: number } {
  const through = past.events.reduce((last, e) => Math.max(last, e.seq), 0);
  return { info: sessionInfo({ session_id: past.detail.session.id }), through };
}

/** A session the window runs (current and shown), known by `info`. */
export function liveHere(info: SessionInfo): void {
  const key = openSlot(initialSession());
  setSlotInfo(key, info);
  uiStore.set((s) => ({ ...s, session: info }));
}

/** Events applied to the displayed session: the window's current live session (opened with the first). */
export function applyEvents(events: AgentEvent[]): void {
  if (liveStore.get().current === null && bookStore.get().review === null) {
    const key = openSlot(sessionStore.get());
    const info = uiStore.get().session;
    if (info) setSlotInfo(key, info);
  }
  const agents = derivedAgents(events);
  sessionStore.set((s) => withAgents(reduceBatch(s, events), agents));
}

/** Takes in usage figures as a frame from Rust would bring them. */
export function applyUsage(update: UsageUpdate): void {
  sessionStore.set((s) => withUsage(s, [update]));
}

export function sessionInfo(extra: Partial<SessionInfo> = {}): SessionInfo {
  return {
    session_id: "s-1",
    main_agent_id: "agent-main",
    workspace: "/work/demo",
    provider: "anthropic",
    model: "claude-test",
    demo: false,
    agent_types: [],
    warnings: [],
    untrusted_mcp: null,
    settings_rules: [],
    main_type: null,
    sandbox: {
      state: "sandboxed",
      mode: "workspace",
      mechanism: "bubblewrap 0.8.0",
      writable: ["/work/demo"],
      network: false,
      hidden: ["/home/me/.ssh", "/home/me/.aws"],
    },
    ...extra,
  };
}

export function appState(extra: Partial<AppState> = {}): AppState {
  return {
    taken: 1,
    settings: { default_provider: null, last_workspace: "/work/demo", approvals: {} },
    settings_problem: null,
    providers: [],
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
