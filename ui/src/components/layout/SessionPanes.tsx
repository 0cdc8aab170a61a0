/**
 * The session panes: the agent tree and the centre (an agent's output, or the
 * timeline) of every live session stay mounted, one over another, and only
 * the shown session's are seen (store/sessionScope.ts says why). A pane out
 * of view renders nothing new until it is shown again; then it renders only
 * what its session did meanwhile. A fresh page or a past session under
 * review has a pane of its own, the displayed session's.
 */
import { useEffect, useMemo, useState, type ReactNode } from "react";
import {
  displayedScope,
  forgetScopes,
  scopeOfSlot,
  SessionScopeContext,
  usePaneShown,
  useSessionView,
  type SessionScope,
} from "../../store/sessionScope";
import { liveStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { AgentTree } from "../AgentTree";
import { OutputView } from "../output/OutputView";
import { PerfRegion } from "../PerfRegion";
import { TimelineView } from "../timeline/TimelineView";

/** The scopes of the panes the window keeps: every live session's, and the displayed session's while no live one is shown. */
function usePanes(): readonly SessionScope[] {
  const keys = useStore(liveStore, (r) => r.slots.map((s) => s.key).join(" "));
  const liveShown = useStore(liveStore, (r) => r.current !== null && r.shown);
  return useMemo(() => {
    const live = keys === "" ? [] : keys.split(" ");
    forgetScopes(live);
    const scopes = live.map(scopeOfSlot);
    return liveShown ? scopes : [...scopes, displayedScope];
  }, [keys, liveShown]);
}

/**
 * A pane is moved in or out of view at once, and made reachable (or inert) in
 * the task after that frame is painted: `inert` is inherited, and changing it
 * restyles every element of both sessions' panes, which held the switch's
 * frame back by 30–50 ms here (docs/speed.md). Nothing can be clicked in a
 * pane before the frame that shows it, and a hidden pane is out of the
 * cell's clip, so only the keyboard could reach it meanwhile, for that frame.
 */
function Pane({ scope, children }: { scope: SessionScope; children: ReactNode }) {
  const shown = useStore(scope.shown, (s) => s);
  const [reachable, setReachable] = useState(shown);
  useEffect(() => {
    if (reachable === shown) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setReachable(shown), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== null) clearTimeout(timer);
    };
  }, [shown, reachable]);
  return (
    <SessionScopeContext.Provider value={scope}>
      <div className="session-pane" data-pane={shown ? "shown" : "hidden"} inert={!reachable}>
        {children}
      </div>
    </SessionScopeContext.Provider>
  );
}

/** The agent trees, in the tree panel's body (each pane scrolls on its own). */
export function TreePanes() {
  const panes = usePanes();
  return (
    <div className="panel-body session-panes">
      {panes.map((scope) => (
        <Pane key={scope.key ?? "displayed"} scope={scope}>
          <PerfRegion id="tree">
            <AgentTree />
          </PerfRegion>
        </Pane>
      ))}
    </div>
  );
}

/** The centres: the selected agent's output, or the session's timeline while it is shown. */
export function CentrePanes() {
  const panes = usePanes();
  return (
    <div className="session-panes centre-panes">
      {panes.map((scope) => (
        <Pane key={scope.key ?? "displayed"} scope={scope}>
          <PerfRegion id="output">
            <Centre />
          </PerfRegion>
        </Pane>
      ))}
    </div>
  );
}

/** A timeline is drawn only while it is seen; an output is kept. */
function Centre() {
  const view = useSessionView((v) => v.sessionView);
  const shown = usePaneShown();
  if (view !== "timeline") return <OutputView />;
  return shown ? <TimelineView /> : null;
}
