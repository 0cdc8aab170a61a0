/**
 * The window: loading and first-run screens, the session layout (live or
 * under review; its centre an agent's output or the session's timeline),
 * history, settings, dialogs. The approval inbox is beside
 * every view (the live session's requests are never hidden), and the window
 * title counts them.
 */
import { useEffect } from "react";
import { AgentTree } from "./components/AgentTree";
import { ApprovalInbox } from "./components/ApprovalInbox";
import { BudgetDialog } from "./components/BudgetDialog";
import { DelegateDialog } from "./components/DelegateDialog";
import { ErrorBanners } from "./components/ErrorBanners";
import { FirstRun } from "./components/FirstRun";
import { HistoryPanel } from "./components/HistoryPanel";
import { IconAlert, IconTree } from "./components/icons";
import { McpTrustDialog } from "./components/McpTrustDialog";
import { MessageDialog } from "./components/MessageDialog";
import { OutputView } from "./components/output/OutputView";
import { PromptBox } from "./components/PromptBox";
import { ReviewBanner } from "./components/ReviewBanner";
import { SessionViewTabs } from "./components/SessionViewTabs";
import { SettingsPanel } from "./components/SettingsPanel";
import { StatusBar } from "./components/StatusBar";
import { TimelineView } from "./components/timeline/TimelineView";
import { TopBar } from "./components/TopBar";
import { useWindowTitle } from "./hooks/useWindowTitle";
import { installEventEffects, loadAppState } from "./ipc/actions";
import { installApprovalEffects } from "./ipc/approvals";
import { installHistoryEffects } from "./ipc/history";
import { bookStore } from "./store/review";
import { liveSession, sessionStore } from "./store/sessionStore";
import { useStore } from "./store/store";
import { toggleHistory, uiStore } from "./store/ui";

/** Ctrl+H (Cmd+H on macOS) shows or hides the history. */
function onGlobalKey(e: KeyboardEvent): void {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "h") {
    e.preventDefault();
    toggleHistory();
  }
}

export function App() {
  useEffect(() => {
    const offEvents = installEventEffects();
    const offHistory = installHistoryEffects();
    const offApprovals = installApprovalEffects();
    window.addEventListener("keydown", onGlobalKey);
    void loadAppState();
    return () => {
      offEvents();
      offHistory();
      offApprovals();
      window.removeEventListener("keydown", onGlobalKey);
    };
  }, []);
  const loading = useStore(uiStore, (s) => s.appLoading && s.app === null);
  const appError = useStore(uiStore, (s) => s.appError);
  const firstRun = useStore(
    uiStore,
    (s) => s.app !== null && !s.app.providers.some((p) => p.ready) && s.session === null && !s.starting,
  );
  const view = useStore(uiStore, (s) => s.view);
  const sessionView = useStore(uiStore, (s) => s.sessionView);
  const dialog = useStore(uiStore, (s) => s.dialog);
  const hasAgents = useStore(sessionStore, (s) => s.roots.length > 0);
  const reviewing = useStore(bookStore, (b) => b.review !== null);
  useWindowTitle();

  if (loading) {
    return (
      <div className="center-screen">
        <div className="empty">
          <span className="status-icon running">
            <span className="spinner" />
          </span>
          <div className="title">Starting Arbor…</div>
        </div>
      </div>
    );
  }
  if (appError !== null && !hasAgents) {
    return (
      <div className="center-screen">
        <div className="empty">
          <IconAlert size={28} />
          <div className="title">Could not reach Arbor's backend</div>
          <div className="muted">{appError}</div>
          <button type="button" className="btn" onClick={() => void loadAppState()}>
            Retry
          </button>
        </div>
      </div>
    );
  }

  let body;
  if (view === "settings") {
    body = (
      <>
        <TopBar />
        <div className="with-inbox">
          <SettingsPanel />
          <InboxPanel />
        </div>
      </>
    );
  } else if (view === "history") {
    body = (
      <>
        <TopBar />
        <div className="with-inbox">
          <HistoryPanel />
          <InboxPanel />
        </div>
      </>
    );
  } else if (firstRun && !hasAgents && !reviewing) {
    body = <FirstRun />;
  } else {
    body = (
      <>
        <TopBar />
        <div className={`main${reviewing ? " reviewing" : ""}`}>
          <ReviewBanner />
          <aside className="panel" aria-label="Agent tree">
            <div className="panel-header">
              <IconTree size={12} /> Agents
            </div>
            <div className="panel-body">
              <AgentTree />
            </div>
          </aside>
          <section className="center" aria-label="Output">
            <SessionViewTabs />
            {sessionView === "timeline" ? <TimelineView /> : <OutputView />}
            <PromptBox />
          </section>
          <InboxPanel />
        </div>
      </>
    );
  }

  return (
    <div className="app">
      {body}
      {view !== "session" || !(firstRun && !hasAgents && !reviewing) ? <StatusBar /> : <div />}
      {dialog?.kind === "delegate" ? <DelegateDialog parentId={dialog.parentId} /> : null}
      {dialog?.kind === "message" ? <MessageDialog agentId={dialog.agentId} /> : null}
      {dialog?.kind === "budget" ? <BudgetDialog agentId={dialog.agentId} /> : null}
      <McpTrustDialog />
      <ErrorBanners />
    </div>
  );
}

/** The approval inbox with its header: the live session's count, whichever session is displayed. */
function InboxPanel() {
  const n = useStore(liveSession, (s) => s.pending.length);
  return (
    <aside className="panel inbox-panel" aria-label="Approvals" data-testid="inbox-panel">
      <div className="panel-header">
        Approvals <span className={`count${n > 0 ? " hot" : ""}`}>{n}</span>
      </div>
      <div className="panel-body">
        <ApprovalInbox />
      </div>
    </aside>
  );
}
