/**
 * What Settings says about API keys, from Rust's facts only (whether the OS
 * keyring can save, where each provider's key comes from, the variable it
 * reads): whether a key can be typed and saved or removed here, and if not,
 * why, in words next to the controls rather than a silently greyed button.
 */
import type { KeyringState, ProviderState } from "../bindings";
import { orList } from "./format";

/** The environment variables keys can come from instead (providers that take no key left out). */
export function keyVars(providers: readonly ProviderState[]): string[] {
  return providers.filter((p) => p.key_source !== "not_needed").map((p) => p.key_var);
}

/** The Providers section's note when nothing can be saved; Rust's own reason goes under it, folded. */
export function keyringNote(providers: readonly ProviderState[]): string {
  const vars = keyVars(providers);
  const instead = vars.length > 0 ? ` Set ${orList(vars)} in the environment that starts Arbor instead.` : "";
  return `Arbor found no keyring service on this system, so keys can't be saved here.${instead}`;
}

export interface KeyControls {
  /** The key field and Save key can be used (the keyring can save). */
  canSave: boolean;
  /** Remove key has a saved key to remove. */
  canRemove: boolean;
  /** Why Save or Remove can't act where a person would expect them to, shown beside them; null when nothing needs saying. */
  reason: string | null;
  placeholder: string;
}

export function keyControls(p: ProviderState, keyring: KeyringState): KeyControls {
  const fromEnv = p.key_source === "environment";
  const canSave = keyring.available;
  let reason: string | null = null;
  if (!canSave && fromEnv) reason = `The key comes from $${p.key_var}; no keyring service, so none can be saved here.`;
  else if (!canSave && p.key_source === "not_needed") reason = "No keyring service, so keys can't be saved here.";
  else if (!canSave) reason = `No keyring service, so keys can't be saved here. Set ${p.key_var} instead.`;
  else if (fromEnv) reason = `The key comes from $${p.key_var} (it can't be removed here).`;
  return {
    canSave,
    canRemove: p.key_source === "keyring",
    reason,
    placeholder: !canSave
      ? fromEnv
        ? `Using ${p.key_var}`
        : `Set ${p.key_var} instead`
      : p.key_source === "keyring"
        ? "•••••••• (stored; type to replace)"
        : `Paste an API key (or set ${p.key_var})`,
  };
}
