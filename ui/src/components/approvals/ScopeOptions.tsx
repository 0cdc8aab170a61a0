/**
 * The scope options of an answer, each saying exactly what it covers with the
 * tool's and the agent's names ("Write for “Update changelog” and all its
 * subagents"). One is chosen; Approve and Deny both answer with it. Keys 1–4
 * choose them too (the inbox's keyboard).
 */
import { APPROVAL_SCOPES, type ApprovalScope } from "../../bindings";
import { scopeLabel, type RuleNames } from "../../lib/approvals";

export function ScopeOptions(props: {
  names: RuleNames;
  scope: ApprovalScope;
  disabled: boolean;
  onChoose: (scope: ApprovalScope) => void;
}) {
  const { names, scope, disabled, onChoose } = props;
  return (
    <div className="scope-options" role="radiogroup" aria-label="What the answer covers" data-testid="approval-scope">
      {APPROVAL_SCOPES.map((s, i) => (
        <button
          key={s}
          type="button"
          role="radio"
          aria-checked={s === scope}
          className={`scope-option${s === scope ? " chosen" : ""}`}
          data-testid="scope-option"
          data-scope={s}
          disabled={disabled}
          // One stop in the tab order (the chosen one); keys 1–4 choose from the card.
          tabIndex={s === scope ? 0 : -1}
          onClick={() => onChoose(s)}
        >
          <span className="dot" aria-hidden="true" />
          <span className="label">{scopeLabel(s, names.tool, names.agent)}</span>
          <kbd aria-hidden="true">{i + 1}</kbd>
        </button>
      ))}
    </div>
  );
}
