import { describe, expect, it } from "vitest";
import { SESSION_SOURCES, type SearchHit, type SessionSummary } from "../bindings";
import {
  exportFileName,
  formatDateTime,
  formatWhen,
  historyRow,
  groupHits,
  hitRow,
  isImported,
  oneLine,
  sessionSource,
  shortWorkspace,
  sourceBadge,
  sourceLabel,
} from "./history";

const at = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min).getTime();

describe("dates", () => {
  const now = at(2025, 3, 14, 18, 30);
  it("says today, yesterday, the day this year, else the year", () => {
    expect(formatWhen(at(2025, 3, 14, 9, 5), now)).toBe("Today 09:05");
    expect(formatWhen(at(2025, 3, 13, 23, 59), now)).toBe("Yesterday 23:59");
    expect(formatWhen(at(2025, 1, 2, 14, 0), now)).toBe("Jan 2, 14:00");
    expect(formatWhen(at(2024, 12, 31, 8, 0), now)).toBe("Dec 31, 2024");
    expect(formatWhen(at(2025, 3, 1, 7, 0), at(2025, 3, 2, 0, 10))).toBe("Yesterday 07:00");
  });
  it("spells out the full date and time", () => {
    expect(formatDateTime(at(2025, 7, 4, 16, 7))).toBe("Jul 4, 2025 16:07");
  });
});

describe("labels", () => {
  it("shortens a workspace to its last two parts", () => {
    expect(shortWorkspace("/home/me/projects/arbor")).toBe("projects/arbor");
    expect(shortWorkspace("/home/me/projects/arbor/")).toBe("projects/arbor");
    expect(shortWorkspace("C:\\Users\\me\\code\\app")).toBe("code/app");
    expect(shortWorkspace("/tmp")).toBe("tmp");
    expect(shortWorkspace("/")).toBe("/");
  });
  it("puts a prompt on one line and cuts it", () => {
    expect(oneLine("  Fix\n\n the   build\t now ")).toBe("Fix the build now");
    expect(oneLine("abcdefghij", 6)).toBe("abcde…");
    expect(oneLine("abcdef", 6)).toBe("abcdef");
  });

  it("formats a history row", () => {
    const s: SessionSummary = {
      id: "sess-1",
      workspace: "/home/me/code/arbor",
      first_prompt: "Refactor the parser\nand add tests",
      provider: "anthropic",
      model: "claude-x",
      started_at: at(2025, 3, 14, 10, 0),
      ended_at: null,
      status: "max_turns",
      main_agent_id: "agent-main",
      agent_count: 3,
      event_count: 10,
      // As Rust sums them: 12,000 input + 300 output tokens.
      usage: {
        usage: { input_tokens: 12_000, output_tokens: 300, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0.0421 },
        tokens: 12_300,
      },
    };
    expect(historyRow(s, at(2025, 3, 14, 12, 0))).toEqual({
      when: "Today 10:00",
      started: "Mar 14, 2025 10:00",
      workspace: "code/arbor",
      prompt: "Refactor the parser and add tests",
      agents: "3 agents",
      status: "max_turns",
      statusText: "turn limit reached",
      tokens: "12k tok",
      cost: "$0.04",
      source: null,
      client: null,
    });
    expect(historyRow({ ...s, client: "Zed" }, 0).client).toBe("via Zed");
    const one = historyRow({ ...s, agent_count: 1, first_prompt: " ", usage: { ...s.usage, usage: { ...s.usage.usage, cost_usd: null } } }, 0);
    expect(one).toMatchObject({ agents: "1 agent", prompt: "(no prompt yet)", cost: null });
  });

  it("tells an imported session (read-only, badged) from Arbor's own, a store without sources included", () => {
    const base = { source: undefined } as Pick<SessionSummary, "source">;
    expect(sessionSource(base)).toBe("arbor");
    expect(isImported(base)).toBe(false);
    expect(sourceBadge({ source: "arbor" })).toBeNull();
    expect(isImported({ source: "claude_code" })).toBe(true);
    expect(sourceBadge({ source: "claude_code" })).toBe("Claude Code");
    // Every source Rust has reads as words.
    for (const src of SESSION_SOURCES) expect(sourceLabel(src)).not.toBe("");
  });
});

describe("hitRow and exportFileName", () => {
  it("labels a hit with its session, path, type and time", () => {
    const hit: SearchHit = {
      session_id: "s",
      session_prompt: "Survey\nthe pond",
      agent_id: "agent-1",
      agent_path: ["main", "Find the fish"],
      seq: 7,
      ts: at(2025, 3, 14, 9, 0),
      event_type: "tool_output",
      snippet: [
        { text: "a ", hit: false },
        { text: "fish", hit: true },
      ],
    };
    expect(hitRow(hit, at(2025, 3, 14, 10, 0))).toEqual({
      prompt: "Survey the pond",
      path: "main › Find the fish",
      type: "tool output",
      when: "Today 09:00",
      parts: [
        { text: "a ", hit: false },
        { text: "fish", hit: true },
      ],
      source: null,
    });
    // The window knows the hit's session was imported: it is badged.
    expect(hitRow({ ...hit, source: "claude_code" }, 0).source).toBe("Claude Code");
    expect(hitRow({ ...hit, source: "arbor" }, 0).source).toBeNull();
    expect(hitRow({ ...hit, event_type: "imported_entry" }, 0).type).toBe("imported entry");
  });
  it("labels an MCP status hit", () => {
    const hit: SearchHit = {
      session_id: "s",
      session_prompt: "p",
      agent_id: "agent-1",
      agent_path: ["main"],
      seq: 3,
      ts: at(2025, 3, 14, 9, 0),
      event_type: "mcp_status",
      snippet: [{ text: "everything", hit: true }],
    };
    expect(hitRow(hit, at(2025, 3, 14, 10, 0)).type).toBe("MCP server");
  });
  it("names export files after the session and agent", () => {
    expect(exportFileName("sess-1", null, "markdown")).toBe("arbor-sess-1.md");
    expect(exportFileName("sess-1", "agent-ab12", "json")).toBe("arbor-sess-1-agent-ab12.json");
  });
});

describe("groupHits", () => {
  const hit = (seq: number, agent: string, text: string, session = "s"): SearchHit => ({
    session_id: session,
    session_prompt: "p",
    agent_id: agent,
    agent_path: ["main"],
    seq,
    ts: seq,
    event_type: "tool_output",
    snippet: [
      { text: `${text} `, hit: false },
      { text: "ready", hit: true },
    ],
  });

  it("folds one agent's run of hits that read alike (numbers aside) into its first, keeping the order", () => {
    const hits = [
      ...Array.from({ length: 60 }, (_, i) => hit(200 - i, "agent-poll", `attempt ${60 - i} of 60: not`)),
      hit(100, "agent-other", "attempt 1 of 60: not"),
      hit(99, "agent-poll", "finally"),
      hit(98, "agent-poll", "attempt 1 of 60: not", "s-2"),
    ];
    const groups = groupHits(hits);
    expect(groups.map((g) => [g.hit.seq, g.alike.length])).toEqual([
      [200, 59],
      [100, 0],
      [99, 0],
      [98, 0],
    ]);
    expect(groups[0]?.alike.at(-1)?.seq).toBe(141);
    expect(groupHits([])).toEqual([]);
  });
});
