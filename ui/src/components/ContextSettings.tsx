/**
 * Settings' context card: every model's window (empty: each model's own,
 * from Arbor's table or what its provider says), the share of it at which
 * an agent's conversation is compacted, and the model that writes summaries.
 */
import type { ContextSettings } from "../bindings";

export function ContextSettingsCard({
  context,
  onChange,
}: {
  context: ContextSettings;
  onChange: (next: ContextSettings) => void;
}) {
  return (
    <section className="card" aria-labelledby="context-h">
      <h2 id="context-h">Context</h2>
      <div className="card-body grid-2">
        <label className="field">
          <span className="label">Context window</span>
          <span className="row">
            <input
              className="input"
              type="number"
              min={1000}
              data-testid="context-window"
              placeholder="Each model's own"
              value={context.window ?? ""}
              onChange={(e) => {
                if (e.target.value === "") return onChange({ ...context, window: null });
                const n = Math.floor(Number(e.target.value));
                if (Number.isFinite(n) && n > 0) onChange({ ...context, window: n });
              }}
            />
            <span className="faint">tokens</span>
          </span>
          <span className="hint">For a local server (its -c) or a model Arbor does not know; empty: each model's own</span>
        </label>
        <label className="field">
          <span className="label">Compact at</span>
          <span className="row">
            <input
              className="input"
              type="number"
              min={10}
              max={100}
              data-testid="compact-at"
              value={context.compact_at_percent}
              onChange={(e) => {
                const n = Math.floor(Number(e.target.value));
                if (e.target.value !== "" && Number.isFinite(n) && n >= 1 && n <= 100) onChange({ ...context, compact_at_percent: n });
              }}
            />
            <span className="faint">% of the window</span>
          </span>
          <span className="hint">Older results are cleared first, then the older conversation summarized</span>
        </label>
        <label className="field">
          <span className="label">Summary model</span>
          <input
            className="input"
            type="text"
            data-testid="summary-model"
            placeholder="The agent's own"
            spellCheck={false}
            value={context.summary_model ?? ""}
            onChange={(e) => {
              const model = e.target.value.trim();
              onChange({ ...context, summary_model: model === "" ? null : e.target.value });
            }}
          />
          <span className="hint">A cheaper model on the agent's provider writes compaction summaries (claude-haiku-4-5, say); if it fails, the agent's own does</span>
        </label>
      </div>
    </section>
  );
}
