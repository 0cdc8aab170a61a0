/**
 * The inbox across every live session of the window: each pending request
 * with the session it belongs to (so its answer goes there, and its card names
 * it), the counts the window title, the top bar and the status bar show, and
 * the rules in force per session. Selectors return the same object for
 * unchanged input, so components can read them through useSyncExternalStore.
 */
import type { SessionId, SettingsRule } from "../bindings";
import { ruleRows, sessionName, type RuleRow } from "./approvals";
import { pendingApprovals } from "./selectors";
import type { Approval, SessionState } from "./session/types";
import { liveViews, slotStateOf, subscribeLive, type LiveView, type SlotKey } from "./sessionStore";
import type { Readable } from "./store";

export interface InboxEntry {
  key: SlotKey;
  sessionId: SessionId | null;
  approval: Approval;
}

let entriesMemo: { lists: Approval[][]; entries: InboxEntry[] } | null = null;

/** Every live session's pending requests: sessions in the order they started, each oldest first. */
export function inboxEntries(views: readonly LiveView[]): InboxEntry[] {
  const lists = views.map((v) => pendingApprovals(v.state));
  if (entriesMemo && entriesMemo.lists.length === lists.length && entriesMemo.lists.every((l, i) => l === lists[i])) {
    return entriesMemo.entries;
  }
  const entries = views.flatMap((v, i) => (lists[i] ?? []).map((approval) => ({ key: v.key, sessionId: v.state.sessionId, approval })));
  entriesMemo = { lists, entries };
  return entries;
}

/** How many requests wait, in every live session. */
export function pendingCount(views: readonly LiveView[]): number {
  return inboxEntries(views).length;
}

let idsMemo: { entries: InboxEntry[]; ids: string[] } | null = null;

/** The ids of every waiting request (what the inbox's fold remembers). */
export function pendingIds(views: readonly LiveView[]): string[] {
  const entries = inboxEntries(views);
  if (idsMemo?.entries !== entries) idsMemo = { entries, ids: entries.map((e) => e.approval.requestId) };
  return idsMemo.ids;
}

/** A request of any live session, with the session it belongs to. */
export function findRequest(requestId: string): { key: SlotKey; sessionId: SessionId | null; state: SessionState; approval: Approval } | null {
  for (const v of liveViews.get()) {
    const approval = v.state.approvals[requestId];
    if (approval) return { key: v.key, sessionId: v.state.sessionId ?? v.info?.session_id ?? null, state: v.state, approval };
  }
  return null;
}

const readables = new Map<SlotKey, Readable<SessionState>>();

/** One live session's state, displayed or not, as a store its cards read. */
export function slotSession(key: SlotKey): Readable<SessionState> {
  let r = readables.get(key);
  if (!r) {
    r = { get: () => slotStateOf(key), subscribe: subscribeLive };
    readables.set(key, r);
  }
  return r;
}

/**
 * The rules in force in one live session, named by it when the window runs more
 * than one: those a person's answers set, and those of the settings files it
 * loaded (with their file; changed by editing the file, not revoked here).
 */
export interface RuleGroup {
  key: SlotKey;
  name: string;
  rows: RuleRow[];
  settings: readonly SettingsRule[];
}

const NO_SETTINGS: readonly SettingsRule[] = [];

let groupsMemo: { rows: RuleRow[][]; names: string[]; settings: (readonly SettingsRule[])[]; groups: RuleGroup[] } | null = null;

/** Each live session's rules in force (sessions without any left out). */
export function ruleGroups(views: readonly LiveView[]): RuleGroup[] {
  const rows = views.map((v) => ruleRows(v.state));
  const names = views.map((v) => sessionName(v.state));
  const settings = views.map((v) => v.info?.settings_rules ?? NO_SETTINGS);
  const memo = groupsMemo;
  if (
    memo &&
    memo.rows.length === rows.length &&
    memo.rows.every((r, i) => r === rows[i] && memo.names[i] === names[i] && memo.settings[i] === settings[i])
  ) {
    return memo.groups;
  }
  const groups = views.flatMap((v, i) => {
    const r = rows[i] ?? [];
    const s = settings[i] ?? NO_SETTINGS;
    return r.length === 0 && s.length === 0 ? [] : [{ key: v.key, name: names[i] ?? "", rows: r, settings: s }];
  });
  groupsMemo = { rows, names, settings, groups };
  return groups;
}
