/** An agent's thinking, folded: "Thinking…" while it streams, then "Thought", with its length. */
import { IconChevron } from "../icons";

export function ThinkingBlock({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <details className="thoughts">
      <summary>
        <IconChevron size={11} /> {streaming ? "Thinking…" : "Thought"}
        <span className="faint">({text.length.toLocaleString()} chars)</span>
      </summary>
      <div className="body">{text}</div>
    </details>
  );
}
