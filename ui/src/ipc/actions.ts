/**
 * Everything the UI asks of the backend, through the generated bindings only.
 * Each action updates the stores with the answer and reports failures: as an
 * error banner, or (for forms) as a returned message shown inline.
 */
import type { Channel } from "@tauri-apps/api/core";
import { open } from "@tauri-apps/plugin-dialog";
import {
  commands,
  type AgentId,
  type AppError,
  type AppErrorKind,
  type AppState,
  type Budget,
  type CatalogReport,
  type Command,
  type EventFrame,
  type CommandReply,
  type ProviderKind,
  type SessionId,
  type SessionInfo,
  type Settings,
} from "../bindings";
import {
  cancelCommand,
  compactCommand,
  delegateCommand,
  messageCommand,
  resumeCommand,
  setBudgetCommand,
  type DelegateForm,
} from "../lib/commands";
import { foundFor, foundTypesStore, setFoundTypes } from "../store/delegate";
import { liveStore, markQueued, onEventsApplied, unmarkQueued } from "../store/sessionStore";
import { patchUi, pushError, uiStore } from "../store/ui";
import { openEventChannel } from "./channel";
import { notifyApprovals } from "./notify";
import { dropSession, forgetClosedSessions, joinRunning, openSession, sessionOpened } from "./sessions";
import { confirmWorkspaceMcp } from "./trust";

/** What tauri-specta makes of a Rust `Result<T, AppError>`. */
export type CommandResult<T> = { status: "ok"; data: T } | { status: "error"; error: AppError };
/**
 * A command's answer. A failure keeps the backend's error kind, so the UI can
 * branch on it (never on the message, which is for the person to read); `kind`
 * is null when the call itself failed (IPC, a thrown error).
 */
export type Outcome<T> = { ok: true; data: T } | { ok: false; kind: AppErrorKind | null; message: string };

export function describe(e: unknown): string {
  if (e && typeof e === "object" && "message" in e && typeof e.message === "string") return e.message;
  return String(e);
}

export async function attempt<T>(p: () => Promise<CommandResult<T>>): Promise<Outcome<T>> {
  try {
    const r = await p();
    if (r.status === "ok") return { ok: true, data: r.data };
    // Tauri itself refuses with a bare string (a command no capability grants, say): no kind.
    const error: unknown = r.error;
    if (typeof error !== "object" || error === null) return { ok: false, kind: null, message: describe(error) };
    return { ok: false, kind: r.error.kind, message: r.error.message };
  } catch (e) {
    return { ok: false, kind: null, message: describe(e) };
  }
}

/** Runs a command; on failure shows a banner and returns null. */
export async function run<T>(p: () => Promise<CommandResult<T>>): Promise<T | null> {
  const r = await attempt(p);
  if (r.ok) return r.data;
  pushError(r.message);
  return null;
}

/** A command for the live session this window shows. */
export function sendToLive(command: Command): Promise<CommandResult<CommandReply>> {
  return sendToSession(uiStore.get().session?.session_id ?? null, command);
}

/** A command for live session `id` (an approval card's session, which may not be the one shown). */
export function sendToSession(id: SessionId | null, command: Command): Promise<CommandResult<CommandReply>> {
  if (id === null) {
    const error: AppError = { kind: "no_session", message: "no session is running: start one first" };
    return Promise.resolve({ status: "error", error });
  }
  return commands.sendCommand(id, command);
}

const send = sendToLive;

/**
 * Takes in a fresh AppState, unless it is older than the one held. The first time it fills the session form's
 * defaults; later, a model still at its provider's old default follows the new one.
 * The sessions the backend already runs (the page was reloaded) are joined by
 * `loadAppState`, not here.
 */
