/**
 * "Import Claude Code sessions": the folder to read (empty: Claude Code's
 * own), Import, then what the import did: sessions added, updated and
 * unchanged, events stored, the lines it could not read, the bookkeeping rows
 * it did not keep, and the sessions themselves, each opening its review.
 */
import type { FormEvent } from "react";
import type { ImportReport, ImportedSession } from "../bindings";
import { chooseImportDir, closeImport, openImported, runImport, setImportDir } from "../ipc/importer";
import { oneLine } from "../lib/history";
import { importFigures, importSummary, importedSessionMeta, outcomeLabel, problemLine, skippedLine } from "../lib/importer";
import { importStore } from "../store/importer";
import { uiStore } from "../store/ui";
import { useStore } from "../store/store";
import { IconAlert, IconFolder, IconImport } from "./icons";
import { Modal } from "./Modal";

/** Said when Rust could not tell where Claude Code keeps its transcripts (no HOME). */
const UNKNOWN_DIR_HINT = "~/.claude/projects (or $CLAUDE_CONFIG_DIR/projects)";

export function ImportDialog() {
  // The folder Rust reads when none is given, as Rust resolved it.
  const defaultDir = useStore(uiStore, (u) => u.app?.claude_code_dir ?? UNKNOWN_DIR_HINT);
  const dir = useStore(importStore, (s) => s.dir);
  const running = useStore(importStore, (s) => s.running);
  const report = useStore(importStore, (s) => s.report);
  const error = useStore(importStore, (s) => s.error);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void runImport();
  };
  return (
    <Modal title="Import Claude Code sessions" onClose={closeImport} testId="import-dialog">
      <form onSubmit={submit} noValidate>
        <div className="modal-body">
          <p className="muted import-intro">
            Claude Code's transcripts become read-only sessions here, to review, search and export. Importing again
            reads only the files that changed.
          </p>
          <label className="field">
            <span className="label">Folder</span>
            <span className="import-dir">
              <input
                className="input mono"
                data-testid="import-dir"
                data-autofocus
                placeholder={defaultDir}
                value={dir}
                onChange={(e) => setImportDir(e.target.value)}
                spellCheck={false}
              />
              <button type="button" className="btn" onClick={() => void chooseImportDir()}>
                <IconFolder size={13} /> Choose…
              </button>
            </span>
            <span className="hint">Empty: Claude Code's own folder, {defaultDir}.</span>
          </label>
          {error ? (
            <div className="inline-error" role="alert" data-testid="import-error">
              {error}
            </div>
          ) : null}
          {report ? <ImportResult report={report} /> : null}
        </div>
        <div className="modal-foot">
          <button type="button" className="btn" onClick={closeImport}>
            Close
          </button>
          <button type="submit" className="btn primary" data-testid="import-run" disabled={running}>
            <IconImport size={12} /> {running ? "Importing…" : report ? "Import again" : "Import"}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function ImportResult({ report }: { report: ImportReport }) {
  const skipped = skippedLine(report.skipped);
  return (
    <div className="import-result" data-testid="import-result" role="status">
      <div>
        <strong data-testid="import-summary">{importSummary(report)}</strong>
        <div className="faint" data-testid="import-figures">
          {importFigures(report)}
        </div>
        <div className="faint mono import-read" title={report.dir}>
          {report.dir}
        </div>
      </div>
      {report.problems.length > 0 ? (
        <div>
          <div className="section-label import-problems-head">
            <IconAlert size={12} /> {report.problems.length} problem{report.problems.length === 1 ? "" : "s"} (the rest
            was imported)
          </div>
          <ul className="import-problems" data-testid="import-problems">
            {report.problems.map((p, i) => (
              <li key={i} className="mono">
                {problemLine(p)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {skipped ? (
        <div className="faint import-skipped" data-testid="import-skipped">
          Not kept (Claude Code's own bookkeeping): {skipped}
        </div>
      ) : null}
      {report.sessions.length > 0 ? (
        <ul className="import-sessions" aria-label="Imported sessions">
          {report.sessions.map((s) => (
            <ImportedRow key={s.session_id} session={s} />
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function ImportedRow({ session }: { session: ImportedSession }) {
  const meta = importedSessionMeta(session);
  const failed = session.outcome === "failed";
  return (
    <li>
      <button
        type="button"
        className="import-session"
        data-testid="import-session"
        data-session-id={session.session_id}
        data-outcome={session.outcome}
        disabled={failed}
        title={failed ? "Not stored: see the problems above" : "Open it (read-only)"}
        onClick={() => void openImported(session.session_id)}
      >
        <span className="first-prompt">{oneLine(session.first_prompt, 120) || "(no prompt)"}</span>
        {meta ? <span className="faint">{meta}</span> : null}
        <span className={`badge import-outcome ${session.outcome}`}>{outcomeLabel(session.outcome)}</span>
      </button>
    </li>
  );
}
