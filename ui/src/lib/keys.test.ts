/** What Settings says about keys, from Rust's facts: the keyring's state and each key's source. */
import { describe, expect, it } from "vitest";
import type { KeySource, ProviderState } from "../bindings";
import { keyControls, keyringNote, keyVars } from "./keys";

const provider = (kind: "anthropic" | "openai", key_source: KeySource): ProviderState => ({
  kind,
  label: kind,
  key_source,
  key_var: kind === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY",
  base_url: "",
  default_model: "",
  ready: false,
  problem: null,
});
const up = { available: true, problem: null };
const down = { available: false, problem: "Platform failure: zbus error" };

describe("keys in Settings", () => {
  it("names the variables of providers that take a key", () => {
    expect(keyVars([provider("anthropic", "none"), provider("openai", "not_needed")])).toEqual(["ANTHROPIC_API_KEY"]);
    expect(keyringNote([provider("anthropic", "none"), provider("openai", "environment")])).toBe(
      "Arbor found no keyring service on this system, so keys can't be saved here. " +
        "Set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment that starts Arbor instead.",
    );
  });

  it("blocks saving without a keyring, saying what to set", () => {
    expect(keyControls(provider("openai", "none"), down)).toEqual({
      canSave: false,
      canRemove: false,
      reason: "No keyring service, so keys can't be saved here. Set OPENAI_API_KEY instead.",
      placeholder: "Set OPENAI_API_KEY instead",
    });
    // Already set: nothing to set instead, only where the key comes from.
    expect(keyControls(provider("openai", "environment"), down)).toEqual({
      canSave: false,
      canRemove: false,
      reason: "The key comes from $OPENAI_API_KEY; no keyring service, so none can be saved here.",
      placeholder: "Using OPENAI_API_KEY",
    });
    expect(keyControls(provider("openai", "not_needed"), down).reason).toBe("No keyring service, so keys can't be saved here.");
  });

  it("removes only a saved key, and says a key from the environment can't be removed here", () => {
    expect(keyControls(provider("anthropic", "keyring"), up)).toMatchObject({ canSave: true, canRemove: true, reason: null });
    expect(keyControls(provider("anthropic", "environment"), up)).toMatchObject({
      canSave: true,
      canRemove: false,
      reason: "The key comes from $ANTHROPIC_API_KEY (it can't be removed here).",
    });
    expect(keyControls(provider("anthropic", "none"), up)).toMatchObject({ canSave: true, canRemove: false, reason: null });
  });
});
