/**
 * What the segment under the pointer is: queued, a model turn, a tool call
 * (its tool), a wait for the person's approval or a compaction, when it began (from the
 * session's start) and how long it lasted, has lasted so far, or lasted
 * before its run was cut off (a stored session's open segment).
 */
import { useSyncExternalStore } from "react";
import type { SegmentKind } from "../../bindings";
import { formatSpan, segmentEnd } from "../../lib/timeline";
import type { TimelineController } from "./controller";

// Every kind Rust has must have words here: a new one fails the typecheck until it does.
const KIND_LABELS: Record<SegmentKind, string> = {
  queued: "Queued for a slot",
  model: "Model turn",
  tool: "Tool call",
  approval: "Waiting for your approval",
  compaction: "Compacting its context",
};

function duration(open: boolean, running: boolean, ms: number): string {
  if (!open) return `lasted ${formatSpan(ms)}`;
  return running ? `${formatSpan(ms)} so far` : `cut off after ${formatSpan(ms)} (it never ended)`;
}

/** The tooltip keeps clear of the window's right and bottom edges. */
const ROOM = { width: 280, height: 90 };

export function TimelineTooltip({ controller }: { controller: TimelineController }) {
  const hover = useSyncExternalStore(controller.subscribe, () => controller.hover);
  if (!hover) return null;
  const s = hover.segment;
  const open = s.end === null;
  const lasted = segmentEnd(s, hover.now) - s.start;
  const left = hover.clientX + 14 + ROOM.width > window.innerWidth ? hover.clientX - ROOM.width - 8 : hover.clientX + 14;
  const top = hover.clientY + 16 + ROOM.height > window.innerHeight ? hover.clientY - ROOM.height : hover.clientY + 16;
  return (
    <div className={`timeline-tooltip ${s.kind}`} role="tooltip" data-testid="timeline-tooltip" style={{ left, top }}>
      <div className="what">
        {KIND_LABELS[s.kind]}
        {s.label ? <span className="mono"> · {s.label}</span> : null}
      </div>
      <div className="when">
        at +{formatSpan(s.start - hover.origin)} · {duration(open, hover.running, lasted)}
      </div>
      <div className="hint">Click to show it in the agent's output</div>
    </div>
  );
}
