/** Whether the displayed session is the live one and runs (the hook form of scene.ts's `sessionRunning`). */
import { bookStore } from "../../store/review";
import { sessionStore } from "../../store/sessionStore";
import { useStore } from "../../store/store";
import { anyAgentActive } from "../../store/timeline";
import { uiStore } from "../../store/ui";

export function useRunning(): boolean {
  const live = useStore(uiStore, (s) => s.session !== null);
  const reviewing = useStore(bookStore, (b) => b.review !== null);
  const active = useStore(sessionStore, (s) => anyAgentActive(s.agents));
  return live && !reviewing && active;
}
