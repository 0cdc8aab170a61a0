/**
 * What the top bar says. While a session runs, it names what that session
 * actually runs in (its workspace, its provider and model; the demo's sample
 * project and scripted model), as Rust reported it when the session started,
 * not the choices the next session would take. And whether "New session" can
 * act, with the reason when it cannot: the button stays in place either way.
 */
import type { ProviderState, SessionInfo } from "../bindings";

/** The demo's model, as the top bar names it (the session says `demo`; its provider field is only a placeholder). */
export const DEMO_RUNS = "Demo (scripted model)";

/** The running session's provider and model, as a person reads them. */
export function sessionRuns(session: SessionInfo, providers: readonly ProviderState[]): string {
  if (session.demo) return DEMO_RUNS;
  const provider = providers.find((p) => p.kind === session.provider)?.label ?? session.provider;
  const runs = session.model ? `${provider} · ${session.model}` : provider;
  // The type first: the chip is cut at its end when the window is narrow.
  return session.main_type ? `${session.main_type} · ${runs}` : runs;
}

/** The tooltip over the running session's provider and model. */
export function sessionRunsTip(session: SessionInfo): string {
  return session.demo
    ? `This session plays a built-in script (${session.model}): no key, no network`
    : session.main_type
      ? `This session's main agent runs as ${session.main_type}, on this provider and model. New session to choose others.`
      : `This session's provider and model. New session to choose others.`;
}

export type NewSessionState = { enabled: true; tip: string } | { enabled: false; reason: string };

/**
 * "New session": a fresh page for another session; whatever the window showed
 * (a live session, one starting, a past one under review) goes on, listed
 * above the tree. On a fresh page already it waits.
 */
export function newSessionState(s: { live: boolean; reviewing: boolean; starting: boolean }): NewSessionState {
  if (s.live || s.reviewing || s.starting) {
    return { enabled: true, tip: "Start another session: the ones running go on, listed above the agent tree" };
  }
  return { enabled: false, reason: "This is a new session's page: the prompt below starts it" };
}
