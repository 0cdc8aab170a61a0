/**
 * Command failures, a session's warnings (what it could not use) and notices
 * as dismissible banners, and the transcript store's problem.
 */
import { useStore } from "../store/store";
import { dismissError, dismissProblem, uiStore } from "../store/ui";
import { IconAlert, IconCheck, IconX } from "./icons";

export function ErrorBanners() {
  const errors = useStore(uiStore, (s) => s.errors);
  const problem = useStore(uiStore, (s) => {
    const p = s.app?.transcripts.problem ?? null;
    return p !== null && p !== s.dismissedProblem ? p : null;
  });
  if (errors.length === 0 && problem === null) return null;
  return (
    <div className="banners" role="region" aria-label="Errors and notices">
      {problem !== null ? (
        <div className="banner warn" role="alert" data-testid="transcripts-problem">
          <IconAlert size={14} />
          <span className="msg">{problem}</span>
          <button
            type="button"
            className="btn ghost small icon-btn"
            aria-label="Dismiss"
            onClick={() => dismissProblem(problem)}
          >
            <IconX size={12} />
          </button>
        </div>
      ) : null}
      {errors.map((e) => (
        <div
          key={e.id}
          className={`banner${e.kind === "info" ? " info" : e.kind === "warning" ? " warn" : ""}`}
          role={e.kind === "info" ? "status" : "alert"}
          data-testid={e.kind === "info" ? "notice" : e.kind === "warning" ? "warning" : "error"}
        >
          {e.kind === "info" ? <IconCheck size={14} /> : <IconAlert size={14} />}
          <span className="msg">{e.message}</span>
          <button type="button" className="btn ghost small icon-btn" aria-label="Dismiss" onClick={() => dismissError(e.id)}>
            <IconX size={12} />
          </button>
        </div>
      ))}
    </div>
  );
}
