import { describe, expect, it } from "vitest";
import { approvalKeyAction, isTextEntry, keysMayAct } from "./approvalKeys";

const press = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) =>
  approvalKeyAction({ key, ctrlKey: false, metaKey: false, altKey: false, ...mods });

describe("the inbox's keys", () => {
  it("move, answer, open the reason, choose a scope and approve all", () => {
    expect(press("j")).toEqual({ kind: "move", by: 1 });
    expect(press("ArrowDown")).toEqual({ kind: "move", by: 1 });
    expect(press("k")).toEqual({ kind: "move", by: -1 });
    expect(press("ArrowUp")).toEqual({ kind: "move", by: -1 });
    expect(press("a")).toEqual({ kind: "approve" });
    expect(press("d")).toEqual({ kind: "deny" });
    expect(press("r")).toEqual({ kind: "reason" });
    expect(press("A")).toEqual({ kind: "approveAll" });
    expect(["1", "2", "3", "4"].map((k) => press(k))).toEqual([
      { kind: "scope", scope: "once" },
      { kind: "scope", scope: "agent" },
      { kind: "scope", scope: "subtree" },
      { kind: "scope", scope: "session" },
    ]);
  });

  it("leave other keys and the window's shortcuts alone", () => {
    expect(press("5")).toBeNull();
    expect(press("x")).toBeNull();
    expect(press("a", { ctrlKey: true })).toBeNull();
    expect(press("d", { metaKey: true })).toBeNull();
  });

  it("never act in a text field or with a dialog open", () => {
    const input = document.createElement("input");
    const checkbox = document.createElement("input");
    checkbox.type = "checkbox";
    const editable = document.createElement("div");
    editable.setAttribute("contenteditable", "true");
    const dialog = document.createElement("div");
    dialog.setAttribute("role", "dialog");
    const inDialog = document.createElement("button");
    dialog.append(inDialog);
    expect(isTextEntry(input)).toBe(true);
    expect(isTextEntry(document.createElement("textarea"))).toBe(true);
    expect(isTextEntry(document.createElement("select"))).toBe(true);
    expect(isTextEntry(checkbox)).toBe(false);
    expect(keysMayAct(input, false)).toBe(false);
    expect(keysMayAct(document.createElement("div"), false)).toBe(true);
    expect(keysMayAct(document.createElement("div"), true)).toBe(false);
    expect(keysMayAct(inDialog, false)).toBe(false);
    // Any modal on the page, wherever the focus is.
    const modal = document.createElement("div");
    modal.setAttribute("aria-modal", "true");
    const outside = document.createElement("div");
    document.body.append(modal, outside);
    expect(keysMayAct(outside, false)).toBe(false);
    modal.remove();
    expect(keysMayAct(outside, false)).toBe(true);
    outside.remove();
    expect(isTextEntry(editable)).toBe(true);
    expect(keysMayAct(editable, false)).toBe(false);
  });
});
