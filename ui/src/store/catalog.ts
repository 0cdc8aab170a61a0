/**
 * When the agent catalog was last changed from this window: an ACP agent added
 * or removed in Settings writes the user's agent file, and a person's Reload
 * reads the files again. Every view of the catalog (Settings' agent
 * definitions, its external agents) loads it again when this moves, so an
 * agent added in one card shows in the other at once.
 */
import { createStore } from "./store";

export const catalogVersion = createStore(0);

/** Every view of the catalog loads it again. */
export function reloadCatalog(): void {
  catalogVersion.set((v) => v + 1);
}
