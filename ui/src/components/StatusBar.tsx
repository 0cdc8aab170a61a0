/**
 * The session at a glance: main agent state, subagents by status (those at
 * work, completed and failed always; every other end, such as stopped,
 * interrupted or out of budget, whenever some subagent has it), the session's budget
 * (the main agent's standing, when it has one), tokens and cost of the
 * displayed session, and the live sessions' pending approvals. Not the model:
 * the top bar, the agent's header and the prompt box name it, and at 1024 px
 * the bar had room for it only by cutting it to a letter.
 */
import type { AgentStatus } from "../bindings";
import { formatCost, formatTokens, statusLabel } from "../lib/format";
import { mainAgent, sessionStanding, subagentStatusCounts } from "../store/selectors";
import { pendingCount } from "../store/inbox";
import { liveViews, sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { uiStore } from "../store/ui";
import { BudgetMeter } from "./BudgetMeter";

export function StatusBar() {
  const counts = useStore(sessionStore, (s) => subagentStatusCounts(s.agents));
  const main = useStore(sessionStore, (s) => mainAgent(s)?.status ?? null);
  // The live session's, even while a past one is displayed: its requests are never hidden.
  const approvals = useStore(liveViews, pendingCount);
  const totals = useStore(sessionStore, (s) => s.usage.session);
  const budget = useStore(sessionStore, sessionStanding);
  const starting = useStore(uiStore, (s) => s.starting);
  // No figures yet: nothing used.
  const tokens = totals?.tokens ?? 0;
  const cost = formatCost(totals?.usage.cost_usd ?? null);
  const mainText = main ? statusLabel(main) : starting ? "starting" : "idle";
  return (
    <footer className="statusbar" data-testid="status-bar">
      <span className="item" data-testid="main-status" title="Main agent">
        <span className={`status-icon ${main ?? ""}`}>
          <span className="dot" />
        </span>
        Main: <span className="num">{mainText}</span>
      </span>
      <span className="sep" />
      <span className="counts" role="group" aria-label="Subagents by status">
        {counts.map(({ status, n }) => (
          <Count key={status} status={status} n={n} />
        ))}
      </span>
      <span className="sep" />
      <span className={`item${approvals > 0 ? " hot" : ""}`} data-testid="count-approvals">
        <span className="num">{approvals}</span> approval{approvals === 1 ? "" : "s"} pending
      </span>
      <span className="spacer" />
      {budget ? (
        <span className="item" data-testid="session-budget">
          <BudgetMeter standing={budget} withText testId="session-budget-meter" />
        </span>
      ) : null}
      <span className="item" data-testid="total-tokens" title={`${formatTokens(tokens)} tokens`}>
        <span className="num">{tokens}</span> tokens
        {cost ? <span className="num">· {cost}</span> : null}
      </span>
    </footer>
  );
}

/**
 * Each status's words in the bar, and the test id e2e waits on; a status Rust
 * adds fails the typecheck until it has its words here.
 */
const COUNT_WORDS: Readonly<Record<AgentStatus, { label: string; testId: string }>> = {
  queued: { label: "queued", testId: "count-queued" },
  running: { label: "running", testId: "count-running" },
  waiting_approval: { label: "waiting", testId: "count-waiting" },
  completed: { label: "completed", testId: "count-completed" },
  failed: { label: "failed", testId: "count-failed" },
  // Stopped by a person (Stop): "cancelled" in Rust's words.
  cancelled: { label: "stopped", testId: "count-stopped" },
  max_turns: { label: "at turn limit", testId: "count-max-turns" },
  truncated: { label: "cut off", testId: "count-truncated" },
  interrupted: { label: "interrupted", testId: "count-interrupted" },
  budget_exhausted: { label: "budget exhausted", testId: "count-budget" },
};

function Count({ status, n }: { status: AgentStatus; n: number }) {
  const { label, testId } = COUNT_WORDS[status];
  return (
    <span className="item" data-testid={testId} data-status={status} title={`Subagents ${statusLabel(status)}`}>
      {/* The status's own colour, as its icon in the tree has it; faint while none has it. */}
      <span className={`status-icon ${status}`} aria-hidden="true">
        <span className="dot" style={{ opacity: n > 0 ? 1 : 0.35 }} />
      </span>
      <span className="num">{n}</span> {label}
    </span>
  );
}
