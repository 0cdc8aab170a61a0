/** Keeps the window title counting the live session's pending approvals ("(3) Arbor"), in every view. */
import { useEffect } from "react";
import { windowTitle } from "../lib/approvals";
import { liveSession } from "../store/sessionStore";
import { useStore } from "../store/store";

export function useWindowTitle(): void {
  const pending = useStore(liveSession, (s) => s.pending.length);
  useEffect(() => {
    document.title = windowTitle(pending);
  }, [pending]);
}
