/**
 * A modal dialog: overlay, Escape to close, focus kept inside while open. It
 * opens on the element marked `data-autofocus`, else on its first field.
 */
import { useEffect, useRef, type ReactNode } from "react";
import { IconX } from "./icons";

export function Modal({
  title,
  onClose,
  children,
  testId,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    // The marked element wins wherever it is: a select above the marked text
    // field would otherwise take the keys the person types first.
    const root = ref.current;
    const first =
      root?.querySelector<HTMLElement>("[data-autofocus]") ?? root?.querySelector<HTMLElement>("textarea, input, select");
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
        data-testid={testId}
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
