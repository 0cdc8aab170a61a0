/**
 * The session panes: the agent tree and the centre (an agent's output, or the
 * timeline) of every live session stay mounted, one over another, and only
 * the shown session's are seen (store/sessionScope.ts says why). A pane out
 * of view renders nothing new until it is shown again, or until its session
 * has been quiet for a second; then it renders only what its session did
 * meanwhile. A fresh page or a past session under
 * review has a pane of its own, the displayed session's.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, type ReactNode } from "react";
import { focusPast } from "../../lib/focusPast";
import { holdStill } from "../../lib/stillWhileTyping";
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
  // Closed sessions' scopes let go once their panes are gone.
  useEffect(() => forgetScopes(keys === "" ? [] : keys.split(" ")), [keys]);
  return useMemo(() => {
    const scopes = (keys === "" ? [] : keys.split(" ")).map(scopeOfSlot);
    return liveShown ? scopes : [...scopes, displayedScope];
  }, [keys, liveShown]);
}

/**
 * A pane is moved in or out of view at once, and nothing else of it changes: a
 * hidden pane is out of the cell's clip (no pointer reaches it), hidden from
 * screen readers, and focus that enters it is sent on past it (`focusPast`).
 * Not `inert`: it is inherited, and restyling a whole pane each time it was
 * shown cost a switch some 20 ms here (docs/speed.md).
 */
function Pane({ scope, children }: { scope: SessionScope; children: ReactNode }) {
  const shown = useStore(scope.shown, (s) => s);
  const pane = useRef<HTMLDivElement>(null);
  // Out of view: its focus dropped, the keyboard kept out, its spinners still; shown again,
  // they turn in step with the rest.
  useLayoutEffect(() => {
    const el = pane.current;
    if (shown || el === null) return undefined;
    const focused = document.activeElement;
    if (focused instanceof HTMLElement && el.contains(focused)) focused.blur();
    const onFocusIn = (e: FocusEvent) => focusPast(el, e.relatedTarget instanceof Element ? e.relatedTarget : null);
    el.addEventListener("focusin", onFocusIn);
    const play = holdStill(el);
    return () => {
      el.removeEventListener("focusin", onFocusIn);
      play();
    };
  }, [shown]);
  return (
    <SessionScopeContext.Provider value={scope}>
      <div className="session-pane" data-pane={shown ? "shown" : "hidden"} aria-hidden={shown ? undefined : true} ref={pane}>
        {children}
      </div>
    </SessionScopeContext.Provider>
  );
}

/** One pane of `view` for each kept session, in a box of `className`; `region` names it in the profile. */
function Panes({ className, region, view }: { className: string; region: string; view: ReactNode }) {
  const panes = usePanes();
  return (
    <div className={className}>
      {panes.map((scope) => (
        <Pane key={scope.key ?? "displayed"} scope={scope}>
          <PerfRegion id={region}>{view}</PerfRegion>
        </Pane>
      ))}
    </div>
  );
}

/** The agent trees, in the tree panel's body (each pane scrolls on its own). */
export function TreePanes() {
  return <Panes className="panel-body session-panes" region="tree" view={<AgentTree />} />;
}

/** The centres: the selected agent's output, or the session's timeline while it is shown. */
export function CentrePanes() {
  return <Panes className="session-panes centre-panes" region="output" view={<Centre />} />;
}

/** The session's output, or its timeline. */
function Centre() {
  const view = useSessionView((v) => v.sessionView);
  return view === "timeline" ? <TimelineWhileShown /> : <OutputView />;
}

/** A timeline is drawn only while it is seen (an output is kept): only this reads whether the pane is, so showing it renders no output. */
function TimelineWhileShown() {
  return usePaneShown() ? <TimelineView /> : null;
}
