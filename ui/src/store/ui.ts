/**
 * UI state that is not derived from the event stream: the app state from the
 * backend, the session's identity, selection, collapsed nodes, dialogs,
 * approvals being sent, the view (session, history, settings), what the
 * session's centre shows (an agent, or the whole session's timeline), the
 * output pane's tab (output or changes), the output's filter by kind (one per
 * session shown, whichever agent is selected), the output row to bring into
 * view, banners (errors and notices), and the session layout: the panes'
 * widths (kept across restarts in localStorage) and the person's choice to
 * open or fold the approval inbox.
 */
import { PROVIDER_KINDS, type AgentId, type AppState, type ProviderKind, type SessionId, type SessionInfo } from "../bindings";
import { loadWidths, saveWidths, type InboxChoice, type Pane, type PaneWidths } from "../lib/layout";
import { SHOW_ALL, type OutputFilter } from "../lib/outputFilter";
import { createStore } from "./store";

/** A delegation may come prefilled ("Delegate similar…" on a Task card: that call's prompt and type). */
export type Dialog =
  | { kind: "delegate"; parentId: AgentId; prompt?: string; subagentType?: string | null }
  | { kind: "message"; agentId: AgentId }
  | { kind: "budget"; agentId: AgentId }
  | { kind: "import" }
  | null;

/**
 * The shell asks before the window closes while agents work. It is about the
 * window, not a page or an agent: it sits above any dialog (a Delegate… draft
 * stays under it) and stays while the page joins or shows other sessions.
 */
export interface CloseQuestion {
  sessionsAtWork: number;
}

export interface ErrorNote {
  id: number;
  message: string;
  /**
   * An error (a command that failed: it goes away by itself after a while),
   * a warning (something the session could not use, such as a broken agent
   * file: it stays until dismissed or the session is left) or a notice such as
   * "Exported to …".
   */
  kind: "error" | "warning" | "info";
}

/** A transcript event to scroll the output to (a search hit, a timeline segment). */
export interface Focus {
  agentId: AgentId;
  seq: number;
}

export type View = "session" | "settings" | "history";

/** What the session's centre shows: the selected agent (its output or changes), or the session's timeline. */
export type SessionView = "agent" | "timeline";

/** What the output pane shows of the selected agent: its output, or the files it changed. */
export type OutputTab = "output" | "changes";

export interface UiState {
  app: AppState | null;
  appLoading: boolean;
  appError: string | null;
  session: SessionInfo | null;
  /** A session is being started (the command has not answered yet). */
  starting: boolean;
  selected: AgentId | null;
  collapsed: Record<AgentId, boolean>;
  /** Approval requests whose answer was sent and not yet confirmed by approval_resolved. */
  sending: Record<string, boolean>;
  errors: ErrorNote[];
  showSubagentThoughts: boolean;
  view: View;
  sessionView: SessionView;
  outputTab: OutputTab;
  /** The output's filter by kind, per session (by id); a session without one shows everything. */
  outputFilters: Readonly<Record<SessionId, OutputFilter>>;
  focus: Focus | null;
  /** The transcript-store problem the person dismissed (a new one shows again). */
  dismissedProblem: string | null;
  dialog: Dialog;
  /** Closing the window while agents work, asked and not answered yet. */
  closeQuestion: CloseQuestion | null;
  workspace: string;
  provider: ProviderKind;
  model: string;
  /** The agent type the next session's main agent runs as; "" for Arbor's own main agent. */
  agentType: string;
  /** The tree's and the inbox's widths as a person dragged them (null: the default); saved across restarts. */
  paneWidths: PaneWidths;
  /** The person opened or folded the approval inbox (lib/layout.ts says how long that holds); null: never. */
  inboxChoice: InboxChoice | null;
}

/** The window's localStorage, when the webview lets the app have one. */
function layoutStorage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function initialUi(): UiState {
  return {
    app: null,
    appLoading: true,
    appError: null,
    session: null,
    starting: false,
    selected: null,
    collapsed: {},
    sending: {},
    errors: [],
    showSubagentThoughts: false,
    view: "session",
    sessionView: "agent",
    outputTab: "output",
    outputFilters: {},
    focus: null,
    dismissedProblem: null,
    dialog: null,
    closeQuestion: null,
    workspace: "",
    // Until the app state says which provider is ready (applyAppState picks then).
    provider: PROVIDER_KINDS[0],
    model: "",
    agentType: "",
    // What an earlier run left: the layout is the person's, not the session's.
    paneWidths: loadWidths(layoutStorage()),
    inboxChoice: null,
  };
}

