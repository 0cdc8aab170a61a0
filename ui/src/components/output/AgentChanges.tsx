/** The Changes tab of the output pane: the agent's header over its Changes view. */
import type { AgentId } from "../../bindings";
import { useSession } from "../../store/sessionScope";
import { useStore } from "../../store/store";
import { uiStore } from "../../store/ui";
import { ChangesView } from "../changes/ChangesView";
import { OutputHeader } from "./OutputHeader";

export function AgentChanges({ id }: { id: AgentId }) {
  const node = useSession((s) => s.agents[id]);
  const showThoughts = useStore(uiStore, (s) => s.showSubagentThoughts);
  if (!node) return null;
  return (
    <>
      <OutputHeader id={id} node={node} showThoughts={showThoughts} />
      <ChangesView id={id} />
    </>
  );
}
