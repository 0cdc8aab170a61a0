/**
 * Toolbar buttons' tooltips, in place of the native `title`: WebKitGTK's
 * native tooltip stays up after a click, covers the menu its button just
 * opened, and lingers over whatever replaced the element it described. This
 * one shows after a short hover or on keyboard focus; hides on pointerdown,
 * Enter, Space, Escape, leave and blur (and stays away after a press until
 * the pointer leaves or the focus goes); never shows while `suppressed` (the
 * button's menu is open, say); hides when its text changes (the button now
 * does something else); and goes with its button when that unmounts.
 * `float` puts it over the whole page instead of under its anchor, for a
 * button inside a box that clips what leaves it (a tree row's actions).
 */
import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type KeyboardEvent,
  type PointerEvent,
  type ReactNode,
} from "react";
import { createPortal } from "react-dom";

/** How long the pointer rests on a button before its tooltip shows. */
export const TIP_DELAY_MS = 500;

export function Tip(props: {
  text: string;
  /** While true it never shows (and one showing goes). */
  suppressed?: boolean;
  /** Which edge of the button the tooltip lines up with: "end" for buttons near the window's right edge. */
  align?: "start" | "end";
  /**
   * The button sits in a box that clips (a tree row, 18 px high, overflow
   * hidden, in a scrolled pane): the tooltip is rendered in document.body,
   * placed at the button, so the box cannot hide it.
   */
  float?: boolean;
  /** The button; given the tooltip's id when it wants `aria-describedby` (the tooltip adds to its name). */
  children: ReactNode | ((describedBy: string) => ReactNode);
}) {
  const { text, suppressed = false, align = "start", float = false, children } = props;
  const id = useId();
  const anchor = useRef<HTMLSpanElement>(null);
  const tip = useRef<HTMLSpanElement>(null);
  // The text it was shown for: a button whose text changed (Stop became Resume) shows nothing until hovered anew.
  const [shownFor, setShownFor] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  // Pressed since the pointer came: the press did what the tip described, so it stays away until the pointer leaves.
  const pressed = useRef(false);

  const cancel = () => {
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = null;
  };
  useEffect(() => cancel, []);

  const showSoon = () => {
    cancel();
    if (pressed.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      setShownFor(text);
    }, TIP_DELAY_MS);
  };
  const hide = () => {
    cancel();
    setShownFor(null);
  };
  const press = () => {
    pressed.current = true;
    hide();
  };

  const shown = shownFor === text && !suppressed;

  // A floating tooltip is placed once it shows (before it paints). It is not moved after: a scroll that
  // carries its button away (the button's own pane, or the page; not another pane's) hides it instead.
  useLayoutEffect(() => {
    const el = tip.current;
    const at = anchor.current;
    if (!float || !shown || !el || !at) return;
    place(el, at.getBoundingClientRect(), align);
    const away = () => setShownFor(null);
    const onScroll = (e: Event) => {
      if (e.target instanceof Node && e.target.contains(at)) away();
    };
    window.addEventListener("scroll", onScroll, true);
    window.addEventListener("resize", away);
    return () => {
      window.removeEventListener("scroll", onScroll, true);
      window.removeEventListener("resize", away);
    };
  }, [float, shown, align]);

  // Always in the DOM (hidden), so `aria-describedby` reads it.
  const bubble = (
    <span
      ref={tip}
      role="tooltip"
      id={id}
      className={float ? "tip float" : `tip ${align}`}
      style={float ? FLOAT_STYLE : undefined}
      hidden={!shown}
    >
      {text}
    </span>
  );
  return (
    <span
      ref={anchor}
      className="tip-anchor"
      onPointerEnter={(e: PointerEvent) => {
        if (e.pointerType !== "touch" && !suppressed) showSoon();
      }}
      onPointerLeave={() => {
        pressed.current = false;
        hide();
      }}
      onPointerDown={press}
      onFocus={() => {
        // Keyboard focus only: focus a closing dialog gives back (or a click) is not a request for help.
        if (!suppressed && focusVisible()) showSoon();
      }}
      onBlur={() => {
        pressed.current = false;
        hide();
      }}
      onKeyDown={(e: KeyboardEvent) => {
        if (e.key === "Enter" || e.key === " " || e.key === "Escape") press();
      }}
    >
      {typeof children === "function" ? children(id) : children}
      {float ? createPortal(bubble, document.body) : bubble}
    </span>
  );
}

/**
 * Whether the person's last input was a key (not the pointer): focus that
 * follows a click, or that a closing dialog gives back after one, is not a
 * request for help; focus reached with Tab is.
 */
let lastInputWasKey = true;
if (typeof document !== "undefined") {
  document.addEventListener("keydown", () => (lastInputWasKey = true), true);
  document.addEventListener("pointerdown", () => (lastInputWasKey = false), true);
}

function focusVisible(): boolean {
  return lastInputWasKey;
}

// Fixed, over the page; `place` sets where (the stylesheet's top and left are for a tooltip under its anchor).
const FLOAT_STYLE: CSSProperties = { position: "fixed", top: 0, left: 0 };
/** Between the button and its tooltip, as in the stylesheet; and kept between the tooltip and the window's edges. */
const GAP_PX = 6;
const EDGE_PX = 4;

/** Puts a floating tooltip under its button (over it when there is no room below), inside the window. */
function place(el: HTMLElement, at: DOMRect, align: "start" | "end"): void {
  const { width, height } = el.getBoundingClientRect();
  const below = at.bottom + GAP_PX;
  const top = below + height <= window.innerHeight - EDGE_PX ? below : Math.max(EDGE_PX, at.top - GAP_PX - height);
  const left = align === "end" ? at.right - width : at.left;
  el.style.top = `${top}px`;
  el.style.left = `${Math.max(EDGE_PX, Math.min(left, window.innerWidth - EDGE_PX - width))}px`;
}
