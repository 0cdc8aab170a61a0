/** A modal dialog: overlay, Escape to close, focus kept inside while open. */
import { useEffect, useRef, type ReactNode } from "react";
import { IconX } from "./icons";

export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    const first = ref.current?.querySelector<HTMLElement>("[data-autofocus], textarea, input, select");
    first?.focus();
    return () => previous?.focus?.();
  }, []);
  return (
    <div
      className="overlay"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        ref={ref}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.stopPropagation();
            onClose();
          }
        }}
      >
        <div className="modal-head">
          <h2>{title}</h2>
          <button type="button" className="btn ghost icon-btn" aria-label="Close" onClick={onClose}>
            <IconX size={13} />
          </button>
        </div>
        {children}
      </div>
    </div>
  );
}
