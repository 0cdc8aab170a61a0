/** "Load earlier" above a stored transcript's oldest loaded page: loading, failed (Retry), or ready. */
import { IconAlert } from "../icons";
import { Spinner } from "../Spinner";

export function EarlierRow({ loading, error, onLoad }: { loading: boolean; error: string | null; onLoad: () => void }) {
  if (loading) {
    return (
      <div className="earlier faint" data-testid="loading-earlier">
        <span className="status-icon running">
          <Spinner />
        </span>
        Loading earlier output…
      </div>
    );
  }
  return (
    <div className="earlier">
      {error !== null ? (
        <span className="error-text">
          <IconAlert size={12} /> Could not load the transcript: {error}
        </span>
      ) : null}
      <button type="button" className="btn small" data-testid="load-earlier" onClick={onLoad}>
        {error !== null ? "Retry" : "Load earlier"}
      </button>
    </div>
  );
}
