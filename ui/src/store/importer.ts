/**
 * The "Import Claude Code sessions" dialog's state: the folder typed (empty:
 * Claude Code's own), whether an import runs, and its last report or error.
 * Filled by the actions in ipc/importer.ts.
 */
import type { ImportReport } from "../bindings";
import { createStore } from "./store";

export interface ImportState {
  dir: string;
  running: boolean;
  report: ImportReport | null;
  error: string | null;
}

export function initialImport(): ImportState {
  return { dir: "", running: false, report: null, error: null };
}

export const importStore = createStore<ImportState>(initialImport());

export function patchImport(patch: Partial<ImportState>): void {
  importStore.set((s) => ({ ...s, ...patch }));
}
