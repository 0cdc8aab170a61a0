/**
 * A drop-down menu's state: whether it is open, and the element that holds it
 * (its button and its items); a press anywhere outside that element closes it,
 * and so does Escape within it (`onKeyDown`, for that element).
 */
import { useEffect, useRef, useState, type KeyboardEvent } from "react";

export function useMenu() {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    return () => document.removeEventListener("mousedown", onDown);
  }, [open]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape" && open) {
      e.preventDefault();
      setOpen(false);
    }
  };
  return { open, setOpen, ref, onKeyDown };
}
