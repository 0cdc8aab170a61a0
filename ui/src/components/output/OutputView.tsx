/**
 * The output pane: the selected agent's live output (AgentOutput) or, on its
 * Changes tab, the files it changed (AgentChanges); with no agent to show, an
 * invitation to start (NoAgent).
 */
import { effectiveSelection } from "../../store/selectors";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { uiStore } from "../../store/ui";
import { AgentChanges } from "./AgentChanges";
import { AgentOutput } from "./AgentOutput";
import { NoAgent } from "./NoAgent";

export function OutputView() {
  const uiSelected = useStore(uiStore, (s) => s.selected);
  const id = useStore(sessionStore, (s) => effectiveSelection(s, uiSelected));
  const hasSession = useStore(uiStore, (s) => s.session !== null || s.starting);
  const starting = useStore(uiStore, (s) => s.starting);
  const tab = useStore(uiStore, (s) => s.outputTab);
  return (
    <div className="output-wrap" data-testid="output">
      {id ? (
        tab === "changes" ? (
          <AgentChanges key={id} id={id} />
        ) : (
          <AgentOutput key={id} id={id} />
        )
      ) : (
        <NoAgent hasSession={hasSession} starting={starting} />
      )}
    </div>
  );
}
