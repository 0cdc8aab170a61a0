/** How a compaction of an agent's conversation reads in its output and the CLI's words. */
import type { ContextCompacted } from "../bindings";
import { formatTokens } from "./format";

/** "31.8k → 6.2k tokens (window 30k)". */
export function compactionSizes(c: ContextCompacted): string {
  const window = c.window_tokens !== null ? ` (window ${formatTokens(c.window_tokens)})` : "";
  return `${formatTokens(c.before_tokens)} → ${formatTokens(c.after_tokens)} tokens${window}`;
}

/** What was done: "12 older results cleared · 20 messages summarized". */
export function compactionSteps(c: ContextCompacted): string {
  const steps: string[] = [];
  if (c.cleared_results > 0) {
    steps.push(`${c.cleared_results} older result${c.cleared_results === 1 ? "" : "s"} cleared`);
  }
  if (c.summarized_messages > 0) {
    steps.push(`${c.summarized_messages} message${c.summarized_messages === 1 ? "" : "s"} summarized`);
  }
  return steps.join(" · ");
}
