/**
 * A compaction of the agent's conversation: a divider where it happened
 * ("Context compacted · 31.8k → 6.2k tokens · 12 older results cleared"),
 * its summary unfolded on a click. The rows above it are still the whole
 * transcript; from here on the model was sent the shorter conversation.
 */
import { memo, useState } from "react";
import type { AgentId } from "../../bindings";
import { compactionSizes, compactionSteps } from "../../lib/compaction";
import type { CompactedItem } from "../../store/session/types";
import { IconChevron, IconGauge } from "../icons";

// Rows unmount as they scroll out of the virtualised list: an unfolded one stays so.
const openState = new Map<string, boolean>();

export const CompactionRow = memo(function CompactionRow({ item, agentId }: { item: CompactedItem; agentId: AgentId }) {
  const stateKey = `${agentId}/${item.key}`;
  const [open, setOpenState] = useState(() => openState.get(stateKey) ?? false);
  const c = item.compaction;
  const toggle = () => {
    openState.set(stateKey, !open);
    setOpenState(!open);
  };
  const steps = compactionSteps(c);
  const head = (
    <>
      <IconGauge size={12} />
      <span className="compaction-title">Context compacted</span>
      <span className="faint">·</span>
      <span>{compactionSizes(c)}</span>
      {steps ? (
        <>
          <span className="faint">·</span>
          <span>{steps}</span>
        </>
      ) : null}
    </>
  );
  return (
    <div className={`compaction${open ? " open" : ""}`} data-testid="compaction" role="separator" aria-label="Context compacted">
      {c.summary !== null ? (
        <button type="button" className="compaction-head" aria-expanded={open} onClick={toggle}>
          <IconChevron size={11} />
          {head}
        </button>
      ) : (
        <div className="compaction-head">{head}</div>
      )}
      {open && c.summary !== null ? (
        <div className="compaction-summary" data-testid="compaction-summary">
          <div className="faint">What the model was sent in place of the earlier conversation (the transcript above keeps it all):</div>
          <pre>{c.summary}</pre>
        </div>
      ) : null}
    </div>
  );
});
