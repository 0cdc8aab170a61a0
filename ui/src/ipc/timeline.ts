/**
 * The timeline's traffic with the backend, and where it sends the person: a
 * stored session's timeline (a past session under review, or a resumed one
 * whose earlier runs its frames do not repeat) loaded through
 * `session_timeline` under what frames already brought, and a segment shown
 * at its event in its agent's output.
 */
import { commands, type AgentId, type SessionId } from "../bindings";
import { bookStore, displayedBook } from "../store/review";
import { liveViews, sessionStore } from "../store/sessionStore";
import { keepTimelines, timelineStore, updateTimeline, withLoad, withStoredTimeline } from "../store/timeline";
import { patchUi } from "../store/ui";
import { attempt } from "./actions";
import { loadTranscriptTo } from "./history";

/**
 * Loads the displayed session's stored timeline the first time it is shown.
 * A session started in this window needs none: its frames brought all of it.
 */
export async function ensureTimeline(sessionId: SessionId): Promise<void> {
  const t = timelineStore.get()[sessionId];
  if (t && t.load !== "none") return;
  if (displayedBook(bookStore.get())?.sessionId !== sessionId) return;
  await loadTimeline(sessionId);
}

/** (Re)loads a session's stored timeline; a failure is kept on it (the view offers Retry). */
export async function loadTimeline(sessionId: SessionId): Promise<void> {
  // Only the live sessions' (their frames bring upserts, not the whole) and the displayed one's are kept.
  keepTimelines([...liveViews.get().map((v) => v.state.sessionId), sessionStore.get().sessionId, sessionId]);
  updateTimeline(sessionId, (t) => withLoad(t, "loading"));
  const r = await attempt(() => commands.sessionTimeline(sessionId));
  // Forgotten meanwhile (a new session started): nothing to put it in.
  if (!timelineStore.get()[sessionId]) return;
  updateTimeline(sessionId, (t) => (r.ok ? withStoredTimeline(t, r.data) : withLoad(t, "error", r.message)));
}

/** A segment clicked: its agent's output, scrolled to the event it starts at (loaded first when stored). */
export function showInOutput(agentId: AgentId, seq: number): void {
  // Before the selection: a stored transcript's pages are marked loading first, so selecting asks for none.
  void loadTranscriptTo(agentId, seq);
  patchUi({ selected: agentId, sessionView: "agent", outputTab: "output", focus: { agentId, seq } });
}
