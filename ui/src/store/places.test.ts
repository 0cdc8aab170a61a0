import { describe, expect, it } from "vitest";
import { placeOf, rememberPlace } from "./places";

describe("where an output was left", () => {
  it("is kept per session and agent, the newest kept when the oldest are forgotten", () => {
    rememberPlace("s-1", "agent-a", { top: 120, following: false, measured: [] });
    rememberPlace("s-2", "agent-a", { top: 0, following: true, measured: [] });
    expect(placeOf("s-1", "agent-a")).toEqual({ top: 120, following: false, measured: [] });
    expect(placeOf("s-2", "agent-a")).toEqual({ top: 0, following: true, measured: [] });
    expect(placeOf("s-1", "agent-b")).toBeNull();
    for (let i = 0; i < 600; i++) rememberPlace("s-3", `agent-${i}`, { top: i, following: false, measured: [] });
    expect(placeOf("s-1", "agent-a")).toBeNull();
    expect(placeOf("s-3", "agent-599")).toEqual({ top: 599, following: false, measured: [] });
  });
});
