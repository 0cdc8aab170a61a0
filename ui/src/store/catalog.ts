/**
 * When the agent catalog was last changed from this window: an ACP agent added
 * or removed in Settings writes the user's agent file, and a person's Reload
 * reads the files again. Every view of the catalog (Settings' agent
 * definitions, its external agents) loads it again when this moves, so an
 * agent added in one card shows in the other at once; views that ask at once
 * share one read of the files.
 */
import type { CatalogReport } from "../bindings";
import { loadCatalog, type Outcome } from "../ipc/actions";
import { createStore } from "./store";

export const catalogVersion = createStore(0);

/** Every view of the catalog loads it again. */
export function reloadCatalog(): void {
  catalogVersion.set((v) => v + 1);
}

/** The read under way, for the views that ask for the same catalog while it is. */
let reading: { key: string; answer: Promise<Outcome<CatalogReport>> } | null = null;

/**
 * The catalog of `workspace` as of `version` (`catalogVersion`): one read of the
 * files for every view that asks while it is under way (Settings' two cards
 * open together); a view opened later reads them again.
 */
export function readCatalog(workspace: string, version: number): Promise<Outcome<CatalogReport>> {
  const key = `${version}\n${workspace}`;
  if (reading?.key === key) return reading.answer;
  const entry = { key, answer: loadCatalog(workspace || null) };
  reading = entry;
  void entry.answer.then(() => {
    if (reading === entry) reading = null;
  });
  return entry.answer;
}
