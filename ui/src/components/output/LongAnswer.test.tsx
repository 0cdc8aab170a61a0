/**
 * A 1,500-line answer in the output: rendered as parts (virtual rows) of its
 * Markdown blocks, so only a bounded number of blocks is in the DOM; a
 * streamed append leaves the blocks already shown alone; a jump to it still
 * lands on it.
 */
import { act, fireEvent, render, screen } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { splitBlocks } from "../../lib/markdownBlocks";
import { patchUi, uiStore } from "../../store/ui";
import { eventMaker } from "../../test/events";
import { withLayout } from "../../test/layout";
import { applyEvents, resetStores, sessionInfo } from "../../test/stores";
import { OutputView } from "./OutputView";

vi.mock("../../bindings", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../bindings")>()),
  commands: {},
}));

// Each row a part of the answer, tall as its many lines are.
withLayout({ offsetHeight: 600, offsetWidth: 800, clientHeight: 600 }, 600);

/** About 1,500 lines of what models write: headings, prose, lists, code, tables. */
function longAnswer(): string {
  const sections: string[] = [];
  for (let i = 0; i < 60; i++) {
    sections.push(
      [
        `## Section ${i}`,
        "",
        `Section ${i} explains **one thing** with \`code\` and a [link](https://example.com/${i}).`,
        "It goes on for a second line.",
        "",
        "- first point",
        "- second point",
        "",
        "```ts",
        `const section = ${i};`,
        "console.log(section);",
        "```",
        "",
        "| a | b |",
        "|---|---|",
        `| ${i} | ${i * 2} |`,
        "",
        `Closing words of section ${i}.`,
        "",
        "",
      ].join("\n"),
    );
  }
  // Padding paragraphs to reach 1,500 lines.
  let text = sections.join("");
  let n = 0;
  while (text.split("\n").length < 1500) text += `Extra paragraph ${n++}.\n\n`;
  return text;
}

const e = eventMaker();
const TEXT = longAnswer();

function blocksInDom(): Element[] {
  return [...screen.getByTestId("output").querySelectorAll(".md-block")];
}

/**
 * Scrolls the output to its end. jsdom neither lays out nor scrolls: the
 * scroller's height is the list's total, its scrollTop a value the list
 * reads on a scroll event (and sets, to stay at the end).
 */
function scrollToEnd(): void {
  const scroller = screen.getByTestId("output").querySelector(".output-scroll") as HTMLElement;
  const height = () => parseFloat((scroller.querySelector(".output-inner") as HTMLElement).style.height);
  let top = height() - 600;
  Object.defineProperty(scroller, "scrollHeight", { configurable: true, get: height });
  Object.defineProperty(scroller, "scrollTop", {
    configurable: true,
    get: () => top,
    set: (v: number) => {
      top = Math.max(0, Math.min(v, height() - 600));
    },
  });
  fireEvent.scroll(scroller);
}

/** Lets the frames pass that a long answer is split over (lib/responseParts.ts), until its end is in. */
async function allSliced(): Promise<void> {
  for (let i = 0; i < 100 && !screen.getByTestId("output").textContent?.includes("Extra paragraph 0."); i++) {
    await act(() => new Promise<void>((r) => requestAnimationFrame(() => r())));
  }
}

beforeEach(() => {
  resetStores({ session: sessionInfo() });
  applyEvents([e.started("agent-main", null, "main"), e.make("agent-main", { type: "user_message", content: "Explain" })]);
});

describe("a long answer", () => {
  it("mounts only a bounded number of its blocks, and shows its end", async () => {
    expect(TEXT.split("\n").length).toBeGreaterThanOrEqual(1500);
    const total = splitBlocks(TEXT).blocks.length;
    expect(total).toBeGreaterThan(400);
    applyEvents([e.make("agent-main", { type: "response_chunk", content: TEXT })]);
    render(<OutputView />);
    const out = screen.getByTestId("output");
    // The first frame: what its first slice holds (it is split a slice a frame), at its end,
    // which the output follows.
    expect(blocksInDom().length).toBeGreaterThan(0);
    expect(out.textContent).not.toContain("Extra paragraph");
    await allSliced();
    expect(blocksInDom().length).toBeLessThan(150);
    // At the end: its end is in, its start is out, and still few blocks.
    act(() => scrollToEnd());
    expect(out.textContent).toContain("Extra paragraph");
    expect(out.textContent).not.toContain("Section 0 explains");
    expect(blocksInDom().length).toBeLessThan(150);
    // Its parts near the view only (lib/overscan.ts): the last, in view, and two above it within
    // OVERSCAN_PX, not six of 600 px each.
    expect(out.querySelectorAll(".output-row").length).toBeLessThanOrEqual(4);
  });

  it("keeps the blocks it shows while more streams in", async () => {
    applyEvents([e.make("agent-main", { type: "response_chunk", content: TEXT })]);
    render(<OutputView />);
    await allSliced();
    act(() => scrollToEnd());
    const before = blocksInDom();
    act(() => applyEvents([e.make("agent-main", { type: "response_chunk", content: "The very last words." })]));
    const after = blocksInDom();
    expect(screen.getByTestId("output").textContent).toContain("The very last words.");
    // Every block shown before that is still shown is the same element: not rendered again.
    const kept = before.filter((el) => el.isConnected);
    expect(kept.length).toBeGreaterThan(0);
    for (const el of kept.slice(0, -1)) expect(after).toContain(el);
  });

  it("is still where a jump to its events lands", () => {
    const chunk = e.make("agent-main", { type: "response_chunk", content: TEXT });
    applyEvents([chunk, e.make("agent-main", { type: "tool_call", call_id: "t1", tool_name: "Bash", tool_args: { command: "ls" } })]);
    // As a search hit opens it: the passage asked for before the output mounts (jsdom does
    // not scroll, so a jump within an output already at its end is left to the webview).
    act(() => patchUi({ focus: { agentId: "agent-main", seq: chunk.seq } }));
    render(<OutputView />);
    expect(uiStore.get().focus).toBeNull();
    const first = screen.getByTestId("output").querySelector(`[data-key="e${chunk.seq}"]`);
    expect(first?.className).toContain("flash");
    expect(first?.textContent).toContain("Section 0 explains");
  });
});
