/**
 * The selected agent's live output: its task, streamed responses (Markdown),
 * thinking, tool calls with arguments, output and approval state, and its
 * result. A virtualised list with measured rows, stuck to the bottom while new
 * output arrives unless the person scrolled up. For a stored session: "Load
 * earlier" above the oldest loaded page, and a search hit scrolled into view.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { AgentId } from "../bindings";
import { formatCost, formatDuration, formatTokens, statusLabel, clipOutput } from "../lib/format";
import { firstStringArg, isMcpTool, mcpStatusText } from "../lib/mcp";
import { loadEarlier } from "../ipc/history";
import { bookStore, displayedBook, pagesOf } from "../store/review";
import { agentPrompt, childrenByCall, effectiveSelection, rowForSeq, treePath, visibleItems } from "../store/selectors";
import { isTerminal, totalTokens, type FinishedItem, type McpItem, type OutputItem, type ToolItem } from "../store/session";
import { sessionStore } from "../store/sessionStore";
import { useStore } from "../store/store";
import { patchUi, select, uiStore } from "../store/ui";
import { ExportMenu } from "./ExportMenu";
import { IconAlert, IconArrowDown, IconChevron, IconMessage, IconPlay, IconPlug, IconTool } from "./icons";
import { Markdown } from "./Markdown";
import { StatusIcon } from "./StatusIcon";
import { ToolArgs } from "./ToolArgs";
import { ToolName } from "./ToolName";
import { startDemo } from "../ipc/actions";

export function OutputView() {
  const uiSelected = useStore(uiStore, (s) => s.selected);
  const id = useStore(sessionStore, (s) => effectiveSelection(s, uiSelected));
  const hasSession = useStore(uiStore, (s) => s.session !== null || s.starting);
  const starting = useStore(uiStore, (s) => s.starting);
  return (
    <div className="output-wrap" data-testid="output">
      {id ? <AgentOutput key={id} id={id} /> : <NoAgent hasSession={hasSession} starting={starting} />}
    </div>
  );
}

function NoAgent({ hasSession, starting }: { hasSession: boolean; starting: boolean }) {
  if (starting) {
    return (
      <div className="empty">
        <span className="status-icon running">
          <span className="spinner" />
        </span>
        <div className="title">Starting the session…</div>
      </div>
    );
  }
  if (hasSession) {
    return (
      <div className="empty">
        <div className="title">No agent selected</div>
        <div>Select an agent in the tree to follow its output.</div>
      </div>
    );
  }
  return (
    <div className="empty">
      <IconMessage size={28} />
      <div className="title">No session yet — write a prompt</div>
      <div>The main agent's answer streams here; choose any agent in the tree to follow it instead.</div>
      <button type="button" className="btn" data-testid="try-demo" onClick={() => void startDemo()}>
        <IconPlay size={12} /> Try the demo
      </button>
    </div>
  );
}

type Row =
  | { kind: "prompt"; key: string; text: string }
  | { kind: "earlier"; key: string; loading: boolean; error: string | null }
  | OutputItem;

function AgentOutput({ id }: { id: AgentId }) {
  const showThoughts = useStore(uiStore, (s) => s.showSubagentThoughts);
  const node = useStore(sessionStore, (s) => s.agents[id]);
  const items = useStore(sessionStore, (s) => visibleItems(s, id, showThoughts));
  const prompt = useStore(sessionStore, (s) => (s.agents[id]?.depth ? agentPrompt(s, id) : null));
  const path = useStore(sessionStore, (s) => treePath(s, id).join(" › "));
  const pages = useStore(bookStore, (b) => {
    const book = displayedBook(b);
    return book ? pagesOf(book, id) : null;
  });
  const focus = useStore(uiStore, (s) => (s.focus?.agentId === id ? s.focus : null));
  const hasSession = useStore(sessionStore, (s) => s.sessionId !== null);

  const loadingFirst = pages !== null && pages.status === "loading" && pages.oldest === null;
  const earlierState: "none" | "loading" | "more" | "error" =
    pages === null || loadingFirst
      ? "none"
      : pages.status === "loading"
        ? "loading"
        : pages.error !== null || pages.status === "error"
          ? "error"
          : pages.moreBefore
            ? "more"
            : "none";
  const earlierError = pages?.error ?? null;
  const rows: Row[] = useMemo(() => {
    const lead: Row[] = [];
    if (earlierState !== "none") {
      lead.push({
        kind: "earlier",
        key: "earlier",
        loading: earlierState === "loading",
        error: earlierState === "error" ? (earlierError ?? "unknown error") : null,
      });
    }
    if (prompt !== null) lead.push({ kind: "prompt", key: "task", text: prompt });
    return lead.length > 0 ? [...lead, ...items] : items;
  }, [earlierState, earlierError, prompt, items]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const stick = useRef(focus === null);
  /** Distance from the bottom to keep while earlier rows are added above. */
  const anchor = useRef<number | null>(null);
  const [flash, setFlash] = useState<string | null>(null);
  const [away, setAway] = useState(false);
  // No React Compiler in this build; the virtualizer re-renders this component itself.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 80,
    overscan: 6,
    getItemKey: (i) => rows[i]?.key ?? i,
  });
  const total = virtualizer.getTotalSize();

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    stick.current = atBottom;
    setAway(!atBottom);
  }, []);

  const toBottom = useCallback(() => {
    const el = scrollRef.current;
    if (el) el.scrollTop = el.scrollHeight;
    stick.current = true;
    setAway(false);
  }, []);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (anchor.current !== null) {
      el.scrollTop = el.scrollHeight - anchor.current;
      if (!pages || pages.status !== "loading") anchor.current = null;
    } else if (stick.current) el.scrollTop = el.scrollHeight;
  }, [total, rows.length, pages]);

  useEffect(() => {
    if (stick.current && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: "end" });
  }, [rows.length, virtualizer]);

  // A search hit: once its page is in, bring its row into view and flash it.
  useEffect(() => {
    if (!focus || (pages !== null && pages.status === "loading")) return;
    const keys = rows.map((r) => r.key);
    let index = rowForSeq(keys, focus.seq);
    if (index < 0) index = keys.indexOf("task");
    // A hit in a result that repeats the last response: that response shows the text.
    const target = rows[index];
    if (target?.kind === "finished" && target.resultShown) {
      const response = rows.slice(0, index).findLastIndex((r) => r.kind === "response");
      if (response >= 0) index = response;
    }
    patchUi({ focus: null });
    if (index < 0) return;
    stick.current = false;
    virtualizer.scrollToIndex(index, { align: "center" });
    const key = keys[index] ?? null;
    setFlash(key);
    const t = setTimeout(() => setFlash(null), 2500);
    return () => clearTimeout(t);
  }, [focus, pages, rows, virtualizer]);

  const earlierClick = () => {
    const el = scrollRef.current;
    if (el) anchor.current = el.scrollHeight - el.scrollTop;
    stick.current = false;
    void loadEarlier(id);
  };

  if (!node) return null;
  const tokens = totalTokens(node.usage);
  const cost = formatCost(node.usage.cost_usd);

  return (
    <>
      <div className="output-header">
        <StatusIcon status={node.status} />
        <div style={{ minWidth: 0, flex: 1 }}>
          <div className="title">{node.depth === 0 ? "Main agent" : node.description}</div>
          <div className="sub">
            <span className="mono">{node.id}</span>
            {node.model ? ` · ${node.model}` : ""}
            {node.subagentType ? ` · ${node.subagentType}` : ""}
            {` · ${statusLabel(node.status)}`}
            {tokens > 0 ? ` · ${formatTokens(tokens)} tokens` : ""}
            {cost ? ` · ${cost}` : ""}
            {node.depth > 0 ? ` · ${path}` : ""}
          </div>
        </div>
        {hasSession ? <ExportMenu agentId={id} /> : null}
        {node.depth > 0 ? (
          <label className="toggle" title="Subagents' thinking is hidden by default">
            <input
              type="checkbox"
              checked={showThoughts}
              onChange={(e) => patchUi({ showSubagentThoughts: e.target.checked })}
            />
            Show thinking
          </label>
        ) : null}
      </div>
      <div className="output-scroll" ref={scrollRef} onScroll={onScroll}>
        {loadingFirst && items.length === 0 ? (
          <div className="empty" data-testid="transcript-loading">
            <span className="status-icon running">
              <span className="spinner" />
            </span>
            <div className="title">Loading the transcript…</div>
          </div>
        ) : rows.length === 0 ? (
          <div className="empty">
            <div className="title">{isTerminal(node.status) ? "No output" : "Waiting for output…"}</div>
            <div>{node.status === "queued" ? "This agent is queued until a slot frees up." : ""}</div>
          </div>
        ) : (
          <div className="output-inner" style={{ height: total }}>
            {virtualizer.getVirtualItems().map((v) => {
              const row = rows[v.index];
              if (!row) return null;
              return (
                <div
                  key={v.key}
                  className={`output-row${flash === row.key ? " flash" : ""}`}
                  data-index={v.index}
                  data-key={row.key}
                  ref={virtualizer.measureElement}
                  style={{ transform: `translateY(${v.start}px)` }}
                >
                  {row.kind === "earlier" ? (
                    <EarlierRow loading={row.loading} error={row.error} onLoad={earlierClick} />
                  ) : (
                    <RowView row={row} agentId={id} />
                  )}
                </div>
              );
            })}
          </div>
        )}
      </div>
      {away ? (
        <button type="button" className="btn small jump" onClick={toBottom}>
          <IconArrowDown size={12} /> Latest
        </button>
      ) : null}
    </>
  );
}

