/**
 * "Active rules": every approval rule in force in the window's live sessions
 * (under each session's name when several have some), with what it covers,
 * whether it allows or refuses, when it was set and by which answer; Revoke
 * withdraws it (the next call it covered asks again). Below them, the
 * permission rules of the settings files the session loaded, each with its
 * file (edit the file to change one). Shown in the approval
 * inbox and on the settings page; a reviewed past session has none in force,
 * so this always reads the live sessions.
 */
import { useId } from "react";
import type { ApprovalChoice } from "../bindings";
import { revokeRule } from "../ipc/approvals";
import { clockTime, ruleLabel, ruleOrigin } from "../lib/approvals";
import { approvalsStore } from "../store/approvals";
import { ruleGroups } from "../store/inbox";
import { liveViews } from "../store/sessionStore";
import { useStore } from "../store/store";
import { IconX } from "./icons";

/** A settings rule's badge: "Allow", "Ask", "Refuse". */
function settingWord(d: ApprovalChoice): string {
  return d === "allow" ? "Allow" : d === "ask" ? "Ask" : "Refuse";
}

function settingBadge(d: ApprovalChoice): string {
  return d === "allow" ? "allow" : d === "ask" ? "waiting" : "failed";
}

/**
 * `card`: drawn as a settings card (its heading in the card's title bar);
 * `hideWhenEmpty`: nothing at all while no rule is in force (the inbox).
 */
export function ActiveRules({ hideWhenEmpty = false, card = false }: { hideWhenEmpty?: boolean; card?: boolean }) {
  const groups = useStore(liveViews, ruleGroups);
  const count = groups.reduce((n, g) => n + g.rows.length + g.settings.length, 0);
  const revoking = useStore(approvalsStore, (s) => s.revoking);
  const headingId = useId();
  if (count === 0 && hideWhenEmpty) return null;
  const heading = (
    <>
      Active rules <span className="count">{count}</span>
    </>
  );
  return (
    <section className={card ? "card" : "active-rules"} data-testid="active-rules" aria-labelledby={headingId}>
      {card ? (
        <h2 id={headingId}>{heading}</h2>
      ) : (
        <div className="active-rules-head" id={headingId}>
          {heading}
        </div>
      )}
      <div className={card ? "card-body active-rules-body" : "active-rules-body"}>
        {count === 0 ? (
          <div className="hint">
            No rules in force. Answering a request for more than the one call sets a rule: later calls it covers run (or
            are refused) without asking, until you revoke it.
          </div>
        ) : (
          groups.map((g) => (
          <ul className="rule-list" key={g.key} aria-label={groups.length > 1 ? `Rules of ${g.name}` : undefined}>
            {groups.length > 1 ? (
              <li className="rule-session" data-testid="rule-session">
                {g.name}
              </li>
            ) : null}
            {g.rows.map(({ rule, names }) => {
              const busy = !!revoking[rule.rule_id];
              return (
                <li key={rule.rule_id} className={`rule${busy ? " revoking" : ""}`} data-testid="rule" data-rule-id={rule.rule_id}>
                  <div className="rule-main">
                    <span className={`badge ${rule.approved ? "allow" : "failed"}`}>{rule.approved ? "Allow" : "Refuse"}</span>
                    <span className="rule-label">{ruleLabel(rule, names)}</span>
                  </div>
                  <div className="rule-origin">
                    set {clockTime(rule.created_at)} by {ruleOrigin(names)}
                  </div>
                  <button
                    type="button"
                    className="btn small ghost danger"
                    data-testid="rule-revoke"
                    disabled={busy}
                    title="Withdraw this rule: the next call it covers asks again"
                    onClick={() => void revokeRule(g.key, rule.rule_id)}
                  >
                    <IconX size={11} /> {busy ? "Revoking…" : "Revoke"}
                  </button>
                </li>
              );
            })}
            {g.settings.map((r, i) => (
              <li key={`setting-${i}`} className="rule setting" data-testid="settings-rule" data-decision={r.decision}>
                <div className="rule-main">
                  <span className={`badge ${settingBadge(r.decision)}`}>{settingWord(r.decision)}</span>
                  <code className="mono rule-label">{r.rule}</code>
                </div>
                <div className="rule-origin" title={r.source}>
                  from {r.source}
                </div>
              </li>
            ))}
          </ul>
          ))
        )}
      </div>
    </section>
  );
}
