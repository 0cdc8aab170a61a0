/**
 * "Deny with a reason": a text field the agent's tool result will carry
 * (Enter sends, Escape closes). Keys typed here are text, never the inbox's
 * shortcuts.
 */
import { useEffect, useRef } from "react";
import { IconX } from "../icons";

export function DenyReason(props: {
  reason: string;
  disabled: boolean;
  onChange: (reason: string) => void;
  onSend: () => void;
  onClose: () => void;
}) {
  const { reason, disabled, onChange, onSend, onClose } = props;
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <div className="deny-reason">
      <input
        ref={ref}
        className="input"
        data-testid="deny-reason"
        aria-label="Why it is denied (the agent reads this)"
        placeholder="Why? The agent reads this and can change course"
        value={reason}
        disabled={disabled}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            onSend();
          } else if (e.key === "Escape") {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          }
        }}
      />
      <button type="button" className="btn danger" data-testid="deny-reason-send" disabled={disabled} onClick={onSend}>
        Deny with reason
      </button>
      <button type="button" className="btn ghost icon-btn" aria-label="Close the reason field" onClick={onClose}>
        <IconX size={12} />
      </button>
    </div>
  );
}
