/**
 * A row of an imported transcript Arbor has no event for ("Claude Code ·
 * attachment: environment"): one compact system line, folded; unfolded, the
 * text the model saw, as it was.
 */
import { memo, useState } from "react";
import type { AgentId } from "../../bindings";
import { sourceBadge } from "../../lib/history";
import { useSessionBook } from "../../store/sessionScope";
import type { ImportedItem } from "../../store/session/types";
import { IconChevron, IconImport } from "../icons";

// Rows are unmounted as they scroll out of the virtualised list: one the person
// unfolded stays unfolded when it scrolls back in.
const openState = new Map<string, boolean>();

export const ImportedEntryRow = memo(function ImportedEntryRow({ item, agentId }: { item: ImportedItem; agentId: AgentId }) {
  const stateKey = `${agentId}/${item.key}`;
  const [open, setOpenState] = useState(() => openState.get(stateKey) ?? false);
  // The tool whose transcript it came from (the displayed session's source).
  const source = useSessionBook((book) => (book ? sourceBadge(book.detail.session) : null));
  const toggle = () => {
    openState.set(stateKey, !open);
    setOpenState(!open);
  };
  return (
    <div className={`imported-entry${open ? " open" : ""}`} data-testid="imported-entry" data-entry={item.entry}>
      <button type="button" className="imported-head" aria-expanded={open} onClick={toggle}>
        <IconChevron size={11} />
        <IconImport size={12} />
        <span className="imported-source">{source ?? "Imported"}</span>
        <span className="faint">·</span>
        <span className="imported-kind">{item.entry}</span>
        <span className="faint">({item.content.length.toLocaleString()} chars)</span>
      </button>
      {open ? <pre className="imported-body">{item.content}</pre> : null}
    </div>
  );
});
