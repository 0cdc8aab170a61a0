import { afterEach, describe, expect, it } from "vitest";
import { focusPast } from "./focusPast";

const IDS = ["before", "hidden", "h1", "s1", "hidden2", "h3", "after"] as const;
type Page = Record<(typeof IDS)[number], HTMLElement>;

/** before | hidden pane (two controls) | shown pane (one, one disabled, one out of the tab order) | another hidden pane | after */
function page(): Page {
  document.body.innerHTML = `
    <button id="before">before</button>
    <div id="hidden" data-pane="hidden"><button id="h1">h1</button><a id="h2" href="#x">h2</a></div>
    <div data-pane="shown"><button id="s1">s1</button><button disabled>off</button><span tabindex="-1">x</span></div>
    <div id="hidden2" data-pane="hidden"><button id="h3">h3</button></div>
    <button id="after">after</button>`;
  const found: Partial<Page> = {};
  for (const id of IDS) found[id] = document.getElementById(id) as HTMLElement;
  return found as Page;
}

afterEach(() => {
  document.body.innerHTML = "";
});

describe("focusPast", () => {
  it("sends focus that Tab brought into a hidden pane on to the next element Tab reaches after it", () => {
    const p = page();
    p.h1.focus();
    focusPast(p.hidden, p.before);
    expect(document.activeElement).toBe(p.s1);
  });

  it("skips every hidden pane, disabled control and element out of the tab order", () => {
    const p = page();
    p.h3.focus();
    focusPast(p.hidden2, p.s1);
    expect(document.activeElement).toBe(p.after);
  });

  it("goes back to the element before the pane when focus came from after it (Shift+Tab)", () => {
    const p = page();
    p.h3.focus();
    focusPast(p.hidden2, p.after);
    expect(document.activeElement).toBe(p.s1);
    p.h1.focus();
    focusPast(p.hidden, p.s1);
    expect(document.activeElement).toBe(p.before);
  });

  it("drops focus when nothing outside the hidden panes can take it", () => {
    document.body.innerHTML = `<div id="hidden" data-pane="hidden"><button id="h1">h1</button></div>`;
    const pane = document.getElementById("hidden") as HTMLElement;
    (document.getElementById("h1") as HTMLElement).focus();
    focusPast(pane, null);
    expect(pane.contains(document.activeElement)).toBe(false);
  });
});
