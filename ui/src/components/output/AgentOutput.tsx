/**
 * One agent's output: its header and the filter by kind (FilterBar), then its
 * task, streamed responses, thinking, tool calls and result (those the filter
 * shows) as a virtualised list with measured rows (a long response is
 * several rows: lib/responseParts.ts), stuck to the bottom while
 * new output arrives unless the person scrolled up. For a stored session:
 * "Load earlier" above the oldest loaded page, and a search hit scrolled into
 * view (the filter gives way when it hides the hit).
 */
import { useVirtualizer, type Range, type Virtualizer, type VirtualItem } from "@tanstack/react-virtual";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { AgentId } from "../../bindings";
import { loadEarlier } from "../../ipc/history";
import { SHOW_ALL, filterItems } from "../../lib/outputFilter";
import { OVERSCAN_ROWS, nearRows } from "../../lib/overscan";
import { ResponseParts, estimateRowSize } from "../../lib/responseParts";
import { placeOf, rememberPlace } from "../../store/places";
import { pagesOf } from "../../store/review";
import { agentPrompt, filterHidesSeq, queuedFor, rowForSeq, visibleItems } from "../../store/selectors";
import { isTerminal } from "../../store/session/status";
import { useSession, useSessionBook } from "../../store/sessionScope";
import { useHeld } from "../../hooks/useHeld";
import { useStore } from "../../store/store";
import { outputFilterOf, patchUi, setOutputFilter, uiStore } from "../../store/ui";
import { IconArrowDown } from "../icons";
import { EarlierRow } from "./EarlierRow";
import { FilterBar } from "./FilterBar";
import { OutputHeader } from "./OutputHeader";
import { RowView, rowClass, type Row } from "./RowView";
import { Spinner } from "../Spinner";

