/**
 * A message in an agent's output, named for who wrote it: "You" for a person's,
 * "Arbor" for the request to carry on that Arbor sends when a run is resumed or a
 * budget raised (the person never typed it), "From its parent" for a parent's.
 * A message sent while the agent worked shows as queued, at the end, until the
 * agent's next turn takes it; then it moves to where the agent read it.
 */
import type { MessageFrom } from "../../bindings";

const WHO: Record<MessageFrom, string> = { person: "You", arbor: "Arbor", parent: "From its parent" };

export function UserRow({ text, from, queued = false }: { text: string; from: MessageFrom; queued?: boolean }) {
  return (
    <div className={`item-user from-${from}${queued ? " queued" : ""}`} data-testid={queued ? "queued-message" : "user-message"}>
      <div className="who">
        {WHO[from]}
        {queued ? (
          <span className="queued-note" title="The agent reads it when its current turn ends">
            {" "}
            · queued until its next turn
          </span>
        ) : from === "arbor" ? (
          <span className="queued-note"> · sent to carry on the run</span>
        ) : null}
      </div>
      {text}
    </div>
  );
}
