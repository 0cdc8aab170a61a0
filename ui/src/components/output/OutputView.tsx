/**
 * The output pane: the selected agent's live output (AgentOutput) or, on its
 * Changes tab, the files it changed (AgentChanges); with no agent to show, an
 * invitation to start (NoAgent).
 *
 * The pane follows the selection a frame behind (a deferred value): the tree
 * answers a click or a key at once, and the newly selected agent's output,
 * a whole list to mount, renders after that frame is painted, where React
 * can set it aside for the next key. The stream's batches wait for it. A
 * switch to another session renders its output at once.
 */
import { useDeferredValue, useLayoutEffect } from "react";
import { effectiveSelection } from "../../store/selectors";
import { holdBatches } from "../../store/sessionStore";
import { useSession, useSessionView } from "../../store/sessionScope";
import { useStore } from "../../store/store";
import { uiStore } from "../../store/ui";
import { AgentChanges } from "./AgentChanges";
import { AgentOutput } from "./AgentOutput";
import { NoAgent } from "./NoAgent";

export function OutputView() {
  const uiSelected = useSessionView((v) => v.selected);
  const selected = useSession((s) => effectiveSelection(s, uiSelected));
  const sessionId = useSession((s) => s.sessionId);
  // Deferred within a session. Another session shown changes the whole page at once:
  // its output comes with it, not a frame after an output of an agent it does not have.
  const prefix = `${sessionId ?? ""}/`;
  const deferred = useDeferredValue(prefix + (selected ?? ""));
  const id = deferred.startsWith(prefix) ? deferred.slice(prefix.length) || null : selected;
  // Until the new agent's output is in, the stream's batches wait: each would restart its render.
  useLayoutEffect(() => (id === selected ? undefined : holdBatches()), [id, selected]);
  const hasSession = useStore(uiStore, (s) => s.session !== null || s.starting);
  const starting = useStore(uiStore, (s) => s.starting);
  const tab = useSessionView((v) => v.outputTab);
  return (
    <div className="output-wrap" data-testid="output">
      {id ? (
        tab === "changes" ? (
          <AgentChanges key={id} id={id} />
        ) : (
          // By session too: each session's output keeps its own place.
          <AgentOutput key={`${sessionId ?? ""}/${id}`} id={id} />
        )
      ) : (
        <NoAgent hasSession={hasSession} starting={starting} />
      )}
    </div>
  );
}
