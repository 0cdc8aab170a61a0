/** What the session's centre shows: the selected agent (its output or changes), or the whole session's timeline. */
import { useStore } from "../store/store";
import { setSessionView, uiStore } from "../store/ui";

export function SessionViewTabs() {
  const view = useStore(uiStore, (s) => s.sessionView);
  return (
    <div className="session-tabs">
      <div className="output-tabs" role="tablist" aria-label="What to show of the session">
        <button
          type="button"
          role="tab"
          className="output-tab"
          data-testid="agent-view-tab"
          aria-selected={view === "agent"}
          onClick={() => setSessionView("agent")}
        >
          Agent
        </button>
        <button
          type="button"
          role="tab"
          className="output-tab"
          data-testid="timeline-view-tab"
          aria-selected={view === "timeline"}
          title="Every agent's queued time, model turns, tool calls and waits for you, side by side"
          onClick={() => setSessionView("timeline")}
        >
          Timeline
        </button>
      </div>
    </div>
  );
}
