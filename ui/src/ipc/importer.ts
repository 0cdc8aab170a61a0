/**
 * Importing Claude Code's transcripts as read-only sessions: the dialog's
 * folder (typed, or chosen with the folder picker), the import itself (its
 * report kept for the dialog, the history list reloaded after it), and
 * opening a session it imported.
 */
import { open } from "@tauri-apps/plugin-dialog";
import { commands, type SessionId } from "../bindings";
import { importStore, patchImport } from "../store/importer";
import { openDialog } from "../store/ui";
import { attempt, describe } from "./actions";
import { loadHistory, openPastSession } from "./history";

/** Opens the dialog; a report from an earlier import is not shown again. */
export function openImport(): void {
  patchImport({ report: null, error: null });
  openDialog({ kind: "import" });
}

export function closeImport(): void {
  openDialog(null);
}

export function setImportDir(dir: string): void {
  patchImport({ dir });
}

/** The folder picker, starting at the folder typed. */
export async function chooseImportDir(): Promise<void> {
  try {
    const current = importStore.get().dir.trim();
    const chosen = await open({ directory: true, multiple: false, defaultPath: current || undefined });
    const path = Array.isArray(chosen) ? chosen[0] : chosen;
    if (typeof path === "string" && path) patchImport({ dir: path });
  } catch (e) {
    patchImport({ error: `Could not open the folder picker: ${describe(e)}` });
  }
}

/**
 * Imports the folder typed (empty: Claude Code's own); the report (or why the
 * folder could not be read) is shown in the dialog, and the history list
 * reloads to show what was added.
 */
export async function runImport(): Promise<boolean> {
  if (importStore.get().running) return false;
  const dir = importStore.get().dir.trim();
  patchImport({ running: true, error: null });
  const r = await attempt(() => commands.importClaudeCode(dir === "" ? null : dir));
  if (!r.ok) {
    patchImport({ running: false, error: r.message });
    return false;
  }
  patchImport({ running: false, report: r.data });
  await loadHistory();
  return true;
}

/** Opens an imported session for review (the dialog closes). */
export async function openImported(sessionId: SessionId): Promise<void> {
  await openPastSession(sessionId);
}