export function AgentOutput({ id }: { id: AgentId }) {
  const showThoughts = useStore(uiStore, (s) => s.showSubagentThoughts);
  const node = useSession((s) => s.agents[id]);
  // Behind a dialog the output waits: the dialog's keys come first (hooks/useHeld.ts).
  const behindDialog = useStore(uiStore, (s) => s.dialog !== null || s.closeQuestion !== null);
  const all = useHeld(
    useSession((s) => visibleItems(s, id, showThoughts)),
    behindDialog,
  );
  const sessionId = useSession((s) => s.sessionId);
  const filter = useStore(uiStore, (s) => outputFilterOf(s, sessionId));
  const items = filterItems(all, filter);
  const prompt = useSession((s) => (s.agents[id]?.depth ? agentPrompt(s, id) : null));
  const pages = useSessionBook((book) => (book ? pagesOf(book, id) : null));
  const focus = useStore(uiStore, (s) => (s.focus?.agentId === id ? s.focus : null));
  const queued = useSession((s) => queuedFor(s, id));

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
  // Each response's blocks and parts, kept while this agent is shown, so a streamed append redoes only its end.
  const [parts] = useState(() => new ResponseParts());
  // Counts the frames a long response is split over (lib/responseParts.ts): each one expands it further.
  const [sliced, setSliced] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- `sliced` is the next frame's slice, read from `parts`
  const parted = useMemo(() => parts.expand(items), [parts, items, sliced]);
  useEffect(() => {
    if (!parts.behind) return;
    const f = requestAnimationFrame(() => setSliced((n) => n + 1));
    return () => cancelAnimationFrame(f);
  }, [parts, parted]);
  const rows: readonly Row[] = useMemo(() => {
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
    const tail: Row[] = queued.map((q) => ({ kind: "queued", key: `queued-${q.id}`, text: q.text }));
    return lead.length > 0 || tail.length > 0 ? [...lead, ...parted, ...tail] : parted;
  }, [earlierState, earlierError, prompt, parted, queued]);

  const scrollRef = useRef<HTMLDivElement>(null);
  // Where the person left this output (another session or agent shown meanwhile), unless a passage is asked for.
  const [left] = useState(() => (focus === null ? placeOf(sessionId, id) : null));
  const stick = useRef(left ? left.following : focus === null);
  /** The scrollTop to come back to, until the rows are tall enough to reach it. */
  const restore = useRef(left && !left.following ? left.top : null);
  /** Distance from the bottom to keep while earlier rows are added above. */
  const anchor = useRef<number | null>(null);
  const [flash, setFlash] = useState<string | null>(null);
  const [away, setAway] = useState(false);
  // Mounted following its end, or where it was left: its first render lays out those rows,
  // not its first ones only to scroll away from them (a session switch mounts it whole).
  // At the heights measured when it was last shown, so the first layout is the settled one.
  const [measured] = useState(() => left?.measured ?? []);
  const [initialOffset] = useState(() => {
    if (restore.current !== null) return restore.current;
    if (!stick.current) return 0;
    const sizes = new Map(measured.map((m) => [m.key, m.size]));
    return rows.reduce((sum, r) => sum + (sizes.get(r.key) ?? estimateRowSize(r)), 0);
  });
  // The virtualizer's own positions, for its range extractor (which it calls, and which it is made with).
  const virtualizerRef = useRef<Virtualizer<HTMLDivElement, Element> | null>(null);
  // No React Compiler in this build; the virtualizer re-renders this component itself.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    initialOffset,
    initialMeasurementsCache: measured as VirtualItem[],
    getScrollElement: () => scrollRef.current,
    estimateSize: (i) => estimateRowSize(rows[i]),
    // Rows of any height: a few past the view, only those near it (lib/overscan.ts).
    overscan: OVERSCAN_ROWS,
    rangeExtractor: useCallback((range: Range) => nearRows(range, virtualizerRef.current?.measurementsCache ?? []), []),
    getItemKey: (i) => rows[i]?.key ?? i,
  });
  virtualizerRef.current = virtualizer;
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

  // Leaving (another agent or session shown): where it was is remembered.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    return () => {
      if (el) rememberPlace(sessionId, id, { top: el.scrollTop, following: stick.current, measured: virtualizer.takeSnapshot() });
    };
  }, [sessionId, id, virtualizer]);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    if (restore.current !== null) {
      el.scrollTop = restore.current;
      if (Math.abs(el.scrollTop - restore.current) < 2) restore.current = null;
      return;
    }
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
    // Hidden by the filter: everything shows again, and this runs again with the row there.
    if (filterHidesSeq(all, filter, focus.seq)) {
      setOutputFilter(sessionId, SHOW_ALL);
      return;
    }
    const keys = rows.map((r) => r.key);
    let index = rowForSeq(keys, focus.seq);
    if (index < 0) index = keys.indexOf("task");
    // A hit in a result that repeats the last response: that response shows the text.
    const target = rows[index];
    if (target?.kind === "finished" && target.resultShown) {
      const response = rows.slice(0, index).findLastIndex((r) => r.kind === "response" && r.first);
      if (response >= 0) index = response;
    }
    patchUi({ focus: null });
    if (index < 0) return;
    stick.current = false;
    const hit = rows[index];
    // A long response (several parts) from its start; anything else in the middle.
    virtualizer.scrollToIndex(index, { align: hit?.kind === "response" && !hit.last ? "start" : "center" });
    // A response flashes whole: all its parts.
    const key = hit?.kind === "response" ? hit.itemKey : (keys[index] ?? null);
    setFlash(key);
    const t = setTimeout(() => setFlash(null), 2500);
    return () => clearTimeout(t);
  }, [focus, pages, rows, virtualizer, all, filter, sessionId]);

  const earlierClick = () => {
    const el = scrollRef.current;
    if (el) anchor.current = el.scrollHeight - el.scrollTop;
    stick.current = false;
    void loadEarlier(id);
  };

  if (!node) return null;

  return (
    <>
      <OutputHeader id={id} node={node} showThoughts={showThoughts} />
      <FilterBar sessionId={sessionId} items={all} filter={filter} shown={items.length} />
      <div className="output-scroll" ref={scrollRef} onScroll={onScroll}>
        {loadingFirst && all.length === 0 ? (
          <div className="empty" data-testid="transcript-loading">
            <span className="status-icon running">
              <Spinner />
            </span>
            <div className="title">Loading the transcript…</div>
          </div>
        ) : rows.length === 0 && all.length > 0 ? (
          <div className="empty" data-testid="filter-empty">
            <div className="title">Nothing of the kinds shown</div>
            <button type="button" className="btn small" onClick={() => setOutputFilter(sessionId, SHOW_ALL)}>
              Show all
            </button>
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
                  className={`output-row${rowClass(row)}${flash === (row.kind === "response" ? row.itemKey : row.key) ? " flash" : ""}`}
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
