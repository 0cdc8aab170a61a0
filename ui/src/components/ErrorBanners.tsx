/** Command failures as dismissible banners. */
import { useStore } from "../store/store";
import { dismissError, uiStore } from "../store/ui";
import { IconAlert, IconX } from "./icons";

export function ErrorBanners() {
  const errors = useStore(uiStore, (s) => s.errors);
  if (errors.length === 0) return null;
  return (
    <div className="banners" role="region" aria-label="Errors">
      {errors.map((e) => (
        <div key={e.id} className="banner" role="alert" data-testid="error">
          <IconAlert size={14} />
          <span className="msg">{e.message}</span>
          <button type="button" className="btn ghost small icon-btn" aria-label="Dismiss" onClick={() => dismissError(e.id)}>
            <IconX size={12} />
          </button>
        </div>
      ))}
    </div>
  );
}
