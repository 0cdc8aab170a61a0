/**
 * Text a tool or a model wrote keeps its line breaks where it is shown whole
 * (a Bash or Task description, an approval's reason and note, a person's
 * reason on a decision mark), and stays on one line where a one-line summary
 * is meant (the tree's compact mark). Checked against the real stylesheets.
 */
import { render, screen } from "@testing-library/react";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { personMark } from "../lib/approvals";
import { ApprovalPreview } from "./approvals/ApprovalPreview";
import { DecisionMark } from "./approvals/DecisionMark";
import { ToolArgs } from "./ToolArgs";

let sheet: HTMLStyleElement;
beforeAll(() => {
  sheet = document.createElement("style");
  sheet.textContent = ["output.css", "approvals.css"]
    .map((f) => readFileSync(join(import.meta.dirname, "../styles", f), "utf8"))
    .join("\n");
  document.head.append(sheet);
});
afterAll(() => sheet.remove());

const FILES = "src/util.py\nsrc/app.py";
const keepsBreaks = (el: Element) => getComputedStyle(el).whiteSpace === "pre-wrap";

describe("line breaks in tool-derived text", () => {
  it("keeps a Bash call's description on its own lines", () => {
    render(<ToolArgs toolName="Bash" args={{ command: "ls src", description: FILES }} />);
    const text = screen.getByText((_, el) => el?.textContent === FILES && el.classList.contains("hint"));
    expect(keepsBreaks(text)).toBe(true);
  });

  it("keeps a Task call's description on its own lines", () => {
    render(<ToolArgs toolName="Task" args={{ prompt: "Look", description: FILES }} />);
    const text = screen.getByText((_, el) => el?.tagName === "SPAN" && el.textContent === FILES);
    expect(keepsBreaks(text)).toBe(true);
  });

  it("keeps an approval preview's reason on its own lines", () => {
    render(
      <ApprovalPreview
        preview={{ kind: "command", command: "rm -r build", cwd: "/w", description: FILES, sandbox: null }}
        toolName="Bash"
        args={{}}
      />,
    );
    const why = screen.getByText((_, el) => el?.classList.contains("preview-why") === true);
    expect(why.textContent).toBe(FILES);
    expect(keepsBreaks(why)).toBe(true);
  });

  it("keeps an approval preview's note on its own lines", () => {
    const note = "The text to replace is not in:\nsrc/util.py\nsrc/app.py";
    render(
      <ApprovalPreview
        preview={{ kind: "file", path: "src/util.py", before: "a", after: null, note }}
        toolName="Edit"
        args={{ file_path: "src/util.py", old_string: "x", new_string: "y" }}
      />,
    );
    const shown = screen.getByTestId("preview-note");
    expect(shown.textContent).toContain(note);
    expect(keepsBreaks(shown)).toBe(true);
  });

  it("keeps a person's reason on its lines on a tool card, and on one line in the tree", () => {
    const mark = personMark(false, "not these:\nsrc/util.py\nsrc/app.py");
    const { unmount } = render(<DecisionMark mark={mark} />);
    const text = () => screen.getByText((_, el) => el?.classList.contains("decided-text") === true);
    expect(text().textContent).toBe(mark.text);
    expect(keepsBreaks(text())).toBe(true);
    unmount();
    render(<DecisionMark mark={mark} compact />);
    expect(keepsBreaks(text())).toBe(false);
  });
});