export const uiStore = createStore<UiState>(initialUi());

let nextErrorId = 1;

/** How long a failed command's banner stays unless dismissed: long enough to read twice. */
export const ERROR_MS = 15_000;

export function pushError(message: string): void {
  const id = nextErrorId++;
  uiStore.set((s) => ({ ...s, errors: [...s.errors, { id, message, kind: "error" }] }));
  setTimeout(() => dismissError(id), ERROR_MS);
}

/** Leaving a session: its errors and warnings are about it, not the next one. */
export function clearBanners(): void {
  uiStore.set((s) => (s.errors.length === 0 ? s : { ...s, errors: [] }));
}

/** What a new session could not use (agent files, MCP configs): one banner each, never a modal. */
export function pushWarnings(warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  const notes = warnings.map((message): ErrorNote => ({ id: nextErrorId++, message, kind: "warning" }));
  uiStore.set((s) => ({ ...s, errors: [...s.errors, ...notes] }));
}

/** A notice that goes away by itself after `ms` (or when dismissed). */
export function pushNotice(message: string, ms = 8000): void {
  const id = nextErrorId++;
  uiStore.set((s) => ({ ...s, errors: [...s.errors, { id, message, kind: "info" }] }));
  setTimeout(() => dismissError(id), ms);
}

export function dismissError(id: number): void {
  uiStore.set((s) => ({ ...s, errors: s.errors.filter((e) => e.id !== id) }));
}

export function patchUi(patch: Partial<UiState>): void {
  uiStore.set((s) => ({ ...s, ...patch }));
}

export function select(id: AgentId | null): void {
  uiStore.set((s) => (s.selected === id ? s : { ...s, selected: id }));
}

export function setSessionView(sessionView: SessionView): void {
  uiStore.set((s) => (s.sessionView === sessionView ? s : { ...s, sessionView }));
}

/** The output filter of the session shown (by its id; null before its first event): everything until one is set. */
export function outputFilterOf(ui: UiState, sessionId: SessionId | null): OutputFilter {
  return sessionId === null ? SHOW_ALL : (ui.outputFilters[sessionId] ?? SHOW_ALL);
}

export function setOutputFilter(sessionId: SessionId | null, filter: OutputFilter): void {
  if (sessionId === null) return;
  uiStore.set((s) =>
    s.outputFilters[sessionId] === filter ? s : { ...s, outputFilters: { ...s.outputFilters, [sessionId]: filter } },
  );
}

export function setOutputTab(outputTab: OutputTab): void {
  uiStore.set((s) => (s.outputTab === outputTab ? s : { ...s, outputTab }));
}

/** Selects the agent and shows its Changes (the tree's change count, an output's change line). */
export function showChanges(id: AgentId): void {
  select(id);
  setSessionView("agent");
  setOutputTab("changes");
}

export function setCollapsed(id: AgentId, collapsed: boolean): void {
  uiStore.set((s) => (!!s.collapsed[id] === collapsed ? s : { ...s, collapsed: { ...s.collapsed, [id]: collapsed } }));
}

export function openDialog(dialog: Dialog): void {
  patchUi({ dialog });
}

/** The shell asks whether to close the window (null: answered, or Cancel). */
export function askClose(question: CloseQuestion | null): void {
  patchUi({ closeQuestion: question });
}

/** Shows or hides the history panel (the top-bar button and Ctrl/Cmd+H). */
export function toggleHistory(): void {
  uiStore.set((s) => ({ ...s, view: s.view === "history" ? "session" : "history", dialog: null }));
}

export function dismissProblem(problem: string): void {
  patchUi({ dismissedProblem: problem });
}

/**
 * A pane's width (already within what the window allows; null: back to the
 * default). `save: false` while a drag is under way: savePaneWidths() at its end.
 */
export function setPaneWidth(pane: Pane, width: number | null, save = true): void {
  uiStore.set((s) =>
    s.paneWidths[pane] === width ? s : { ...s, paneWidths: { ...s.paneWidths, [pane]: width } },
  );
  if (save) savePaneWidths();
}

export function savePaneWidths(): void {
  saveWidths(layoutStorage(), uiStore.get().paneWidths);
}

/** The person opens or folds the inbox; `pending`: the live session's requests waiting now. */
export function setInboxOpen(open: boolean, pending: readonly string[]): void {
  patchUi({ inboxChoice: { open, pending: [...pending] } });
}
