/**
 * The window: loading and first-run screens, the session layout (live or
 * under review; the live sessions listed above its tree; its centre an
 * agent's output or the session's timeline),
 * history, settings, dialogs. The approval inbox is beside
 * every view (the live session's requests are never hidden; folded to a
 * strip while none waits), and the window title counts them. The tree and
 * the inbox are resized with splitters; in a narrow window (or at 200% zoom)
 * the panes stack and the whole scrolls.
 */
import { useEffect } from "react";
import { PerfRegion } from "./components/PerfRegion";
import { BudgetDialog } from "./components/BudgetDialog";
import { CloseDialog } from "./components/CloseDialog";
import { DelegateDialog } from "./components/DelegateDialog";
import { ErrorBanners } from "./components/ErrorBanners";
import { FirstRun } from "./components/FirstRun";
import { HistoryPanel } from "./components/HistoryPanel";
import { IconAlert, IconTree } from "./components/icons";
import { INBOX_PANE_ID, InboxPanel, useInboxFolded } from "./components/layout/InboxPanel";
import { CentrePanes, TreePanes } from "./components/layout/SessionPanes";
import { Splitter } from "./components/layout/Splitter";
import { paneVars, useSessionLayout } from "./components/layout/useSessionLayout";
import { McpTrustDialog } from "./components/McpTrustDialog";
import { MessageDialog } from "./components/MessageDialog";
import { PromptBox } from "./components/PromptBox";
import { ReviewBanner } from "./components/ReviewBanner";
import { SessionsList } from "./components/SessionsList";
import { SessionViewTabs } from "./components/SessionViewTabs";
import { SettingsPanel } from "./components/SettingsPanel";
import { StatusBar } from "./components/StatusBar";
import { TopBar } from "./components/TopBar";
import { useWindowTitle } from "./hooks/useWindowTitle";
import { installEventEffects, loadAppState } from "./ipc/actions";
import { installApprovalEffects } from "./ipc/approvals";
import { installHistoryEffects } from "./ipc/history";
import { installPaceEffects } from "./ipc/pace";
import { installShownMemory } from "./ipc/sessions";
import { installStillWhileTyping } from "./lib/stillWhileTyping";
import { installWindowWatch } from "./ipc/window";
import { modalOpen } from "./lib/approvalKeys";
import { markInteractive } from "./lib/perf";
import { bookStore } from "./store/review";
import { liveStore, sessionStore } from "./store/sessionStore";
import { useStore } from "./store/store";
import { toggleHistory, uiStore } from "./store/ui";
import { Spinner } from "./components/Spinner";

const TREE_PANE_ID = "agent-tree-pane";

/** Ctrl+H (Cmd+H on macOS) shows or hides the history; not over a dialog, whose draft it would drop. */
function onGlobalKey(e: KeyboardEvent): void {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "h") {
    e.preventDefault();
    if (!modalOpen()) toggleHistory();
  }
}

export function App() {
  useEffect(() => {
    const offEvents = installEventEffects();
    const offHistory = installHistoryEffects();
    const offApprovals = installApprovalEffects();
    const offPace = installPaceEffects();
    const offShown = installShownMemory();
    const offStill = installStillWhileTyping();
    installWindowWatch();
    window.addEventListener("keydown", onGlobalKey);
    void loadAppState();
    return () => {
      offEvents();
      offHistory();
      offApprovals();
      offPace();
      offShown();
      offStill();
      window.removeEventListener("keydown", onGlobalKey);
    };
  }, []);
  const asked = useStore(uiStore, (s) => s.closeQuestion);
  return (
    <>
      <Screen />
      {/* The window's own question, whatever the screen (sessions may run in a backend this
          page could not load, or whose first answer is still to come) and over every other
          dialog; here, so that a screen changing under it does not draw it anew. */}
      {asked === null ? null : <CloseDialog sessionsAtWork={asked.sessionsAtWork} />}
    </>
  );
}

