/**
 * The timeline chart: the time axis above, then the rows, scrolled together:
 * the agents' labels (indented and collapsible like the tree), their lanes on
 * one canvas that stays in view while the rows scroll, and what each waited
 * for the person. Only the visible rows are rendered and painted.
 *
 * Pointer: drag pans (and scrolls), Ctrl/⌘ + wheel zooms around the pointer,
 * Shift + wheel or a horizontal wheel pans, a click on a segment shows its
 * event in the agent's output, a click elsewhere on a row selects the agent.
 * Keyboard (the chart has focus): arrows pan and scroll, + and − zoom, 0 fits.
 */
import { memo, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import type { AgentId } from "../../bindings";
import { showInOutput } from "../../ipc/timeline";
import { formatSpan, rowWindow } from "../../lib/timeline";
import { agentName, effectiveSelection, visibleRows, type TreeRow } from "../../store/selectors";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { laneWaiting, timelineStore } from "../../store/timeline";
import { select, setCollapsed, uiStore } from "../../store/ui";
import { IconChevron } from "../icons";
import { StatusIcon } from "../StatusIcon";
import type { TimelineController } from "./controller";
import { AXIS_HEIGHT, ROW_HEIGHT } from "./draw";
import { ZOOM_STEP } from "./TimelineToolbar";

/** Label rows rendered beyond the visible ones, either side. */
const OVERSCAN = 4;
/** A press moves this far before it is a drag rather than a click. */
const DRAG_SLOP = 3;

interface Drag {
  startX: number;
  startY: number;
  lastX: number;
  lastY: number;
  moved: boolean;
}

export function TimelineChart({ controller }: { controller: TimelineController }) {
  const collapsed = useStore(uiStore, (s) => s.collapsed);
  const rows = useStore(sessionStore, (s) => visibleRows(s, collapsed));
  const uiSelected = useStore(uiStore, (s) => s.selected);
  const selected = useStore(sessionStore, (s) => effectiveSelection(s, uiSelected));
  const scrollRef = useRef<HTMLDivElement>(null);
  const cellRef = useRef<HTMLDivElement>(null);
  const lanesRef = useRef<HTMLCanvasElement>(null);
  const axisRef = useRef<HTMLCanvasElement>(null);
  const drag = useRef<Drag | null>(null);
  const [box, setBox] = useState({ width: 0, height: 0, scrollTop: 0 });
  const hintId = useId();

  useLayoutEffect(() => {
    const scroll = scrollRef.current;
    const cell = cellRef.current;
    const lanes = lanesRef.current;
    const axis = axisRef.current;
    if (!scroll || !cell || !lanes || !axis) return;
    const measure = () => {
      const width = cell.offsetWidth;
      const height = scroll.clientHeight;
      controller.setSize(width, height);
      setBox((b) => (b.width === width && b.height === height ? b : { ...b, width, height }));
    };
    measure();
    controller.attach(lanes, axis);
    const resize = typeof ResizeObserver === "function" ? new ResizeObserver(measure) : null;
    resize?.observe(scroll);
    resize?.observe(cell);
    // Whatever the frame reads: a change of it asks for a frame.
    const offs = [sessionStore, timelineStore, uiStore].map((s) => s.subscribe(controller.invalidate));
    const dark = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
    const retheme = () => controller.retheme();
    dark?.addEventListener?.("change", retheme);
    // Not React's wheel handler: that one is passive, and a zoom must keep the page from scrolling.
    const onWheel = (e: WheelEvent) => {
      const rect = lanes.getBoundingClientRect();
      const x = Math.min(Math.max(e.clientX - rect.left, 0), rect.width || controller.viewportWidth);
      const scale = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? scroll.clientHeight : 1;
      if (e.ctrlKey || e.metaKey) {
        e.preventDefault();
        controller.zoom(Math.exp(-e.deltaY * scale * 0.0025), x);
        return;
      }
      const horizontal = Math.abs(e.deltaX) > Math.abs(e.deltaY);
      if (e.shiftKey || horizontal) {
        e.preventDefault();
        controller.pan((horizontal ? e.deltaX : e.deltaY) * scale);
      }
    };
    scroll.addEventListener("wheel", onWheel, { passive: false });
    return () => {
      resize?.disconnect();
      for (const off of offs) off();
      dark?.removeEventListener?.("change", retheme);
      scroll.removeEventListener("wheel", onWheel);
      controller.detach();
    };
  }, [controller]);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    controller.setScrollTop(el.scrollTop);
    setBox((b) => (b.scrollTop === el.scrollTop ? b : { ...b, scrollTop: el.scrollTop }));
  };

  const local = (e: PointerEvent<HTMLCanvasElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    return { x: e.clientX - rect.left, y: e.clientY - rect.top, clientX: e.clientX, clientY: e.clientY };
  };

  const onPointerDown = (e: PointerEvent<HTMLCanvasElement>) => {
    if (e.button !== 0) return;
    drag.current = { startX: e.clientX, startY: e.clientY, lastX: e.clientX, lastY: e.clientY, moved: false };
    e.currentTarget.setPointerCapture?.(e.pointerId);
  };

  const onPointerMove = (e: PointerEvent<HTMLCanvasElement>) => {
    const d = drag.current;
    if (!d) {
      // Over a segment: it can be clicked.
      e.currentTarget.style.cursor = controller.pointAt(local(e)) ? "pointer" : "";
      return;
    }
    if (!d.moved && Math.hypot(e.clientX - d.startX, e.clientY - d.startY) > DRAG_SLOP) {
      d.moved = true;
      controller.pointAt(null);
    }
    if (d.moved) {
      controller.pan(d.lastX - e.clientX);
      const scroll = scrollRef.current;
      if (scroll) scroll.scrollTop += d.lastY - e.clientY;
    }
    d.lastX = e.clientX;
    d.lastY = e.clientY;
  };

  const onPointerUp = (e: PointerEvent<HTMLCanvasElement>) => {
    const d = drag.current;
    drag.current = null;
    if (!d || d.moved) return;
    const at = local(e);
    const hit = controller.hitAt(at.x, at.y);
    if (!hit) return;
    if (hit.segment) showInOutput(hit.agentId, hit.segment.seq);
    else select(hit.agentId);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const scroll = scrollRef.current;
    const step = Math.max(40, controller.viewportWidth / 10);
    switch (e.key) {
      case "ArrowLeft":
        controller.pan(-step);
        break;
      case "ArrowRight":
        controller.pan(step);
        break;
      case "ArrowUp":
        if (scroll) scroll.scrollTop -= ROW_HEIGHT;
        break;
      case "ArrowDown":
        if (scroll) scroll.scrollTop += ROW_HEIGHT;
        break;
      case "+":
      case "=":
        controller.zoom(ZOOM_STEP);
        break;
      case "-":
      case "_":
        controller.zoom(1 / ZOOM_STEP);
        break;
      case "0":
        controller.fit();
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  const { first, last } = rowWindow(box.scrollTop, box.height, ROW_HEIGHT, rows.length, OVERSCAN);
  const shown = rows.slice(first, last);
  const total = rows.length * ROW_HEIGHT;

  return (
    <div
      className="timeline-chart"
      tabIndex={0}
      role="group"
      aria-label="Timeline chart"
      aria-describedby={hintId}
      onKeyDown={onKeyDown}
    >
      <span id={hintId} className="sr-only">
        Arrow keys pan and scroll, plus and minus zoom, 0 fits the whole session. The table after the chart lists
        each agent with its time and its waits for you.
      </span>
      <div className="timeline-axis-row">
        <div className="timeline-col-head">Agent</div>
        <div className="timeline-axis-cell">
          <canvas ref={axisRef} className="timeline-axis" style={{ width: box.width, height: AXIS_HEIGHT }} aria-hidden="true" />
        </div>
        <div className="timeline-col-head wait" title="Time its calls waited for your approval">
          Waited
        </div>
      </div>
      <div className="timeline-body" ref={scrollRef} onScroll={onScroll} data-testid="timeline-body">
        <div className="timeline-content" style={{ height: total }}>
          <div className="timeline-labels">
            {shown.map((row, i) => (
              <LabelRow key={row.id} row={row} top={(first + i) * ROW_HEIGHT} selected={row.id === selected} />
            ))}
          </div>
          <div className="timeline-lanes-cell" ref={cellRef}>
            <canvas
              ref={lanesRef}
              className="timeline-lanes"
              data-testid="timeline-canvas"
              role="img"
              aria-label={`Timeline lanes of ${rows.length} agent${rows.length === 1 ? "" : "s"}: queued time, model turns, tool calls and waits for your approval`}
              style={{ height: box.height }}
              onPointerDown={onPointerDown}
              onPointerMove={onPointerMove}
              onPointerUp={onPointerUp}
              onPointerCancel={() => {
                drag.current = null;
              }}
              onPointerLeave={() => {
                if (!drag.current) controller.pointAt(null);
              }}
            />
          </div>
          <div className="timeline-waits">
            {shown.map((row, i) => (
              <WaitCell key={row.id} id={row.id} top={(first + i) * ROW_HEIGHT} />
            ))}
          </div>
        </div>
      </div>
    </div>
  );
}

const LabelRow = memo(function LabelRow({ row, top, selected }: { row: TreeRow; top: number; selected: boolean }) {
  const node = useStore(sessionStore, (s) => s.agents[row.id]);
  const name = useStore(sessionStore, (s) => agentName(s, row.id));
  if (!node) return null;
  return (
    <div
      className={`timeline-label${selected ? " selected" : ""}`}
      data-testid="timeline-label"
      data-agent-id={row.id}
      style={{ top, paddingLeft: 4 + row.level * 14 }}
      onClick={() => select(row.id)}
    >
      <button
        type="button"
        className={`twisty${row.hasChildren ? "" : " leaf"}`}
        tabIndex={-1}
        aria-label={row.hasChildren ? `${row.expanded ? "Collapse" : "Expand"} ${name}` : undefined}
        aria-hidden={row.hasChildren ? undefined : true}
        aria-expanded={row.hasChildren ? row.expanded : undefined}
        onClick={(e) => {
          e.stopPropagation();
          if (row.hasChildren) setCollapsed(row.id, row.expanded);
        }}
      >
        {row.hasChildren ? <IconChevron size={12} /> : null}
      </button>
      <StatusIcon status={node.status} />
      <span className="desc" title={name}>
        {name}
      </span>
    </div>
  );
});

const WaitCell = memo(function WaitCell({ id, top }: { id: AgentId; top: number }) {
  const sessionId = useStore(sessionStore, (s) => s.sessionId);
  const ms = useStore(timelineStore, (all) => laneWaiting(all, sessionId, id));
  return (
    <div className="timeline-wait" style={{ top }} title={ms > 0 ? `Waited ${formatSpan(ms)} for your approval` : undefined}>
      {ms > 0 ? formatSpan(ms) : ""}
    </div>
  );
});
