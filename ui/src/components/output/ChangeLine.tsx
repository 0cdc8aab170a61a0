/**
 * A file change in an agent's output: one compact line ("✎ modified src/a.rs
 * +3 −1"), marked when it is ambiguous or a person's revert; it opens the
 * change in the Changes view. Cheap: the output list is virtualised and
 * long sessions have many.
 */
import { memo } from "react";
import type { AgentId } from "../../bindings";
import { ambiguousWith, isRevert } from "../../lib/changes";
import { setExpanded } from "../../store/changes";
import type { ChangeItem } from "../../store/session/types";
import { agentName } from "../../store/selectors";
import { useSession } from "../../store/sessionScope";
import { showChanges } from "../../store/ui";
import { Counts } from "../changes/Counts";

export const ChangeLine = memo(function ChangeLine({ item, agentId }: { item: ChangeItem; agentId: AgentId }) {
  const c = item.change;
  const others = ambiguousWith(c);
  return (
    <div className="change-line" data-testid="output-change" data-path={c.path} data-kind={c.kind}>
      <button
        type="button"
        className="change-line-open"
        title="Show in Changes"
        onClick={() => {
          setExpanded(c.change_id, true);
          showChanges(agentId);
        }}
      >
        <span aria-hidden="true">✎</span> {c.kind} <span className="mono">{c.path}</span>{" "}
        <Counts added={c.lines_added} removed={c.lines_removed} />
      </button>
      {isRevert(c) ? <span className="badge change-revert">reverted by you</span> : null}
      {others.length > 0 ? <AmbiguousTag ids={others} /> : null}
    </div>
  );
});

function AmbiguousTag({ ids }: { ids: AgentId[] }) {
  const names = useSession((s) => ids.map((id) => agentName(s, id)).join(", "));
  return (
    <span
      className="badge change-ambiguous-tag"
      data-testid="output-change-ambiguous"
      title={`${names} ran commands in the same tree at the same time and may have made this change`}
    >
      ambiguous: maybe {names}
    </span>
  );
}
