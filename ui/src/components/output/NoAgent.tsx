/**
 * The output pane with no agent to show: starting, nothing selected, or no
 * session yet (with the demo, and the offer to continue what the last run
 * left interrupted).
 */
import { startDemo } from "../../ipc/actions";
import { IconMessage, IconPlay } from "../icons";
import { InterruptedBanner } from "../InterruptedBanner";
import { Spinner } from "../Spinner";

export function NoAgent({ hasSession, starting }: { hasSession: boolean; starting: boolean }) {
  if (starting) {
    return (
      <div className="empty">
        <span className="status-icon running">
          <Spinner />
        </span>
        <div className="title">Starting the session…</div>
      </div>
    );
  }
  if (hasSession) {
    return (
      <div className="empty">
        <div className="title">No agent selected</div>
        <div>Select an agent in the tree to follow its output.</div>
      </div>
    );
  }
  return (
    <div className="empty">
      <InterruptedBanner />
      <IconMessage size={28} />
      <div className="title">No session yet — write a prompt</div>
      <div>The main agent's answer streams here; choose any agent in the tree to follow it instead.</div>
      <button type="button" className="btn" data-testid="try-demo" onClick={() => void startDemo()}>
        <IconPlay size={12} /> Try the demo
      </button>
    </div>
  );
}
