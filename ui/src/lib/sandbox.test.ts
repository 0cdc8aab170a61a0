import { describe, expect, it } from "vitest";
import { SANDBOX_MODES, type CommandSandbox } from "../bindings";
import {
  autoRunBlocked,
  availabilityText,
  delegateSandboxHint,
  describeSandbox,
  isSandboxMode,
  modeOptionText,
  networkChoosable,
  parseWriteList,
  SANDBOX_MODE_LABELS,
  sandboxRequest,
  withSandbox,
  writeListText,
} from "./sandbox";

const held: CommandSandbox = {
  state: "sandboxed",
  mode: "workspace",
  mechanism: "bubblewrap 0.8.0",
  writable: ["/work/demo", "/tmp"],
  network: false,
  hidden: ["/home/me/.ssh", "/home/me/.aws"],
};

describe("what a command runs in", () => {
  it("says a sandboxed command's mode, network and writable paths, with everything in the detail", () => {
    const v = describeSandbox(held);
    expect(v.protected).toBe(true);
    expect(v.short).toBe("Sandboxed");
    expect(v.label).toBe("Sandboxed · workspace · network off · writes: /work/demo, /tmp");
    expect(v.detail).toContain("bubblewrap 0.8.0");
    expect(v.detail).toContain("Network: off");
    expect(v.detail).toContain("May write: /work/demo, /tmp");
    expect(v.detail).toContain("Hidden: /home/me/.ssh, /home/me/.aws");
  });

  it("shortens a long writable list in the line, never in the detail", () => {
    const paths = ["/a", "/b", "/c", "/d", "/e"];
    const v = describeSandbox({ ...held, mode: "strict", network: true, writable: paths, hidden: [] });
    expect(v.label).toBe("Sandboxed · strict · network on · writes: /a, /b, /c +2 more");
    expect(v.detail).toContain("May write: /a, /b, /c, /d, /e");
    expect(v.detail).not.toContain("Hidden");
    expect(describeSandbox({ ...held, writable: [] }).label).toContain("writes: nowhere");
  });

  it("never claims protection when the sandbox is off or unavailable", () => {
    const off = describeSandbox({ state: "off" });
    expect(off).toMatchObject({ protected: false, short: "Not sandboxed", label: "NOT sandboxed: the sandbox is off" });
    const none = describeSandbox({ state: "unavailable", reason: "bwrap is not installed" });
    expect(none).toMatchObject({ protected: false, short: "Not sandboxed", label: "NOT sandboxed: bwrap is not installed" });
    expect(none.detail).toContain("bwrap is not installed");
  });
});

describe("the sandbox settings", () => {
  it("says whether the machine can sandbox", () => {
    expect(availabilityText({ mechanism: "bubblewrap 0.8.0", problem: null })).toEqual({
      ok: true,
      text: "Commands can be sandboxed here, by bubblewrap 0.8.0.",
    });
    const no = availabilityText({ mechanism: null, problem: "bwrap cannot create a user namespace" });
    expect(no.ok).toBe(false);
    expect(no.text).toContain("bwrap cannot create a user namespace");
    expect(availabilityText({ mechanism: null, problem: null }).ok).toBe(false);
  });

  it("words every mode Rust offers", () => {
    for (const m of SANDBOX_MODES) expect(SANDBOX_MODE_LABELS[m].label).not.toBe("");
    expect(modeOptionText("off")).toBe("Off — commands run as you");
    expect(modeOptionText("strict")).toBe("Strict — also hides your home directory");
    expect(isSandboxMode("strict")).toBe(true);
    expect(isSandboxMode("loose")).toBe(false);
  });

  it("reads writable directories one per line, keeping a line being typed", () => {
    expect(parseWriteList(" ~/.cargo \n\n/opt/cache\n")).toEqual(["~/.cargo", "/opt/cache"]);
    expect(writeListText("~/.cargo\n", ["~/.cargo"])).toBe("~/.cargo\n");
    // Reverted or saved elsewhere: the stored list shows.
    expect(writeListText("~/.cargo\n/x", ["/opt/cache"])).toBe("/opt/cache");
    expect(writeListText("", undefined)).toBe("");
    expect(withSandbox(undefined, { network: true })).toEqual({ network: true });
    expect(withSandbox({ mode: "strict", write: ["/a"] }, { write: [] })).toEqual({ mode: "strict", write: [] });
  });

  it("offers running without asking only when something is sandboxed", () => {
    const can = { mechanism: "bubblewrap 0.8.0", problem: null };
    expect(autoRunBlocked(can, "workspace")).toBeNull();
    expect(autoRunBlocked(can, undefined)).toBeNull();
    expect(autoRunBlocked(can, "off")).toContain("sandbox is off");
    expect(autoRunBlocked({ mechanism: null, problem: "no bwrap" }, "strict")).toContain("cannot sandbox");
  });
});

describe("a delegation's sandbox", () => {
  it("sends nothing for the parent's, else the mode and network (none for off)", () => {
    expect(sandboxRequest(null, true)).toBeNull();
    expect(sandboxRequest("strict", false)).toEqual({ mode: "strict", network: false, write: null });
    expect(sandboxRequest("workspace", true)).toEqual({ mode: "workspace", network: true, write: null });
    expect(sandboxRequest("off", true)).toEqual({ mode: "off", network: null, write: null });
    expect(networkChoosable(null)).toBe(false);
    expect(networkChoosable("off")).toBe(false);
    expect(networkChoosable("workspace")).toBe(true);
  });

  it("warns when the child will not be sandboxed", () => {
    expect(delegateSandboxHint(null).warn).toBe(false);
    expect(delegateSandboxHint("off")).toMatchObject({ text: "Its commands run as you, not sandboxed.", warn: true });
    expect(delegateSandboxHint("strict").warn).toBe(false);
  });
});