export function applyAppState(app: AppState): void {
  const ui = uiStore.get();
  // The commands that answer one run side by side in the backend: an answer older than the
  // one shown (taken before a save's, say) would undo what the person just did.
  if (ui.app !== null && app.taken < ui.app.taken) {
    patchUi({ appLoading: false, appError: null });
    return;
  }
  const patch: Partial<typeof ui> = { app, appLoading: false, appError: null };
  if (ui.app === null) {
    patch.workspace = app.settings.last_workspace ?? app.default_workspace;
    const preferred =
      app.settings.default_provider ?? app.providers.find((p) => p.ready)?.kind ?? app.providers[0]?.kind ?? ui.provider;
    patch.provider = preferred;
    patch.model = app.providers.find((p) => p.kind === preferred)?.default_model ?? "";
  } else {
    const before = ui.app.providers.find((p) => p.kind === ui.provider)?.default_model;
    const after = app.providers.find((p) => p.kind === ui.provider)?.default_model;
    if (after !== undefined && (ui.model === "" || ui.model === before)) patch.model = after;
  }
  patchUi(patch);
}

export async function loadAppState(): Promise<void> {
  patchUi({ appLoading: true, appError: null });
  try {
    const app = await commands.appState();
    applyAppState(app);
    await joinRunning(app.sessions);
  } catch (e) {
    patchUi({ appLoading: false, appError: describe(e) });
  }
}

/**
 * Starts a session beside the live ones (they go on) and makes it the one the
 * window shows; `start` sends the command with its channel.
 */
async function begin(start: (channel: Channel<EventFrame>) => Promise<CommandResult<SessionInfo>>): Promise<boolean> {
  const key = openSession();
  const info = await run(() => start(openEventChannel(key)));
  if (info === null) {
    dropSession(key);
    return false;
  }
  sessionOpened(key, info);
  // Starting may have closed the oldest finished session to keep within Settings' cap.
  void forgetClosedSessions();
  return true;
}

/**
 * Starts a session in the chosen workspace. When its `.mcp.json` is not
 * trusted the person is asked first (ipc/trust.ts); cancelling starts nothing.
 */
export async function startSession(prompt: string): Promise<boolean> {
  const { workspace, provider, model, agentType } = uiStore.get();
  if (!(await confirmWorkspaceMcp(workspace))) return false;
  // A type chosen for another workspace is not this one's: Arbor's own main agent then.
  const offered = foundFor(foundTypesStore.get(), workspace)?.some((t) => t.name === agentType) ?? false;
  const agent_type = offered ? agentType : null;
  return begin(async (channel) =>
    commands.startSession({ workspace, provider, model, prompt, agent_type }, await commands.thisPage(), channel),
  );
}

/** The scripted demo: it has no workspace servers, so nothing is asked. */
export async function startDemo(): Promise<boolean> {
  return begin(async (channel) => commands.startDemo(await commands.thisPage(), channel));
}

/**
 * Starts a session with the prompt, or continues the current one with the main
 * agent. The prompt reaches the transcript as the backend's `user_message`.
 */
export async function sendPrompt(text: string): Promise<boolean> {
  const prompt = text.trim();
  if (!prompt) return false;
  const { session } = uiStore.get();
  if (!session) return startSession(prompt);
  markQueued(session.main_agent_id, prompt);
  const reply = await run(() => send(messageCommand(null, prompt)));
  if (reply === null) unmarkQueued(session.main_agent_id, prompt);
  return reply !== null;
}

export async function stopAgent(agentId: AgentId): Promise<void> {
  await run(() => send(cancelCommand(agentId)));
}

/** Asks for the agent's conversation to be compacted before its next request. */
export async function compactAgent(agentId: AgentId): Promise<void> {
  await run(() => send(compactCommand(agentId)));
}

/** Starts a new run of a stopped, failed, interrupted or turn-limited agent. */
export async function resumeAgent(agentId: AgentId): Promise<void> {
  await run(() => send(resumeCommand(agentId)));
}

/** Delegates; the new agent's task reaches its transcript as its first `user_message`. */
export async function delegate(form: DelegateForm): Promise<Outcome<AgentId | null>> {
  const r = await attempt(() => send(delegateCommand(form)));
  if (!r.ok) return r;
  return { ok: true, data: r.data.kind === "delegated" ? r.data.agent_id : null };
}

