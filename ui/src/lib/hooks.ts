/**
 * Hook runs in words, from Rust's own (HOOK_DECISION_WORDS): what a hook
 * decided, how its line is toned, and the one-line summary an output row and
 * a decision mark show.
 */
import { HOOK_DECISION_WORDS, type HookDecision, type HookEvent, type HookRan } from "../bindings";

const WORDS = new Map<HookDecision, string>(HOOK_DECISION_WORDS);

/** "refused the call", "added context", … */
export function decisionWords(d: HookDecision): string {
  return WORDS.get(d) ?? d;
}

/** How a run's line is toned: refusals and failures stand out, the rest is quiet. */
export function hookTone(d: HookDecision): "refused" | "failed" | "neutral" {
  if (d === "deny" || d === "block" || d === "stop") return "refused";
  if (d === "failed" || d === "timed_out") return "failed";
  return "neutral";
}

/** "exit 2 · 12 ms" (no exit code when it was killed or never started). */
export function hookExit(ran: HookRan): string {
  const exit = ran.exit_code === null || ran.exit_code === undefined ? "no exit code" : `exit ${ran.exit_code}`;
  return `${exit} · ${ran.duration_ms} ms`;
}

/** The file a hook came from, shortened to what names it (`…/.claude/settings.json`). */
export function hookSource(source: string): string {
  const at = source.lastIndexOf("/.claude/");
  return at > 0 ? `…${source.slice(at)}` : source;
}

/** A decision mark's words for a call a hook decided. */
export function hookDecidedText(event: HookEvent, ran: boolean): string {
  return `${ran ? "allowed" : "refused"} by a ${event} hook`;
}
