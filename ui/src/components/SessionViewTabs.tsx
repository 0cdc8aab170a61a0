/** What the session's centre shows: the selected agent (its output or changes), or the whole session's timeline. */
import { useStore } from "../store/store";
import { setSessionView, uiStore } from "../store/ui";
import { Tabs } from "./Tabs";

export function SessionViewTabs() {
  const view = useStore(uiStore, (s) => s.sessionView);
  return (
    <div className="session-tabs">
      <Tabs
        label="What to show of the session"
        value={view}
        onSelect={setSessionView}
        tabs={[
          { value: "agent", testId: "agent-view-tab", children: "Agent" },
          {
            value: "timeline",
            testId: "timeline-view-tab",
            title: "Every agent's queued time, model turns, tool calls and waits for you, side by side",
            children: "Timeline",
          },
        ]}
      />
    </div>
  );
}
