/**
 * Closing the window while agents work: keep them running in the background
 * (the window hides; launching Arbor again brings it back, approvals still
 * waiting), or stop them and quit (they are marked interrupted and offered at
 * the next start). Cancel, or Escape, keeps the window; a dialog it covered
 * (a Delegate… draft) is still there.
 */
import { closeWindow } from "../ipc/window";
import { askClose } from "../store/ui";
import { Modal } from "./Modal";

export function CloseDialog({ sessionsAtWork }: { sessionsAtWork: number }) {
  const close = () => askClose(null);
  const sessions = sessionsAtWork === 1 ? "a session" : `${sessionsAtWork} sessions`;
  return (
    <Modal title="Agents are still at work" onClose={close} testId="close-dialog">
      <div className="modal-body">
        <p>
          Agents are at work in {sessions}. Keep them running with the window hidden, or stop them and quit?
        </p>
        <ul className="close-choices">
          <li>
            <strong>Keep running</strong>: they go on, and their approvals wait for you. Launch Arbor again to bring
            this window back.
          </li>
          <li>
            <strong>Stop and quit</strong>: they are interrupted, never cancelled. Arbor offers to continue them at the
            next start, asking again any question they were waiting on.
          </li>
        </ul>
      </div>
      <div className="modal-foot">
        <button type="button" className="btn" data-testid="close-cancel" onClick={close}>
          Cancel
        </button>
        <button type="button" className="btn danger" data-testid="close-stop" onClick={() => void closeWindow("stop")}>
          Stop and quit
        </button>
        <button
          type="button"
          className="btn primary"
          data-testid="close-keep"
          data-autofocus
          onClick={() => void closeWindow("keep_running")}
        >
          Keep running
        </button>
      </div>
    </Modal>
  );
}
