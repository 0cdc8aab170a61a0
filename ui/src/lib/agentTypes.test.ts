/** The agent types Delegate… offers: the session's, then those found since, which it can't start. */
import { describe, expect, it } from "vitest";
import { GENERAL_PURPOSE, type AgentTypeInfo } from "../bindings";
import { ADDED_SINCE, typeOptions } from "./agentTypes";

const type = (name: string, description = name, model: string | null = null): AgentTypeInfo => ({
  name,
  description,
  model,
  provider: null,
  source: "user config",
  file: null,
  acp: null,
  user: true,
});

describe("typeOptions", () => {
  it("puts general-purpose first, once, then the session's types", () => {
    const names = typeOptions([type("tester"), type(GENERAL_PURPOSE)], null).map((o) => o.name);
    expect(names).toEqual([GENERAL_PURPOSE, "tester"]);
  });

  it("lists types found since the session started as not choosable, saying why", () => {
    const options = typeOptions([type("tester")], [type("tester"), type("reviewer", "Reviews", "claude-x")]);
    expect(options.slice(1)).toEqual([
      { name: "tester", description: "tester", model: null, unavailable: null },
      { name: "reviewer", description: "Reviews", model: "claude-x", unavailable: ADDED_SINCE },
    ]);
  });

  it("shows a type in both as the session has it (what would run), and keeps one removed from disk since", () => {
    const options = typeOptions([type("tester", "old words"), type("gone")], [type("tester", "new words")]);
    expect(options.map((o) => [o.name, o.description, o.unavailable])).toEqual([
      [GENERAL_PURPOSE, options[0]?.description, null],
      ["tester", "old words", null],
      ["gone", "gone", null],
    ]);
  });
});