/** What the window shows: starting, the backend unreachable, or the app's layout with its dialogs. */
function Screen() {
  const loading = useStore(uiStore, (s) => s.appLoading && s.app === null);
  // The first screen after loading is what a cold start is measured to.
  useEffect(() => {
    if (!loading) markInteractive();
  }, [loading]);
  const appError = useStore(uiStore, (s) => s.appError);
  const noProvider = useStore(
    uiStore,
    (s) => s.app !== null && !s.app.providers.some((p) => p.ready) && s.session === null && !s.starting,
  );
  // A demo still running beside the fresh page keeps the session layout (its list shows it).
  const noneLive = useStore(liveStore, (r) => r.slots.length === 0);
  const firstRun = noProvider && noneLive;
  const view = useStore(uiStore, (s) => s.view);
  const dialog = useStore(uiStore, (s) => s.dialog);
  const hasAgents = useStore(sessionStore, (s) => s.roots.length > 0);
  const reviewing = useStore(bookStore, (b) => b.review !== null);
  const folded = useInboxFolded();
  const layout = useSessionLayout(folded);
  useWindowTitle();

  if (loading) {
    return (
      <div className="center-screen">
        <div className="empty">
          <span className="status-icon running">
            <Spinner />
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

  const shape = `${folded ? " inbox-folded" : ""}${layout.narrow ? " narrow" : ""}`;
  const inbox = (
    <>
      {folded || layout.narrow ? null : (
        <Splitter pane="inbox" side="end" size={layout.inbox} label="Resize the approvals" controls={INBOX_PANE_ID} />
      )}
      <PerfRegion id="inbox">
        <InboxPanel folded={folded} />
      </PerfRegion>
    </>
  );
  let body;
  if (view === "settings") {
    body = (
      <>
        <TopBar />
        <div className={`with-inbox${shape}`} style={paneVars(layout)}>
          <SettingsPanel />
          {inbox}
        </div>
      </>
    );
  } else if (view === "history") {
    body = (
      <>
        <TopBar />
        <div className={`with-inbox${shape}`} style={paneVars(layout)}>
          <HistoryPanel />
          {inbox}
        </div>
      </>
    );
  } else if (firstRun && !hasAgents && !reviewing) {
    body = <FirstRun />;
  } else {
    body = (
      <>
        <PerfRegion id="top bar">
          <TopBar />
        </PerfRegion>
        <div className={`main${reviewing ? " reviewing" : ""}${shape}`} style={paneVars(layout)}>
          <ReviewBanner />
          <aside className="panel tree-panel" id={TREE_PANE_ID} aria-label="Agent tree">
            <PerfRegion id="sessions">
              <SessionsList />
            </PerfRegion>
            <div className="panel-header">
              <IconTree size={12} /> Agents
            </div>
            <TreePanes />
          </aside>
          {layout.narrow ? null : (
            <Splitter pane="tree" side="start" size={layout.tree} label="Resize the agent tree" controls={TREE_PANE_ID} />
          )}
          <section className="center" aria-label="Output">
            <SessionViewTabs />
            <CentrePanes />
            <PerfRegion id="prompt">
              <PromptBox />
            </PerfRegion>
          </section>
          {inbox}
        </div>
      </>
    );
  }

  return (
    <div className="app">
      {body}
      {view !== "session" || !(firstRun && !hasAgents && !reviewing) ? (
        <PerfRegion id="status bar">
          <StatusBar />
        </PerfRegion>
      ) : (
        <div />
      )}
      {dialog?.kind === "delegate" ? <DelegateDialog parentId={dialog.parentId} /> : null}
      {dialog?.kind === "message" ? <MessageDialog agentId={dialog.agentId} /> : null}
      {dialog?.kind === "budget" ? <BudgetDialog agentId={dialog.agentId} /> : null}
      <McpTrustDialog />
      <ErrorBanners />
    </div>
  );
}