/**
 * Changes an agent's budget; its budget_set (and a resumed run) arrive as
 * events. `true` when the change resumed an agent its budget had stopped.
 */
export async function setBudget(agentId: AgentId, budget: Budget): Promise<Outcome<{ resumed: boolean }>> {
  const r = await attempt(() => send(setBudgetCommand(agentId, budget)));
  if (!r.ok) return r;
  return { ok: true, data: { resumed: r.data.kind === "resumed" } };
}

/**
 * A steering message: queued in the transcript until the agent's next turn takes
 * it, when it arrives as the backend's `user_message`.
 */
export async function messageAgent(agentId: AgentId, text: string): Promise<Outcome<null>> {
  markQueued(agentId, text);
  const r = await attempt(() => send(messageCommand(agentId, text)));
  if (!r.ok) {
    unmarkQueued(agentId, text);
    return r;
  }
  return { ok: true, data: null };
}

export async function pickWorkspace(): Promise<void> {
  try {
    const current = uiStore.get().workspace;
    const chosen = await open({ directory: true, multiple: false, defaultPath: current || undefined });
    const path = Array.isArray(chosen) ? chosen[0] : chosen;
    if (typeof path === "string" && path) patchUi({ workspace: path });
  } catch (e) {
    pushError(`Could not open the folder picker: ${describe(e)}`);
  }
}

export function chooseProvider(provider: ProviderKind): void {
  const app = uiStore.get().app;
  const model = app?.providers.find((p) => p.kind === provider)?.default_model ?? "";
  patchUi({ provider, model });
}

export async function saveSettings(settings: Settings): Promise<Outcome<AppState>> {
  const r = await attempt(() => commands.saveSettings(settings));
  if (r.ok) applyAppState(r.data);
  return r;
}

export async function setApiKey(provider: ProviderKind, key: string): Promise<Outcome<AppState>> {
  const r = await attempt(() => commands.setApiKey(provider, key));
  if (r.ok) applyAppState(r.data);
  return r;
}

export async function clearApiKey(provider: ProviderKind): Promise<Outcome<AppState>> {
  const r = await attempt(() => commands.clearApiKey(provider));
  if (r.ok) applyAppState(r.data);
  return r;
}

/**
 * The agent types of the next session's workspace, read once per workspace so the
 * top bar can offer them as the main agent's type; a failure leaves the choice at
 * Arbor's own main agent.
 */
export function ensureCatalog(workspace: string): void {
  if (workspace === "" || foundFor(foundTypesStore.get(), workspace) !== null) return;
  void loadCatalog(workspace);
}

/** The agent types found for a workspace (Settings → Reload); the Delegate… form offers them too. */
export async function loadCatalog(workspace: string | null): Promise<Outcome<CatalogReport>> {
  try {
    const data = await commands.agentCatalog(workspace);
    // Null asks for Rust's default workspace, whose path this side does not know.
    if (workspace !== null) setFoundTypes(workspace, data.definitions);
    return { ok: true, data };
  } catch (e) {
    return { ok: false, kind: null, message: describe(e) };
  }
}

/** Side effects of applied events: forget "sending" marks once answered, notify approvals. */
export function installEventEffects(): () => void {
  return onEventsApplied((events, state, key) => {
    const resolved = events.filter((e) => e.type === "approval_resolved");
    if (resolved.length > 0) {
      uiStore.set((s) => {
        const sending = { ...s.sending };
        let changed = false;
        for (const e of resolved) {
          if (e.type === "approval_resolved" && sending[e.request_id]) {
            delete sending[e.request_id];
            changed = true;
          }
        }
        return changed ? { ...s, sending } : s;
      });
    }
    const reg = liveStore.get();
    notifyApprovals(events, state, reg.current !== key || !reg.shown);
  });
}
