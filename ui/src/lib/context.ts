/** How full an agent's context is, as its meter and header say it. Rust derives the figures; this only words them. */
import { CHARS_PER_TOKEN, type ContextWindow } from "../bindings";
import { formatTokens } from "./format";

/** Filled from this share on, the meter warns: compaction is near (Rust's default threshold is 80%). */
const WARN_SHARE = 0.7;

export interface ContextFill {
  /** 0–1. */
  share: number;
  tone: "ok" | "warn" | "full";
  /** "12k of 200k tokens in context (6%)", with "(the window a guess)" when it is. */
  label: string;
  /** "12k / 200k context", "~" before a guessed window. */
  short: string;
}

export function contextFill(used: number, window: ContextWindow | null): ContextFill | null {
  // Before its first answer nothing is in context yet: no meter rather than an empty one.
  if (window === null || window.tokens <= 0 || used <= 0) return null;
  const share = Math.min(1, used / window.tokens);
  const guess = window.source === "guess" ? " (the window a guess)" : "";
  const label = `${formatTokens(used)} of ${formatTokens(window.tokens)} tokens in context (${Math.round(share * 100)}%)${guess}`;
  const short = `${formatTokens(used)} / ${window.source === "guess" ? "~" : ""}${formatTokens(window.tokens)} context`;
  return { share, tone: share >= 1 ? "full" : share >= WARN_SHARE ? "warn" : "ok", label, short };
}

/** Text's tokens as Rust estimates them where no provider counted (`estimated_tokens`). */
export function estimatedTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
