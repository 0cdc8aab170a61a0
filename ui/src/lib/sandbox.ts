/**
 * The command sandbox as a person reads it: what one command runs in (an
 * approval card's line, the session's badge), whether this machine can
 * sandbox at all, the modes in words, the settings' writable directories as
 * typed, and what the Delegate… form asks for a child. Pure; tested without
 * Tauri. What is enforced, and how, is Rust's: nothing here decides it, and
 * the modes are Rust's list (SANDBOX_MODES).
 */
import { isOneOf } from "./choice";
import {
  SANDBOX_MODES,
  type CommandSandbox,
  type SandboxAvailability,
  type SandboxMode,
  type SandboxRequest,
  type SandboxSettings,
} from "../bindings";

/** What a command runs in, in words. */
export interface SandboxView {
  /** One line: "Sandboxed · workspace · network off · writes: /w, /tmp", or "NOT sandboxed: <why>". */
  label: string;
  /** A badge's word: "Sandboxed" or "Not sandboxed". */
  short: string;
  /** Everything known, one fact per line, for a tooltip. */
  detail: string;
  /** True only when the OS holds the command; never for `off` or `unavailable`. */
  protected: boolean;
}

/** How many writable paths the one-line label names before "+N more". */
const LABEL_PATHS = 3;

function pathList(paths: readonly string[], most: number): string {
  if (paths.length === 0) return "nowhere";
  if (paths.length <= most) return paths.join(", ");
  return `${paths.slice(0, most).join(", ")} +${paths.length - most} more`;
}

export function describeSandbox(sandbox: CommandSandbox): SandboxView {
  switch (sandbox.state) {
    case "sandboxed": {
      const network = sandbox.network ? "network on" : "network off";
      const detail = [
        `Sandboxed by ${sandbox.mechanism} (${sandbox.mode} mode)`,
        `Network: ${sandbox.network ? "allowed" : "off"}`,
        `May write: ${pathList(sandbox.writable, Infinity)}`,
        ...(sandbox.hidden.length > 0 ? [`Hidden: ${sandbox.hidden.join(", ")}`] : []),
      ].join("\n");
      return {
        label: `Sandboxed · ${sandbox.mode} · ${network} · writes: ${pathList(sandbox.writable, LABEL_PATHS)}`,
        short: "Sandboxed",
        detail,
        protected: true,
      };
    }
    case "off":
      return {
        label: "NOT sandboxed: the sandbox is off",
        short: "Not sandboxed",
        detail: "The sandbox is turned off: commands run as you, with everything you can reach.",
        protected: false,
      };
    case "unavailable":
      return {
        label: `NOT sandboxed: ${sandbox.reason}`,
        short: "Not sandboxed",
        detail: `This machine cannot sandbox commands, so they run as you, with everything you can reach: ${sandbox.reason}`,
        protected: false,
      };
  }
}

/** Whether this machine can sandbox commands, as Settings says it. */
export function availabilityText(a: SandboxAvailability): { ok: boolean; text: string } {
  if (a.mechanism !== null && a.problem === null) return { ok: true, text: `Commands can be sandboxed here, by ${a.mechanism}.` };
  const why = a.problem ?? "no sandboxing mechanism was found";
  return { ok: false, text: `Commands cannot be sandboxed on this machine: ${why}. They run as you.` };
}

/** Each mode (Rust's list) in words. */
export const SANDBOX_MODE_LABELS: Readonly<Record<SandboxMode, { label: string; hint: string }>> = {
  off: { label: "Off", hint: "Commands run as you" },
  workspace: { label: "Workspace", hint: "Writes only in the workspace and a private /tmp, secrets hidden" },
  strict: { label: "Strict", hint: "Also hides your home directory" },
};

/** "Workspace — writes only in the workspace and a private /tmp, secrets hidden". */
export function modeOptionText(mode: SandboxMode): string {
  const { label, hint } = SANDBOX_MODE_LABELS[mode];
  return `${label} — ${hint.charAt(0).toLowerCase()}${hint.slice(1)}`;
}

export function isSandboxMode(value: string): value is SandboxMode {
  return isOneOf(SANDBOX_MODES, value);
}

/** The sandbox settings with some fields changed, the rest as they were. */
export function withSandbox(current: SandboxSettings | undefined, patch: Partial<SandboxSettings>): SandboxSettings {
  return { ...current, ...patch };
}

/** The writable directories typed one per line: trimmed, blank lines dropped. */
export function parseWriteList(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

/**
 * What the one-per-line field shows: what the person typed while it still
 * means the stored list (so a new, still empty line stays), else the list
 * (after Revert or Save).
 */
export function writeListText(typed: string, list: readonly string[] | undefined): string {
  const stored = list ?? [];
  const parsed = parseWriteList(typed);
  const same = parsed.length === stored.length && parsed.every((p, i) => p === stored[i]);
  return same ? typed : stored.join("\n");
}

/**
 * Why "Run sandboxed commands without asking" cannot apply, or null when it
 * can: nothing is sandboxed when the machine cannot or the mode is off.
 */
export function autoRunBlocked(a: SandboxAvailability, mode: SandboxMode | undefined): string | null {
  if (!availabilityText(a).ok) return "Unavailable: this machine cannot sandbox commands, so none runs without asking.";
  if (mode === "off") return "Unavailable while the sandbox is off: no command is sandboxed.";
  return null;
}

/**
 * What a delegation asks of its child's sandbox: null ("Same as parent")
 * keeps the parent's; a mode replaces it, with network as ticked (no network
 * for `off`: everything is open), and the parent's writable list.
 */
export function sandboxRequest(mode: SandboxMode | null, network: boolean): SandboxRequest | null {
  if (mode === null) return null;
  return { mode, network: networkChoosable(mode) ? network : null, write: null };
}

/** Network can be chosen for a mode that sandboxes (not the parent's, not off). */
export function networkChoosable(mode: SandboxMode | null): boolean {
  return mode !== null && mode !== "off";
}

/**
 * The Delegate… form's notes under its sandbox choice and its network box;
 * `warn` when the child will not be sandboxed.
 */
export function delegateSandboxHint(mode: SandboxMode | null): { text: string; network: string; warn: boolean } {
  if (mode === null) return { text: "Its commands run as its parent's do.", network: "As its parent's.", warn: false };
  if (mode === "off")
    return { text: "Its commands run as you, not sandboxed.", network: "Not sandboxed: the network is open.", warn: true };
  return { text: "Replaces the parent's, even where that is looser.", network: "For its sandboxed commands.", warn: false };
}
