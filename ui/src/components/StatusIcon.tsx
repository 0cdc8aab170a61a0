/** The icon of an agent status: a live spinner while running. */
import type { AgentStatus } from "../bindings";
import { statusLabel } from "../lib/format";
import { IconCheck, IconClock, IconGauge, IconHand, IconLimit, IconPause, IconSlash, IconX } from "./icons";
import { Spinner, usePhase } from "./Spinner";

export function StatusIcon({ status }: { status: AgentStatus }) {
  return (
    <span className={`status-icon ${status}`} title={statusLabel(status)} aria-label={statusLabel(status)} role="img">
      {icon(status)}
    </span>
  );
}

function icon(status: AgentStatus) {
  switch (status) {
    case "running":
      return <Spinner />;
    case "queued":
      return <IconClock />;
    case "waiting_approval":
      return <Pulse />;
    case "completed":
      return <IconCheck />;
    case "failed":
      return <IconX />;
    case "cancelled":
      return <IconSlash />;
    // Stopped at a limit (turns, output tokens): not a failure, and it can be resumed.
    case "max_turns":
    case "truncated":
      return <IconLimit />;
    case "interrupted":
      return <IconPause />;
    // Its budget, or an ancestor's, ran out: raising it carries on.
    case "budget_exhausted":
      return <IconGauge />;
    default: {
      const never: never = status;
      return never;
    }
  }
}

/** The pulse's period (styles/layout.css `.pulse`). */
const PULSE_MS = 1400;

/** Waiting for a person: pulsing in step with every other (as spinners turn, Spinner.tsx). */
function Pulse() {
  const { style, ref } = usePhase(PULSE_MS);
  return (
    <span className="pulse" style={style} ref={ref}>
      <IconHand />
    </span>
  );
}
