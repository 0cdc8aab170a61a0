/**
 * The session at a glance: main agent state, subagents by status (those a
 * budget stopped counted apart, when there are any), the session's budget
 * (the main agent's standing, when it has one), tokens and cost of the
 * displayed session, and the live session's pending approvals.
 */
import { formatCost, formatTokens, statusLabel } from "../lib/format";
import { mainAgent, sessionStanding, subagentCounts } from "../store/selectors";
import { bookStore } from "../store/review";
import { liveSession, sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { uiStore } from "../store/ui";
import { BudgetMeter } from "./BudgetMeter";

export function StatusBar() {
  const counts = useStore(sessionStore, (s) => subagentCounts(s.agents));
  const main = useStore(sessionStore, (s) => mainAgent(s)?.status ?? null);
  // The live session's, even while a past one is displayed: its requests are never hidden.
  const approvals = useStore(liveSession, (s) => s.pending.length);
  const totals = useStore(sessionStore, (s) => s.usage.session);
  const budget = useStore(sessionStore, sessionStanding);
  const starting = useStore(uiStore, (s) => s.starting);
  const session = useStore(uiStore, (s) => s.session);
  const review = useStore(bookStore, (b) => b.review?.detail.session ?? null);
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
      <Count testId="count-running" label="running" n={counts.running} color="var(--running)" />
      <Count testId="count-queued" label="queued" n={counts.queued} color="var(--queued)" />
      <Count testId="count-waiting" label="waiting" n={counts.waiting} color="var(--waiting)" />
      <Count testId="count-completed" label="completed" n={counts.completed} color="var(--completed)" />
      <Count testId="count-failed" label="failed" n={counts.failed} color="var(--failed)" />
      <Count testId="count-stopped" label="stopped" n={counts.stopped} color="var(--cancelled)" />
      {counts.budget > 0 ? (
        <Count testId="count-budget" label="budget exhausted" n={counts.budget} color="var(--budget)" />
      ) : null}
      <span className="sep" />
      <span className={`item${approvals > 0 ? " hot" : ""}`} data-testid="count-approvals">
        <span className="num">{approvals}</span> approval{approvals === 1 ? "" : "s"} pending
      </span>
      <span className="spacer" />
      {review ? (
        <span className="item faint mono" title={review.workspace} data-testid="review-model">
          past session · {review.model}
        </span>
      ) : session ? (
        <span className="item faint mono" title={session.workspace}>
          {session.demo ? "demo · " : ""}
          {session.model}
        </span>
      ) : null}
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

function Count({ testId, label, n, color }: { testId: string; label: string; n: number; color: string }) {
  return (
    <span className="item" data-testid={testId} title={`Subagents ${label}`}>
      <span className="dot" style={{ color, opacity: n > 0 ? 1 : 0.35 }} />
      <span className="num">{n}</span> {label}
    </span>
  );
}
