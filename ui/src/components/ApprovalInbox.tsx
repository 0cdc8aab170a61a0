/**
 * The approval inbox: every live session's pending requests (sessions in the
 * order they started, each oldest first; a card names its session when the
 * window runs several or shows another), in
 * every view (while a past session is reviewed, in settings, in history), a
 * hint line of the keys, and the rules in force. The keys act on the focused
 * card (lib/approvalKeys.ts says which key does what): j/k or ↑/↓ move, a
 * approves, d denies, r opens the reason field, 1–4 choose the scope, A
 * approves all from the card's agent. Never while typing in a field or with
 * a dialog open. A card answered with the keyboard hands the focus on to the
 * next one.
 */
import { useEffect, useRef, type KeyboardEvent } from "react";
import { answer, approveAllFrom } from "../ipc/approvals";
import { approvalKeyAction, keysMayAct, type ApprovalKeyAction } from "../lib/approvalKeys";
import { patchDraft } from "../store/approvals";
import { inboxEntries } from "../store/inbox";
import { bookStore } from "../store/review";
import { liveStore, liveViews } from "../store/sessionStore";
import { useStore } from "../store/store";
import { uiStore } from "../store/ui";
import { ActiveRules } from "./ActiveRules";
import { ApprovalCard } from "./approvals/ApprovalCard";
import { KeysHint } from "./approvals/KeysHint";
import { IconInbox } from "./icons";

const CARD = '[data-testid="approval"]';

function cardsIn(root: HTMLElement | null): HTMLElement[] {
  return root ? [...root.querySelectorAll<HTMLElement>(CARD)] : [];
}

export function ApprovalInbox() {
  const pending = useStore(liveViews, inboxEntries);
  const reviewing = useStore(bookStore, (b) => b.review !== null);
  const several = useStore(liveStore, (r) => r.slots.length > 1);
  const shown = useStore(liveStore, (r) => (r.shown ? r.current : null));
  const listRef = useRef<HTMLDivElement>(null);
  /** The position of the card that had the focus, while the focus is in the list. */
  const focusAt = useRef<number | null>(null);

  // The focused card was answered and is gone: the one now at its place takes the focus.
  useEffect(() => {
    const at = focusAt.current;
    if (at === null) return;
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) return;
    const cards = cardsIn(listRef.current);
    const next = cards[Math.min(at, cards.length - 1)];
    if (next) next.focus();
    else focusAt.current = null;
  }, [pending]);

  // From anywhere but a text field (nothing focused, a button just pressed), the keys reach the
  // inbox: j or k focus its first card, and the others act on it (the card marked as the keys' own).
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      const active = document.activeElement;
      // Inside the list its own handler moves between cards.
      if (active !== null && listRef.current?.contains(active)) return;
      const action = approvalKeyAction(e);
      if (!action || !keysMayAct(active, uiStore.get().dialog !== null)) return;
      // The first card not already answered (an answer sent shows on its card until it is in).
      const cards = cardsIn(listRef.current);
      const first = cards.find((c) => !c.classList.contains("sending")) ?? cards[0];
      if (!first) return;
      e.preventDefault();
      first.focus();
      if (action.kind !== "move") act(action, first);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const target = e.target as HTMLElement;
    if (e.defaultPrevented || !keysMayAct(target, uiStore.get().dialog !== null)) return;
    const action = approvalKeyAction(e);
    if (!action) return;
    const cards = cardsIn(listRef.current);
    const card = target.closest<HTMLElement>(CARD);
    const index = card ? cards.indexOf(card) : -1;
    if (action.kind === "move") {
      const to = index < 0 ? cards[0] : cards[Math.max(0, Math.min(cards.length - 1, index + action.by))];
      e.preventDefault();
      to?.focus();
      return;
    }
    if (!card) return;
    e.preventDefault();
    act(action, card);
  };

  if (pending.length === 0) {
    return (
      <>
        <div className="empty inbox-empty">
          <IconInbox size={26} />
          <div className="title">Nothing to approve</div>
          <div>When an agent wants to change files or run a command, it waits here for you.</div>
        </div>
        <ActiveRules hideWhenEmpty />
      </>
    );
  }
  return (
    <>
      <KeysHint />
      <div
        className="approvals"
        role="list"
        aria-label="Pending approvals"
        ref={listRef}
        onKeyDown={onKeyDown}
        onFocus={(e) => {
          const card = (e.target as HTMLElement).closest<HTMLElement>(CARD);
          if (card) focusAt.current = cardsIn(listRef.current).indexOf(card);
        }}
        onBlur={(e) => {
          const leaving = e.target as HTMLElement;
          // Focus moved elsewhere on purpose (not a card that went away with its answer).
          if (e.relatedTarget instanceof Node && !listRef.current?.contains(e.relatedTarget)) focusAt.current = null;
          else if (e.relatedTarget === null)
            setTimeout(() => {
              if (leaving.isConnected && document.activeElement !== leaving) focusAt.current = null;
            }, 0);
        }}
      >
        {pending.map((e) => (
          <ApprovalCard
            key={e.approval.requestId}
            approval={e.approval}
            slot={e.key}
            named={several || reviewing || e.key !== shown}
          />
        ))}
      </div>
      <ActiveRules hideWhenEmpty />
    </>
  );
}

/** What a key does to a card: answer it, open its reason, choose its scope, or answer all of its agent's. */
function act(action: Exclude<ApprovalKeyAction, { kind: "move" }>, card: HTMLElement): void {
  const requestId = card.dataset.requestId;
  const agentId = card.dataset.agentId;
  const slot = card.dataset.slot;
  if (requestId === undefined || agentId === undefined || slot === undefined) return;
  switch (action.kind) {
    case "approve":
      void answer(requestId, true);
      break;
    case "deny":
      void answer(requestId, false);
      break;
    case "reason":
      patchDraft(requestId, { reasonOpen: true });
      break;
    case "scope":
      patchDraft(requestId, { scope: action.scope });
      break;
    case "approveAll":
      void approveAllFrom(slot, agentId);
      break;
  }
}
