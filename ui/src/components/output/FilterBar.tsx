/**
 * The output's filter by kind: a chip per kind (responses, thinking, tool
 * calls, approvals, errors; imported entries when there are any) with its
 * count, the tool calls' menu of the tools this agent called (each on or
 * off, or only it), and "Show all". The filter is the session's (the ui
 * store's): it stays as the person selects other agents. The menu's button
 * has lib/tooltip's tooltip, kept away while the menu is open (a native
 * title covered the menu).
 */
import { useMenu } from "../../hooks/useMenu";
import type { SessionId } from "../../bindings";
import {
  OUTPUT_KIND_LABELS,
  OUTPUT_KINDS,
  SHOW_ALL,
  allTools,
  kindCounts,
  onlyTool,
  showsAll,
  toggleKind,
  toggleTool,
  type KindCounts,
  type OutputFilter,
  type OutputKind,
} from "../../lib/outputFilter";
import { Tip } from "../../lib/tooltip";
import type { OutputItem } from "../../store/session/types";
import { setOutputFilter } from "../../store/ui";
import { IconChevron, IconFilter } from "../icons";
import { ToolName } from "../ToolName";

interface Props {
  sessionId: SessionId | null;
  /** The agent's items before filtering. */
  items: readonly OutputItem[];
  filter: OutputFilter;
  /** How many of them the filter shows. */
  shown: number;
}

export function FilterBar({ sessionId, items, filter, shown }: Props) {
  const counts = kindCounts(items);
  const set = (f: OutputFilter) => setOutputFilter(sessionId, f);
  return (
    <div className="filter-bar" role="toolbar" aria-label="Show in this output" data-testid="filter-bar">
      <IconFilter size={12} />
      {OUTPUT_KINDS.map((kind) => {
        // Only imported transcripts have imported entries.
        if (kind === "imported" && counts.kinds.imported === 0) return null;
        if (kind === "tools") return <ToolsChip key={kind} counts={counts} filter={filter} set={set} />;
        return <Chip key={kind} kind={kind} count={counts.kinds[kind]} filter={filter} set={set} />;
      })}
      <span className="spacer" />
      {showsAll(filter) ? null : (
        <>
          <span className="faint" data-testid="filter-shown">
            {shown} of {items.length} shown
          </span>
          <button type="button" className="btn small ghost" data-testid="filter-reset" onClick={() => set(SHOW_ALL)}>
            Show all
          </button>
        </>
      )}
    </div>
  );
}

function Chip({ kind, count, filter, set }: { kind: OutputKind; count: number; filter: OutputFilter; set: (f: OutputFilter) => void }) {
  const on = !filter.hidden.includes(kind);
  return (
    <button
      type="button"
      className="filter-chip"
      data-testid={`filter-${kind}`}
      aria-pressed={on}
      title={`${on ? "Hide" : "Show"} ${OUTPUT_KIND_LABELS[kind].toLowerCase()}`}
      onClick={() => set(toggleKind(filter, kind))}
    >
      {OUTPUT_KIND_LABELS[kind]}
      <span className="chip-count">{count}</span>
    </button>
  );
}

/** The tool calls' chip, and beside it the menu of the tools called. */
function ToolsChip({ counts, filter, set }: { counts: KindCounts; filter: OutputFilter; set: (f: OutputFilter) => void }) {
  const { open, setOpen, ref, onKeyDown } = useMenu();
  const names = counts.tools.map((t) => t.name);
  const hiddenHere = names.filter((n) => filter.hiddenTools.includes(n)).length;
  return (
    <div
      className="menu-wrap filter-tools"
      ref={ref}
      onKeyDown={onKeyDown}
    >
      <Chip kind="tools" count={counts.kinds.tools} filter={filter} set={set} />
      <Tip text={names.length === 0 ? "No tool called yet" : "Which tools' calls to show"} suppressed={open}>
        {(describedBy) => (
          <button
            type="button"
            className="filter-chip filter-caret"
            data-testid="filter-tools-menu"
            aria-haspopup="true"
            aria-expanded={open}
            aria-label="Which tools"
            aria-describedby={describedBy}
            disabled={names.length === 0}
            onClick={() => setOpen(!open)}
          >
            {hiddenHere > 0 ? (
              <span className="chip-note">
                {names.length - hiddenHere}/{names.length}
              </span>
            ) : null}
            <IconChevron size={10} />
          </button>
        )}
      </Tip>
      {open ? (
        <div className="menu filter-menu" role="group" aria-label="Tools">
          {counts.tools.map((t) => (
            <div key={t.name} className="filter-tool" data-testid="filter-tool" data-tool={t.name}>
              <label>
                <input
                  type="checkbox"
                  checked={!filter.hiddenTools.includes(t.name)}
                  onChange={() => set(toggleTool(filter, t.name))}
                />
                <ToolName name={t.name} mcp={t.mcp} className="filter-tool-name" />
                <span className="chip-count">{t.count}</span>
              </label>
              <button
                type="button"
                className="btn small ghost"
                data-testid="filter-tool-only"
                title={`Only ${t.name}'s calls`}
                onClick={() => set(onlyTool(filter, t.name, names))}
              >
                only
              </button>
            </div>
          ))}
          <button
            type="button"
            className="menu-item sep"
            data-testid="filter-tools-all"
            disabled={filter.hiddenTools.length === 0}
            onClick={() => set(allTools(filter))}
          >
            Every tool
          </button>
        </div>
      ) : null}
    </div>
  );
}