function EarlierRow({ loading, error, onLoad }: { loading: boolean; error: string | null; onLoad: () => void }) {
  if (loading) {
    return (
      <div className="earlier faint" data-testid="loading-earlier">
        <span className="status-icon running">
          <span className="spinner" />
        </span>
        Loading earlier output…
      </div>
    );
  }
  return (
    <div className="earlier">
      {error !== null ? (
        <span className="error-text">
          <IconAlert size={12} /> Could not load the transcript: {error}
        </span>
      ) : null}
      <button type="button" className="btn small" data-testid="load-earlier" onClick={onLoad}>
        {error !== null ? "Retry" : "Load earlier"}
      </button>
    </div>
  );
}

const RowView = memo(function RowView({ row, agentId }: { row: Exclude<Row, { kind: "earlier" }>; agentId: AgentId }) {
  switch (row.kind) {
    case "prompt":
      return (
        <div className="task-prompt">
          <div className="who">Task</div>
          {row.text}
        </div>
      );
    case "user":
      return (
        <div className="item-user">
          <div className="who">You</div>
          {row.text}
        </div>
      );
    case "thoughts":
      return (
        <details className="thoughts">
          <summary>
            <IconChevron size={11} /> {row.streaming ? "Thinking…" : "Thought"}
            <span className="faint">({row.text.length.toLocaleString()} chars)</span>
          </summary>
          <div className="body">{row.text}</div>
        </details>
      );
    case "response":
      return <Markdown text={row.text} streaming={row.streaming} />;
    case "tool":
      return <ToolCallView item={row} agentId={agentId} />;
    case "notification":
      return (
        <div className="notice">
          <StatusIcon status={row.status} />
          <div>
            <button type="button" className="btn small ghost mono" onClick={() => select(row.taskId)}>
              {row.taskId}
            </button>{" "}
            <span className="muted">finished ({statusLabel(row.status)})</span>
            {row.summary ? <div className="muted">{row.summary}</div> : null}
          </div>
        </div>
      );
    case "mcp":
      return <McpStatusRow item={row} />;
    case "finished":
      return <ResultView item={row} />;
  }
});

