/**
 * A pane's splitter (WAI-ARIA window splitter): a focusable vertical
 * separator whose value is the pane's width. Drag it, or use the arrow keys
 * (Shift: further), Home and End; double-click or Enter gives the pane back
 * its default width. The width is kept across restarts (store/ui.ts).
 */
import { useRef, useState } from "react";
import { dragWidth, splitterKey, type Pane, type PaneSide, type PaneSize } from "../../lib/layout";
import { savePaneWidths, setPaneWidth } from "../../store/ui";

export function Splitter({
  pane,
  side,
  size,
  label,
  controls,
}: {
  pane: Pane;
  /** Where the pane is: the tree at the start (grows rightwards), the inbox at the end. */
  side: PaneSide;
  size: PaneSize;
  label: string;
  /** The id of the pane it resizes. */
  controls: string;
}) {
  const drag = useRef<{ x: number; width: number } | null>(null);
  const [dragging, setDragging] = useState(false);
  const end = () => {
    if (!drag.current) return;
    drag.current = null;
    setDragging(false);
    savePaneWidths();
  };
  return (
    <div
      className={`splitter${dragging ? " dragging" : ""}`}
      role="separator"
      data-testid={`splitter-${pane}`}
      tabIndex={0}
      aria-orientation="vertical"
      aria-label={label}
      aria-controls={controls}
      aria-valuenow={size.width}
      aria-valuemin={size.min}
      aria-valuemax={size.max}
      title={`${label}: drag or use the arrow keys; double-click or Enter for the default width`}
      onKeyDown={(e) => {
        if (e.altKey || e.ctrlKey || e.metaKey) return;
        const to = splitterKey(e.key, e.shiftKey, side, size);
        if (to === null) return;
        e.preventDefault();
        setPaneWidth(pane, to === "reset" ? null : to.width);
      }}
      onDoubleClick={() => setPaneWidth(pane, null)}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        // No text selection while dragging; the focus goes to the splitter, as a click gives it.
        e.preventDefault();
        e.currentTarget.focus();
        e.currentTarget.setPointerCapture?.(e.pointerId);
        drag.current = { x: e.clientX, width: size.width };
        setDragging(true);
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (d) setPaneWidth(pane, dragWidth(side, d.width, d.x, e.clientX, size), false);
      }}
      onPointerUp={end}
      onPointerCancel={end}
      onLostPointerCapture={end}
    />
  );
}
