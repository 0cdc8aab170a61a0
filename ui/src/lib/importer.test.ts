import { describe, expect, it } from "vitest";
import type { ImportReport, ImportedSession } from "../bindings";
import {
  formatBytes,
  importFigures,
  importSummary,
  importedSessionMeta,
  outcomeCounts,
  outcomeLabel,
  problemLine,
  skippedLine,
} from "./importer";

const session = (id: string, outcome: ImportedSession["outcome"], events = 0, subagents = 0): ImportedSession => ({
  session_id: id,
  first_prompt: `Prompt ${id}`,
  outcome,
  subagents,
  events,
});

const report = (sessions: ImportedSession[], extra: Partial<ImportReport> = {}): ImportReport => ({
  dir: "/home/me/.claude/projects",
  sessions,
  problems: [],
  skipped: {},
  bytes: 2_200_000,
  elapsed_ms: 340,
  ...extra,
});

describe("an import's report in words", () => {
  it("counts the sessions by outcome; added and unchanged always, updated and failed when any", () => {
    const first = report([session("a", "added", 120, 2), session("b", "added", 30), session("c", "failed")]);
    expect(outcomeCounts(first.sessions)).toEqual({ added: 2, updated: 0, unchanged: 0, failed: 1 });
    expect(importSummary(first)).toBe("2 added, 0 unchanged, 1 failed");
    // The same folder again: nothing new.
    expect(importSummary(report([session("a", "unchanged"), session("b", "unchanged")]))).toBe("0 added, 2 unchanged");
    expect(importSummary(report([session("a", "updated", 5), session("b", "unchanged")]))).toBe("0 added, 1 updated, 1 unchanged");
    expect(importSummary(report([]))).toBe("0 added, 0 unchanged");
  });

  it("says what was stored and read", () => {
    expect(importFigures(report([session("a", "added", 1200, 2), session("b", "added", 34, 1)]))).toBe(
      "1,234 events stored · 3 subagents · 2.1 MB read in 340 ms",
    );
    expect(importFigures(report([session("a", "unchanged")], { bytes: 900, elapsed_ms: 2500 }))).toBe(
      "0 events stored · 900 B read in 2.5 s",
    );
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(50 * 1024 * 1024)).toBe("50 MB");
  });

  it("writes a problem as file:line: message, without a line for the whole file", () => {
    expect(problemLine({ file: "-home-me-pond/abc.jsonl", line: 12, message: "not JSON: expected value" })).toBe(
      "-home-me-pond/abc.jsonl:12: not JSON: expected value",
    );
    expect(problemLine({ file: "-home-me-pond/def.jsonl", line: null, message: "could not be stored" })).toBe(
      "-home-me-pond/def.jsonl: could not be stored",
    );
  });

  it("puts the rows not kept on one line, most first; none: no line", () => {
    expect(skippedLine({ summary: 3, "queue-operation": 12, "file-history-snapshot": 3, empty: 0 })).toBe(
      "12 queue-operation, 3 file-history-snapshot, 3 summary",
    );
    expect(skippedLine({})).toBeNull();
  });

  it("describes a session of the report", () => {
    expect(importedSessionMeta(session("a", "added", 40, 2))).toBe("+2 subagents · 40 events");
    expect(importedSessionMeta(session("a", "unchanged", 0, 1))).toBe("+1 subagent");
    expect(importedSessionMeta(session("a", "failed"))).toBe("");
    expect(outcomeLabel("failed")).toBe("not stored");
  });
});
