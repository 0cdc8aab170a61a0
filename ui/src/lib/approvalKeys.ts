/**
 * The inbox's keyboard: which key does what to the focused approval card, the
 * hint line that lists them, and when keys must not act (typing in a text
 * field, a dialog open). Pure apart from reading an element's kind; tested
 * without React.
 */
import { APPROVAL_SCOPES, type ApprovalScope } from "../bindings";

export type ApprovalKeyAction =
  | { kind: "move"; by: 1 | -1 }
  | { kind: "approve" }
  | { kind: "deny" }
  | { kind: "reason" }
  | { kind: "scope"; scope: ApprovalScope }
  | { kind: "approveAll" };

export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

/** The action of a key press on the inbox, or null for a key it leaves alone. */
export function approvalKeyAction(e: KeyPress): ApprovalKeyAction | null {
  // Shortcuts of the window and the system (Ctrl+H, copy, …) are not the inbox's.
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case "j":
    case "ArrowDown":
      return { kind: "move", by: 1 };
    case "k":
    case "ArrowUp":
      return { kind: "move", by: -1 };
    case "a":
      return { kind: "approve" };
    case "d":
      return { kind: "deny" };
    case "r":
      return { kind: "reason" };
    // Shift+a: the key reads as "A".
    case "A":
      return { kind: "approveAll" };
    default: {
      // 1…4: the scope options, in Rust's order (narrowest first).
      const n = /^[1-9]$/.test(e.key) ? Number(e.key) : 0;
      const scope = n > 0 ? APPROVAL_SCOPES[n - 1] : undefined;
      return scope ? { kind: "scope", scope } : null;
    }
  }
}

/** Whether `el` takes typed text: a key pressed there is the person writing, never a command. */
export function isTextEntry(el: Element | null): boolean {
  if (!el) return false;
  if (el instanceof HTMLElement && el.isContentEditable) return true;
  // The attribute too: isContentEditable is not there in every DOM (jsdom).
  if (el.closest('[contenteditable]:not([contenteditable="false"])')) return true;
  const tag = el.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  // Checkboxes and buttons take no text; everything else an input can be does.
  const type = (el as HTMLInputElement).type;
  return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"].includes(type);
}

/** Whether a modal dialog is open in `doc` (any store's: they all draw through Modal): the keys are its own. */
export function modalOpen(doc: Document = document): boolean {
  return doc.querySelector('[aria-modal="true"]') !== null;
}

/** Keys act only outside text fields and while no dialog is open. */
export function keysMayAct(target: Element | null, dialogOpen: boolean): boolean {
  if (dialogOpen || isTextEntry(target)) return false;
  // A dialog drawn by anything else (a portal, another store's modal) counts too.
  if (target?.closest('[role="dialog"]')) return false;
  return !modalOpen(target?.ownerDocument ?? document);
}

/** The hint line under the inbox's header, in the order a person uses them. */
export const KEYS_HINT: readonly { keys: string; does: string }[] = [
  { keys: "j/k", does: "move" },
  { keys: "a", does: "approve" },
  { keys: "d", does: "deny" },
  { keys: "r", does: "deny with reason" },
  { keys: `1–${APPROVAL_SCOPES.length}`, does: "scope" },
  { keys: "A", does: "approve all from agent" },
];
