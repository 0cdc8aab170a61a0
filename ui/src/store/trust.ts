/**
 * The question asked before a session starts in a workspace whose `.mcp.json`
 * is not trusted: the file as the backend read it, and how to give the
 * person's answer back to the start that waits for it. The dialog renders
 * from here; ipc/trust.ts asks and acts on the answer.
 */
import type { WorkspaceMcp } from "../bindings";
import { createStore } from "./store";

/** Trust the file and start; start with its servers left out; or start nothing. */
export type TrustAnswer = "trust" | "skip" | "cancel";

export interface TrustQuestion {
  mcp: WorkspaceMcp;
  answer: (a: TrustAnswer) => void;
}

export const trustStore = createStore<TrustQuestion | null>(null);

/** Shows the question and resolves with the answer; a newer question cancels one still open. */
export function askTrust(mcp: WorkspaceMcp): Promise<TrustAnswer> {
  trustStore.get()?.answer("cancel");
  return new Promise((resolve) => {
    const question: TrustQuestion = {
      mcp,
      answer: (a) => {
        trustStore.set((q) => (q === question ? null : q));
        resolve(a);
      },
    };
    trustStore.set(question);
  });
}
