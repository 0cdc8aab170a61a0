/**
 * "Export…": the displayed session, or the shown agent's transcript, as
 * Markdown or JSON. Its tooltip stays away while the menu is open (a native
 * title's covered the first item).
 */
import { useMenu } from "../hooks/useMenu";
import type { AgentId, ExportFormat } from "../bindings";
import { exportTranscript } from "../ipc/history";
import { Tip } from "../lib/tooltip";
import { IconDownload } from "./icons";

const CHOICES: { id: string; label: string; agent: boolean; format: ExportFormat }[] = [
  { id: "export-session-markdown", label: "Session as Markdown", agent: false, format: "markdown" },
  { id: "export-session-json", label: "Session as JSON", agent: false, format: "json" },
  { id: "export-agent-markdown", label: "This agent as Markdown", agent: true, format: "markdown" },
  { id: "export-agent-json", label: "This agent as JSON", agent: true, format: "json" },
];

export function ExportMenu({ agentId }: { agentId: AgentId }) {
  const { open, setOpen, ref, onKeyDown } = useMenu();
  return (
    <div
      className="menu-wrap"
      ref={ref}
      onKeyDown={onKeyDown}
    >
      <Tip text="Save this session or this agent's transcript to a file" suppressed={open} align="end">
        {(describedBy) => (
          <button
            type="button"
            className="btn small"
            data-testid="export-menu"
            aria-haspopup="menu"
            aria-expanded={open}
            aria-describedby={describedBy}
            onClick={() => setOpen(!open)}
          >
            <IconDownload size={12} /> Export…
          </button>
        )}
      </Tip>
      {open ? (
        <div className="menu" role="menu">
          {CHOICES.map((c, i) => (
            <button
              key={c.id}
              type="button"
              role="menuitem"
              className={`menu-item${i === 2 ? " sep" : ""}`}
              data-testid={c.id}
              onClick={() => {
                setOpen(false);
                void exportTranscript(c.agent ? agentId : null, c.format);
              }}
            >
              {c.label}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