function McpStatusRow({ item }: { item: McpItem }) {
  const view = mcpStatusText(item.server, item.state, item.pid, item.error);
  return (
    <div
      className={`mcp-status${view.failed ? " failed" : ""}`}
      data-testid="mcp-status"
      data-server={item.server}
      data-state={item.state}
      role={view.failed ? "alert" : undefined}
    >
      {view.failed ? <IconAlert size={12} /> : <IconPlug size={12} />}
      <span>{view.text}</span>
    </div>
  );
}

function defaultOpen(item: ToolItem): boolean {
  return item.isError || item.approval?.state === "pending" || ["Edit", "Write", "Bash", "Task"].includes(item.toolName);
}

const openState = new Map<string, boolean>();

const ToolCallView = memo(function ToolCallView({ item, agentId }: { item: ToolItem; agentId: AgentId }) {
  const stateKey = `${agentId}/${item.callId}`;
  const [open, setOpenState] = useState(() => openState.get(stateKey) ?? defaultOpen(item));
  const setOpen = (v: boolean) => {
    openState.set(stateKey, v);
    setOpenState(v);
  };
  const child = useStore(sessionStore, (s) => (item.toolName === "Task" ? childrenByCall(s.agents)[item.callId] : undefined));
  const approval = item.approval;
  const cls = ["tool", item.isError ? "error" : "", approval?.state === "pending" ? "pending-approval" : ""].join(" ");
  const summary = toolSummaryText(item);
  const [fullOutput, setFullOutput] = useState(false);
  const output = clipOutput(item.output, !item.done, fullOutput);
  return (
    <div className={cls}>
      <button type="button" className="tool-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <IconTool size={12} />
        <ToolName name={item.toolName} className="tool-name" />
        <span className="tool-summary">{summary}</span>
        {approval ? <ApprovalBadge state={approval.state} scope={approval.scope} /> : null}
        {item.done ? (
          item.isError ? (
            <span className="badge failed">error</span>
          ) : (
            <StatusIcon status="completed" />
          )
        ) : approval?.state === "pending" ? null : (
          <StatusIcon status="running" />
        )}
      </button>
      {open ? (
        <div className="tool-body">
          <ToolArgs toolName={item.toolName} args={item.args} />
          {child ? (
            <div>
              <button type="button" className="btn small" onClick={() => select(child)}>
                Open subagent {child} →
              </button>
            </div>
          ) : null}
          {item.output || item.done ? (
            <div>
              <div className="section-label">{item.done ? (item.isError ? "Error" : "Output") : "Output (live)"}</div>
              <pre className={`block mono${item.isError ? " error" : ""}`}>{output.text || "(no output)"}</pre>
              {output.hidden > 0 ? (
                <button type="button" className="btn small ghost" onClick={() => setFullOutput(true)}>
                  Show all {item.output.length.toLocaleString()} characters
                </button>
              ) : null}
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
});

function toolSummaryText(item: ToolItem): string {
  if (isMcpTool(item.toolName)) return firstStringArg(item.args) ?? "";
  const a = item.args;
  if (a && typeof a === "object" && !Array.isArray(a)) {
    for (const k of ["description", "file_path", "command", "pattern", "path", "task_id"]) {
      const v = a[k];
      if (typeof v === "string") return v.split("\n", 1)[0] ?? "";
    }
  }
  return "";
}

function ApprovalBadge({ state, scope }: { state: string; scope: string | null }) {
  const scopeText = scope && scope !== "once" ? ` · ${scope}` : "";
  switch (state) {
    case "pending":
      return <span className="badge waiting">awaiting approval</span>;
    case "approved":
      return <span className="badge">approved{scopeText}</span>;
    case "denied":
      return <span className="badge failed">denied{scopeText}</span>;
    default:
      return <span className="badge">approval expired</span>;
  }
}

function ResultView({ item }: { item: FinishedItem }) {
  const kind = item.status === "completed" ? "" : item.status === "failed" ? "failed" : "stopped";
  const showText = !item.resultShown && (item.result !== "" || item.error === null);
  const hasBody = item.error !== null || showText || item.filesModified.length > 0;
  return (
    <div className={`result ${kind}`}>
      <div className="result-head">
        <StatusIcon status={item.status} />
        {item.status === "completed" ? "Result" : statusLabel(item.status)}
        <span className="meta">
          {item.turns} turn{item.turns === 1 ? "" : "s"} · {formatDuration(item.durationMs)}
        </span>
      </div>
      {hasBody ? (
        <div className="result-body">
          {item.error ? <div className="error-text">{item.error}</div> : null}
          {showText ? item.result ? <Markdown text={item.result} /> : <div className="faint">(no result text)</div> : null}
          {item.filesModified.length > 0 ? (
            <div>
              <div className="section-label">Files modified</div>
              <div className="files">
                {item.filesModified.map((f) => (
                  <span key={f} className="badge mono">
                    {f}
                  </span>
                ))}
              </div>
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
