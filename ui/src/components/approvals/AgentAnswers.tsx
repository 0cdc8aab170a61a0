/**
 * An external ACP agent's own answers to its permission request, in its words
 * ("Always Allow", "Allow", "Reject"), in place of Arbor's scope options: each
 * button answers as what Rust says it is in Arbor's terms (its title says what
 * that covers: an "always" is this agent's rule in Arbor too), and the agent is
 * sent that very option back. Keys a and d still answer once.
 */
import type { AgentOption } from "../../bindings";
import { scopeLabel, type RuleNames } from "../../lib/approvals";
import { IconCheck, IconX } from "../icons";

export function AgentAnswers(props: {
  options: readonly AgentOption[];
  names: RuleNames;
  sending: boolean;
  onAnswer: (option: AgentOption) => void;
}) {
  const { options, names, sending, onAnswer } = props;
  return (
    <div className="agent-answers" role="group" aria-label="The agent's own answers" data-testid="agent-answers">
      <span className="faint agent-answers-note">Its own answers</span>
      {options.map((o) => (
        <button
          key={`${o.approved}-${o.scope}`}
          type="button"
          className={`btn ${o.approved ? "approve" : "danger"}`}
          data-testid="agent-option"
          data-approved={o.approved}
          data-scope={o.scope}
          disabled={sending}
          title={o.approved ? `Allow: ${scopeLabel(o.scope, names.tool, names.agent)}` : `Refuse: ${scopeLabel(o.scope, names.tool, names.agent)}`}
          onClick={() => onAnswer(o)}
        >
          {o.approved ? <IconCheck size={12} /> : <IconX size={12} />} {o.name}
        </button>
      ))}
    </div>
  );
}
