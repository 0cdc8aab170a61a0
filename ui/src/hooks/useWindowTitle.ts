/**
 * Keeps the window title counting every live session's pending approvals ("(3) Arbor"),
 * in every view: the page's and the OS window's (the taskbar shows the latter;
 * WebKitGTK does not pass the page's on).
 */
import { getCurrentWindow } from "@tauri-apps/api/window";
import { useEffect } from "react";
import { windowTitle } from "../lib/approvals";
import { pendingCount } from "../store/inbox";
import { liveViews } from "../store/sessionStore";
import { useStore } from "../store/store";

export function useWindowTitle(): void {
  const pending = useStore(liveViews, pendingCount);
  useEffect(() => {
    const title = windowTitle(pending);
    document.title = title;
    setOsTitle(title);
  }, [pending]);
}

function setOsTitle(title: string): void {
  try {
    getCurrentWindow()
      .setTitle(title)
      .catch(() => undefined);
  } catch {
    // Outside the app (a test page): the page's title is all there is.
  }
}
