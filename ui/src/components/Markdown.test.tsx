import { fireEvent, render } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import * as blocks from "../lib/markdownBlocks";
import { Markdown, renderMarkdown } from "./Markdown";

vi.mock("../lib/markdownBlocks", async (importOriginal) => {
  const m = await importOriginal<typeof import("../lib/markdownBlocks")>();
  // The real parser, watched: which blocks get parsed.
  return { ...m, renderBlock: vi.fn(m.renderBlock) };
});
const parsed = vi.mocked(blocks.renderBlock);

describe("renderMarkdown", () => {
  it("renders Markdown", () => {
    const html = renderMarkdown("**bold** and `code`\n\n- item");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain("<code>code</code>");
    expect(html).toContain("<li>item</li>");
  });

  it("removes scripts, event handlers and javascript: links", () => {
    const html = renderMarkdown('<script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">x</a><b onclick="y()">b</b>');
    expect(html).not.toMatch(/<script|onerror|onclick|javascript:/i);
    expect(html).toContain("<b>b</b>");
  });
});

describe("Markdown", () => {
  const start = "# Title\n\nFirst paragraph.\n\n```js\nconst a = 1;\n```\n\nStill stream";

  it("renders each top-level block in an element of its own, the caret after the last while it streams", () => {
    const { container } = render(<Markdown text={start} streaming />);
    const box = container.querySelector(".markdown");
    expect(box?.className).toContain("caret");
    const els = [...container.querySelectorAll(".md-block")];
    expect(els.map((el) => el.firstElementChild?.tagName)).toEqual(["H1", "P", "PRE", "P"]);
    expect(els[2]?.querySelector("code")?.textContent).toBe("const a = 1;\n");
  });

  it("parses only the end of a growing text, and keeps the earlier blocks' elements", () => {
    const { container, rerender } = render(<Markdown text={start} streaming />);
    const before = [...container.querySelectorAll(".md-block")];
    parsed.mockClear();
    rerender(<Markdown text={`${start}ing.\n\n- one\n- two`} streaming />);
    const after = [...container.querySelectorAll(".md-block")];
    expect(after).toHaveLength(5);
    for (let i = 0; i < 3; i++) expect(after[i]).toBe(before[i]);
    // The new block as it mounts, the grown one a moment later (deferred): each once.
    expect(parsed.mock.calls.map((c) => c[0]).sort()).toEqual(["- one\n- two", "Still streaming.\n\n"]);
    expect(after[3]?.querySelector("p")?.textContent).toBe("Still streaming.");
    expect(after[4]?.querySelectorAll("li")).toHaveLength(2);
    // Done: the caret goes, nothing is parsed again.
    parsed.mockClear();
    rerender(<Markdown text={`${start}ing.\n\n- one\n- two`} />);
    expect(container.querySelector(".markdown")?.className).not.toContain("caret");
    expect(parsed).not.toHaveBeenCalled();
  });

  it("keeps links from navigating the window away, and sanitises every block", () => {
    const { container } = render(
      <Markdown text={'See [docs][d].\n\n<b onclick="x()">b</b> <a href="javascript:alert(1)">j</a>\n\n[d]: https://example.com/docs'} />,
    );
    const link = container.querySelector("a[href='https://example.com/docs']");
    expect(link?.textContent).toBe("docs");
    expect(fireEvent.click(link as Element)).toBe(false);
    expect(container.innerHTML).not.toMatch(/onclick|javascript:/i);
  });
});

describe("a long block still being written", () => {
  it("shows as plain text while open, and as Markdown once complete", () => {
    const long = "**bold** " + "word ".repeat(2_000);
    const { container, rerender } = render(<Markdown text={long} streaming />);
    expect(container.querySelector(".md-open")).not.toBeNull();
    expect(container.querySelector("strong")).toBeNull();
    rerender(<Markdown text={long} />);
    expect(container.querySelector(".md-open")).toBeNull();
    expect(container.querySelector("strong")?.textContent).toBe("bold");
  });

  it("parses a short open block as it comes", () => {
    const { container } = render(<Markdown text="**bold** start" streaming />);
    expect(container.querySelector("strong")?.textContent).toBe("bold");
  });
});
