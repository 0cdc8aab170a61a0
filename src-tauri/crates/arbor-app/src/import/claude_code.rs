//! Claude Code's transcript files as Arbor events: one session file
//! (`<project>/<session>.jsonl`) and its subagents' (`<session>/subagents/
//! agent-<id>.jsonl` beside `agent-<id>.meta.json`) become one session's
//! ordered, gap-free events, a tree of agents linked by the `Agent`/`Task`
//! tool_use ids. What Arbor has no event for is kept as `imported_entry`; the
//! request bookkeeping Claude Code writes beside the conversation is counted,
//! not kept. A line that is not JSON is reported with its file and line and
//! skipped. Pure: the caller reads the files (format notes: tests/fixtures/claude-code/README.md).

use arbor_protocol::{
    AgentEvent, AgentFinished, AgentId, AgentStarted, AgentStatus, EventKind, ImportedEntry, MessageFrom, SessionId,
    StatusChanged, Text, ToolCall, ToolOutput, Usage, UserMessage,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Rows Claude Code writes about its API requests, queue and costs, beside the conversation
/// (which they repeat): counted, not kept.
const BOOKKEEPING: [&str; 8] = [
    "api-request",
    "api-request-shape",
    "api-request-blob",
    "queue-operation",
    "tools-used",
    "last-prompt",
    "atis-latch",
    "cost-state",
];

/// Attachments that copy what is elsewhere (the system prompt and tool list), counted, not kept.
const COPIES: [&str; 1] = ["prompt_snapshot"];

/// How much of a row an `imported_entry` keeps.
const ENTRY_CAP: usize = 16 * 1024;

/// One file's lines, as read.
pub struct File {
    /// Shown in problems: the path as the person gave it.
    pub name: String,
    pub text: String,
}

/// A subagent's files.
pub struct SubagentFiles {
    /// From the file name `agent-<id>.jsonl`.
    pub id: String,
    pub rows: File,
    /// `agent-<id>.meta.json`, when there is one.
    pub meta: Option<File>,
}

/// A line that could not be read.
#[derive(Debug, Clone, PartialEq, serde::Serialize, specta::Type)]
pub struct ImportProblem {
    pub file: String,
    /// 1-based; None for a problem with the whole file.
    pub line: Option<u32>,
    pub message: String,
}

/// One session converted.
pub struct Converted {
    pub id: SessionId,
    pub workspace: String,
    pub first_prompt: String,
    pub model: String,
    pub started_at: i64,
    pub events: Vec<AgentEvent>,
    pub problems: Vec<ImportProblem>,
    /// Rows counted but not kept, by kind.
    pub skipped: BTreeMap<String, u32>,
}

/// One agent's events before they are merged and numbered: (ts, kind), in file order.
struct Lane {
    id: AgentId,
    events: Vec<(i64, EventKind)>,
}

/// A response rebuilt from its rows (one per content block, sharing `message.id`).
struct Response {
    id: String,
    model: String,
    usage: Usage,
    stop_reason: Option<String>,
    ts: i64,
}

/// What a file's conversation rows gave.
struct Read {
    lane: Lane,
    cwd: Option<String>,
    first_prompt: Option<String>,
    model: Option<String>,
    /// Each response's usage event (its index in the lane) with the response, for pricing.
    responses: Vec<(usize, Response)>,
    /// The stop reason of the last response, if nothing but bookkeeping followed it.
    last_stop: Option<String>,
    /// Claude Code's meta says the agent never finished.
    unfinished: bool,
}

/// A file's JSON rows with their line numbers.
type Rows = Vec<(u32, Value)>;

/// Converts a session's files. `session_uuid` is the session file's stem.
pub fn convert(session_uuid: &str, main: &File, subagents: &[SubagentFiles]) -> Converted {
    let mut problems = Vec::new();
    let mut skipped = BTreeMap::new();
    let id = SessionId(format!("cc-{session_uuid}"));
    let main_id = agent_id(session_uuid, &[]);
    let main_rows = rows(main, &mut problems);
    let main_read = read_rows(main_id.clone(), &main_rows, &mut skipped);
    let mut used = vec![main_id.clone()];
    let mut lanes = Vec::new();
    // (lane, model, usage) of every response, for the session's cost shares.
    let mut responses: Vec<(String, Usage)> =
        main_read.responses.iter().map(|(_, r)| (r.model.clone(), r.usage.clone())).collect();
    let model = main_read.model.clone().unwrap_or_default();
    let cost_state = main_rows.iter().rev().find(|(_, r)| kind(r) == "cost-state").map(|(_, r)| (*r).clone());
    let main_started = main_read.lane.events.first().map_or(0, |e| e.0);
    let first_prompt = main_read.first_prompt.clone().unwrap_or_default();
    let workspace = main_read.cwd.clone().unwrap_or_default();
    // The subagents' own rows first: a subagent may start subagents of its own.
    let mut subs: Vec<(Read, Value, &SubagentFiles, Rows)> = Vec::new();
    for sub in subagents {
        let sub_id = agent_id(&sub.id, &used);
        used.push(sub_id.clone());
        let meta: Value = match &sub.meta {
            Some(f) => serde_json::from_str(&f.text).unwrap_or_else(|e| {
                problems.push(ImportProblem { file: f.name.clone(), line: None, message: format!("not JSON: {e}") });
                Value::Null
            }),
            None => Value::Null,
        };
        let sub_rows = rows(&sub.rows, &mut problems);
        let read = read_rows(sub_id, &sub_rows, &mut skipped);
        subs.push((read, meta, sub, sub_rows));
    }
    // Every call of every agent, and every hand-back naming the agent a call started: how a
    // subagent finds its parent (meta.json's `toolUseId`; without one, the result that names it).
    let mut calls: HashMap<String, (AgentId, i64)> = HashMap::new();
    let mut handed_back: HashMap<String, String> = HashMap::new();
    let every = std::iter::once((&main_read, &main_rows)).chain(subs.iter().map(|(r, _, _, rows)| (r, rows)));
    for (read, file_rows) in every {
        for (ts, k) in &read.lane.events {
            if let EventKind::ToolCall(c) = k {
                calls.entry(c.call_id.clone()).or_insert((read.lane.id.clone(), *ts));
            }
        }
        for (_, r) in file_rows {
            let Some(agent) = r["toolUseResult"]["agentId"].as_str() else { continue };
            let call =
                r["message"]["content"].as_array().and_then(|c| c.iter().find_map(|b| b["tool_use_id"].as_str()));
            if let Some(call) = call {
                handed_back.insert(agent.to_string(), call.to_string());
            }
        }
    }
    lanes.push((main_read, None::<AgentStarted>));
    for (mut read, meta, sub, _) in subs {
        let call = meta["toolUseId"].as_str().map(str::to_string).or_else(|| handed_back.get(sub.id.as_str()).cloned());
        let (parent, floor) = match call.as_deref().and_then(|c| calls.get(c)) {
            Some((parent, ts)) if *parent != read.lane.id => (parent.clone(), *ts),
            _ => (main_id.clone(), i64::MIN),
        };
        let model = meta["model"].as_str().map(str::to_string).or_else(|| read.model.clone()).unwrap_or_default();
        let started = AgentStarted {
            depth: meta["spawnDepth"].as_u64().and_then(|d| u32::try_from(d).ok()).unwrap_or(1).max(1),
            parent_id: Some(parent),
            parent_call_id: call,
            description: meta["description"].as_str().map_or_else(|| format!("agent {}", sub.id), str::to_string),
            subagent_type: Some(meta["agentType"].as_str().unwrap_or("general-purpose").to_string()),
            model,
            provider: "anthropic".to_string(),
            background: meta["requestShape"].as_str() == Some("background"),
            call_seq: None,
            fork: None,
            external: None,
        };
        // A child never starts before the call that started it.
        for e in &mut read.lane.events {
            e.0 = e.0.max(floor);
        }
        responses.extend(read.responses.iter().map(|(_, r)| (r.model.clone(), r.usage.clone())));
        read.unfinished = meta["finished"] == Value::Bool(false);
        lanes.push((read, Some(started)));
    }
    price(&mut lanes, &responses, cost_state.as_ref());
    let all: Vec<Lane> = lanes.into_iter().map(|(read, started)| finish_lane(read, started)).collect();
    let events = merge(&id, all);
    Converted { id, workspace, first_prompt, model, started_at: main_started, events, problems, skipped }
}

/// An Arbor agent id from Claude Code's (`a` + 16 hex) or a session uuid: `agent-` and 8 hex digits,
/// changed in its last digit until it is unused.
fn agent_id(from: &str, used: &[AgentId]) -> AgentId {
    let digits = match from.strip_prefix('a') {
        Some(rest) if rest.chars().all(|c| c.is_ascii_hexdigit()) => rest,
        _ => from,
    };
    let hex: String = digits.chars().filter(char::is_ascii_hexdigit).take(8).collect();
    let mut n = u32::from_str_radix(&format!("{hex:0<8}"), 16).unwrap_or(0);
    loop {
        let id = AgentId::from_suffix(n);
        if !used.contains(&id) {
            return id;
        }
        n = n.wrapping_add(1);
    }
}

/// The file's JSON rows with their line numbers; a bad line is a problem and is skipped.
fn rows(file: &File, problems: &mut Vec<ImportProblem>) -> Rows {
    let mut out = Vec::new();
    for (i, line) in file.text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        match serde_json::from_str::<Value>(line) {
            Ok(v) if v.is_object() => out.push((n, v)),
            Ok(_) => problems.push(ImportProblem {
                file: file.name.clone(),
                line: Some(n),
                message: "not a JSON object".into(),
            }),
            Err(e) => problems.push(ImportProblem {
                file: file.name.clone(),
                line: Some(n),
                message: format!("not JSON ({e}); skipped, the rest imports"),
            }),
        }
    }
    out
}

fn kind(row: &Value) -> &str {
    row["type"].as_str().unwrap_or("")
}

/// An ISO 8601 timestamp as milliseconds since the epoch.
fn millis(row: &Value) -> Option<i64> {
    let s = row["timestamp"].as_str()?;
    arbor_protocol::time::parse_rfc3339(s)
}

/// A tool_result's content: a string, or text blocks joined.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b["type"].as_str() {
                Some("text") => b["text"].as_str().unwrap_or("").to_string(),
                Some(other) => format!("[{other}]"),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn cap(text: String) -> String {
    if text.len() <= ENTRY_CAP {
        return text;
    }
    let mut end = ENTRY_CAP;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[… {} more bytes not kept]", &text[..end], text.len() - end)
}

/// Reads one file's rows into an agent's events, in file order (times never go back).
fn read_rows(id: AgentId, rows: &[(u32, Value)], skipped: &mut BTreeMap<String, u32>) -> Read {
    let mut read = Read {
        lane: Lane { id, events: Vec::new() },
        cwd: None,
        first_prompt: None,
        model: None,
        responses: Vec::new(),
        last_stop: None,
        unfinished: false,
    };
    // Rows without a time (summaries, snapshots) take the time of the row before them, or
    // the file's first time: never 1970.
    let mut ts = rows.iter().find_map(|(_, r)| millis(r)).unwrap_or(0);
    let mut open: Option<Response> = None;
    // Each response's usage is on every row of it: counted once per message id.
    let mut counted: HashSet<String> = HashSet::new();
    for (_, row) in rows {
        let k = kind(row);
        if let Some(t) = millis(row) {
            ts = ts.max(t);
        }
        let at = ts;
        if read.cwd.is_none() {
            read.cwd = row["cwd"].as_str().map(str::to_string);
        }
        // A response ends at the next prompt or tool result, or at another response's row;
        // attachments and bookkeeping written between its rows do not end it.
        let other = match k {
            "user" => true,
            "assistant" => open.as_ref().is_some_and(|r| row["message"]["id"].as_str() != Some(&r.id)),
            _ => false,
        };
        if other && let Some(r) = open.take() {
            end_response(&mut read, r, &mut counted);
        }
        match k {
            "user" => {
                read.last_stop = None;
                user_row(&mut read, row, at);
            }
            "assistant" => {
                let m = &row["message"];
                let r = open.get_or_insert_with(|| new_response(m, at));
                r.stop_reason = m["stop_reason"].as_str().map(str::to_string);
                r.ts = at;
                if read.model.is_none() && !r.model.is_empty() {
                    read.model = Some(r.model.clone());
                }
                for b in m["content"].as_array().into_iter().flatten() {
                    if let Some(event) = block(b) {
                        read.lane.events.push((at, event));
                    }
                }
            }
            "attachment" => {
                let a = &row["attachment"];
                let sub = a["type"].as_str().unwrap_or("?");
                if COPIES.contains(&sub) {
                    *skipped.entry(format!("attachment: {sub}")).or_default() += 1;
                    continue;
                }
                let rendered: Vec<&str> =
                    row["rendered"].as_array().into_iter().flatten().filter_map(|r| r["content"].as_str()).collect();
                let text = if rendered.is_empty() { a.to_string() } else { rendered.join("\n") };
                read.lane.events.push((at, entry(format!("attachment: {sub}"), text)));
            }
            k if BOOKKEEPING.contains(&k) => *skipped.entry(k.to_string()).or_default() += 1,
            other => {
                let what = if other.is_empty() { "row without a type".to_string() } else { other.to_string() };
                read.lane.events.push((at, entry(what, row.to_string())));
            }
        }
    }
    if let Some(r) = open.take() {
        end_response(&mut read, r, &mut counted);
    }
    read
}

/// A `user` row: a prompt (text), or tool results (one row per result).
fn user_row(read: &mut Read, row: &Value, at: i64) {
    let content = &row["message"]["content"];
    let results: Vec<&Value> =
        content.as_array().map(|a| a.iter().filter(|b| b["type"] == "tool_result").collect()).unwrap_or_default();
    if results.is_empty() {
        let text = result_text(content);
        // Claude Code's rows say nothing of who wrote a prompt: a subagent's first is its
        // parent's task, the rest (and the main session's) a person's.
        let from = if read.first_prompt.is_none() && row["isSidechain"] == true {
            MessageFrom::Parent
        } else {
            MessageFrom::Person
        };
        read.first_prompt.get_or_insert_with(|| text.clone());
        read.lane.events.push((at, EventKind::UserMessage(UserMessage::new(text, from))));
        return;
    }
    for b in results {
        let call_id = b["tool_use_id"].as_str().unwrap_or("").to_string();
        let mut text = result_text(&b["content"]);
        // A subagent's report as it wrote it, without Claude Code's hand-back frame around it.
        let handed_back = &row["toolUseResult"];
        if handed_back["agentId"].is_string()
            && let Some(report) =
                handed_back["content"].as_array().and_then(|c| c.last()).and_then(|r| r["text"].as_str())
        {
            text = report.to_string();
        }
        let is_error = b["is_error"].as_bool().unwrap_or(false);
        read.lane
            .events
            .push((at, EventKind::ToolOutput(ToolOutput { call_id, content: text, is_error, decided_by: None })));
    }
}

fn new_response(m: &Value, at: i64) -> Response {
    let usage = &m["usage"];
    let n = |k: &str| usage[k].as_u64().unwrap_or(0);
    Response {
        id: m["id"].as_str().unwrap_or("").to_string(),
        model: m["model"].as_str().unwrap_or("").to_string(),
        usage: Usage {
            input_tokens: n("input_tokens"),
            output_tokens: n("output_tokens"),
            cache_read_tokens: n("cache_read_input_tokens"),
            cache_write_tokens: n("cache_creation_input_tokens"),
            cost_usd: None,
        },
        stop_reason: None,
        ts: at,
    }
}

/// One content block of a response as its event; an empty thinking (display omitted) is none.
fn block(b: &Value) -> Option<EventKind> {
    Some(match b["type"].as_str() {
        Some("thinking") => {
            let t = b["thinking"].as_str().unwrap_or("");
            if t.trim().is_empty() {
                return None;
            }
            EventKind::Thoughts(Text { content: t.to_string() })
        }
        Some("redacted_thinking") => EventKind::Thoughts(Text { content: "[redacted thinking]".into() }),
        Some("text") => {
            let t = b["text"].as_str().unwrap_or("");
            if t.is_empty() {
                return None;
            }
            EventKind::Response(Text { content: t.to_string() })
        }
        Some("tool_use") => EventKind::ToolCall(ToolCall {
            call_id: b["id"].as_str().unwrap_or("").to_string(),
            tool_name: b["name"].as_str().unwrap_or("").to_string(),
            tool_args: b["input"].clone(),
            mcp: None,
        }),
        other => entry(format!("content block: {}", other.unwrap_or("?")), b.to_string()),
    })
}

fn entry(kind: String, content: String) -> EventKind {
    EventKind::ImportedEntry(ImportedEntry { kind, content: cap(content) })
}

/// The response's usage goes after its blocks (once per message id).
fn end_response(read: &mut Read, r: Response, counted: &mut HashSet<String>) {
    read.last_stop = r.stop_reason.clone();
    if !r.id.is_empty() && !counted.insert(r.id.clone()) {
        return;
    }
    let index = read.lane.events.len();
    read.lane.events.push((r.ts, EventKind::Usage(r.usage.clone())));
    read.responses.push((index, r));
}

/// Costs: the list price where Arbor knows the model; otherwise each response's share of
/// what Claude Code's `cost-state` says the model cost, weighted as Anthropic prices tokens
/// (output 5×, cache writes 1.25×, cache reads 0.1× the input price).
fn price(lanes: &mut [(Read, Option<AgentStarted>)], responses: &[(String, Usage)], cost_state: Option<&Value>) {
    let weight = |u: &Usage| {
        u.input_tokens as f64
            + 5.0 * u.output_tokens as f64
            + 1.25 * u.cache_write_tokens as f64
            + 0.1 * u.cache_read_tokens as f64
    };
    let mut weights: HashMap<&str, f64> = HashMap::new();
    for (model, usage) in responses {
        *weights.entry(model.as_str()).or_default() += weight(usage);
    }
    for (read, _) in lanes.iter_mut() {
        for (index, r) in &read.responses {
            let cost = arbor_core::provider::price_usage(&r.model, &r.usage).or_else(|| {
                let total = cost_state?["modelUsage"][r.model.as_str()]["costUSD"].as_f64()?;
                let all = *weights.get(r.model.as_str())?;
                (all > 0.0).then(|| total * weight(&r.usage) / all)
            });
            if let Some((_, EventKind::Usage(u))) = read.lane.events.get_mut(*index) {
                u.cost_usd = cost;
            }
        }
    }
}

/// The agent's events with its lifecycle around them, as Arbor would have emitted it:
/// `agent_started`, `running` when a run begins (its first prompt or response), and at
/// its end a status and `agent_finished`. A prompt after a final answer (no tool calls)
/// ends that run, completed, and begins the next. The last run ends completed on a final
/// answer, truncated at the output limit, else interrupted (the recording stops mid-run).
fn finish_lane(read: Read, started: Option<AgentStarted>) -> Lane {
    let Read { lane, last_stop, unfinished, model, .. } = read;
    let first = lane.events.first().map_or(0, |e| e.0);
    let last = lane.events.last().map_or(first, |e| e.0);
    let started = started.unwrap_or_else(|| AgentStarted {
        parent_id: None,
        parent_call_id: None,
        depth: 0,
        description: "main".to_string(),
        subagent_type: None,
        model: model.unwrap_or_default(),
        provider: "anthropic".to_string(),
        background: false,
        call_seq: None,
        fork: None,
        external: None,
    });
    let mut out = vec![(first, EventKind::AgentStarted(started))];
    let mut run = Run::default();
    for (ts, k) in lane.events {
        if matches!(k, EventKind::UserMessage(_)) && run.open && run.answered {
            run.end(&mut out, ts, AgentStatus::Completed);
        }
        let starts = matches!(
            k,
            EventKind::UserMessage(_)
                | EventKind::Thoughts(_)
                | EventKind::Response(_)
                | EventKind::ToolCall(_)
                | EventKind::ToolOutput(_)
                | EventKind::Usage(_)
        );
        run.see(&k);
        out.push((ts, k));
        if starts && !run.open {
            out.push((ts, EventKind::AgentStatus(StatusChanged { status: AgentStatus::Running })));
            run = Run { open: true, started: ts, ..Run::default() };
        }
    }
    let status = match last_stop.as_deref() {
        _ if unfinished => AgentStatus::Interrupted,
        Some("max_tokens") => AgentStatus::Truncated,
        Some(_) if run.answered => AgentStatus::Completed,
        _ => AgentStatus::Interrupted,
    };
    if !run.open {
        run.started = last;
    }
    run.end(&mut out, last, status);
    Lane { id: lane.id, events: out }
}

/// One run of an agent as its events go by.
#[derive(Default)]
struct Run {
    open: bool,
    started: i64,
    turns: u32,
    /// Its last response called no tools: a final answer.
    answered: bool,
    calls_in_turn: bool,
    last_text: String,
}

impl Run {
    fn see(&mut self, k: &EventKind) {
        match k {
            EventKind::ToolCall(_) => self.calls_in_turn = true,
            EventKind::Response(t) => self.last_text = t.content.clone(),
            EventKind::Usage(_) => {
                self.turns += 1;
                self.answered = !self.calls_in_turn;
                self.calls_in_turn = false;
            }
            EventKind::UserMessage(_) | EventKind::ToolOutput(_) => self.answered = false,
            _ => {}
        }
    }

    fn end(&mut self, out: &mut Vec<(i64, EventKind)>, ts: i64, status: AgentStatus) {
        out.push((ts, EventKind::AgentStatus(StatusChanged { status })));
        out.push((
            ts,
            EventKind::AgentFinished(AgentFinished {
                status,
                result: self.last_text.clone(),
                error: (status == AgentStatus::Interrupted)
                    .then(|| "the transcript ends here: Claude Code stopped before this agent finished".to_string()),
                turns: self.turns,
                duration_ms: u64::try_from(ts - self.started).unwrap_or(0),
                files_modified: Vec::new(),
                stopped_by: None,
            }),
        ));
        *self = Run::default();
    }
}

/// All lanes merged by time (a lane's own order kept; the parent first on a tie) and numbered from 1.
fn merge(session: &SessionId, lanes: Vec<Lane>) -> Vec<AgentEvent> {
    let mut all: Vec<(i64, usize, usize, AgentId, EventKind)> = Vec::new();
    for (li, lane) in lanes.into_iter().enumerate() {
        for (i, (ts, k)) in lane.events.into_iter().enumerate() {
            all.push((ts, li, i, lane.id.clone(), k));
        }
    }
    // A lane's times never go back, so sorting by (time, lane, index) keeps each lane in order.
    all.sort_by_key(|(ts, li, i, _, _)| (*ts, *li, *i));
    all.into_iter()
        .enumerate()
        .map(|(n, (ts, _, _, agent_id, kind))| AgentEvent {
            agent_id,
            session_id: session.clone(),
            seq: n as u64 + 1,
            ts,
            kind,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, rows: &[Value]) -> File {
        File { name: name.into(), text: rows.iter().map(|r| format!("{r}\n")).collect() }
    }

    fn assistant(id: &str, ts: &str, block: Value, stop: &str) -> Value {
        serde_json::json!({"type": "assistant", "timestamp": ts, "cwd": "/w",
            "message": {"id": id, "model": "claude-x", "stop_reason": stop, "content": [block],
                        "usage": {"input_tokens": 100, "output_tokens": 10}}})
    }

    #[test]
    fn a_response_split_by_other_rows_counts_once_and_rows_without_a_time_take_a_neighbours() {
        let rows = [
            serde_json::json!({"type": "summary", "summary": "a title", "leafUuid": "x"}),
            serde_json::json!({"type": "user", "timestamp": "2026-11-24T03:00:00.000Z", "cwd": "/w", "message": {"content": "go"}}),
            assistant(
                "m1",
                "2026-11-24T03:00:01.000Z",
                serde_json::json!({"type": "text", "text": "Working."}),
                "tool_use",
            ),
            serde_json::json!({"type": "tools-used", "tools": []}),
            assistant(
                "m1",
                "2026-11-24T03:00:01.100Z",
                serde_json::json!({"type": "tool_use", "id": "t1", "name": "Read", "input": {}}),
                "tool_use",
            ),
            serde_json::json!({"type": "user", "timestamp": "2026-11-24T03:00:02.000Z", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}}),
            assistant(
                "m2",
                "2026-11-24T03:00:03.000Z",
                serde_json::json!({"type": "text", "text": "Done."}),
                "end_turn",
            ),
        ];
        let c = convert("11112222-0000-0000-0000-000000000000", &file("s.jsonl", &rows), &[]);
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert_eq!(c.started_at, 1_795_489_200_000, "the first time in the file, not 1970");
        let usages = c.events.iter().filter(|e| matches!(e.kind, EventKind::Usage(_))).count();
        assert_eq!(usages, 2, "m1 once though its rows were apart, and m2");
        let summary = c.events.iter().find(|e| matches!(&e.kind, EventKind::ImportedEntry(x) if x.kind == "summary"));
        assert_eq!(summary.map(|e| e.ts), Some(1_795_489_200_000));
        assert!(
            arbor_testkit::violations(&c.events, true).is_empty(),
            "{:?}",
            arbor_testkit::violations(&c.events, true)
        );
    }

    #[test]
    fn a_subagent_started_by_a_subagent_sits_under_it() {
        let at = |s: u32| format!("2026-11-24T03:00:{s:02}.000Z");
        let main = [
            serde_json::json!({"type": "user", "timestamp": at(0), "cwd": "/w", "message": {"content": "go"}}),
            assistant(
                "m1",
                &at(1),
                serde_json::json!({"type": "tool_use", "id": "call-a", "name": "Agent", "input": {"description": "A"}}),
                "tool_use",
            ),
            serde_json::json!({"type": "user", "timestamp": at(9), "message": {"content": [{"type": "tool_result", "tool_use_id": "call-a", "content": "a done"}]}}),
            assistant("m2", &at(10), serde_json::json!({"type": "text", "text": "All done."}), "end_turn"),
        ];
        let a = [
            serde_json::json!({"type": "user", "timestamp": at(2), "message": {"content": "A: go"}}),
            assistant(
                "a1",
                &at(3),
                serde_json::json!({"type": "tool_use", "id": "call-b", "name": "Agent", "input": {"description": "B"}}),
                "tool_use",
            ),
            serde_json::json!({"type": "user", "timestamp": at(7), "message": {"content": [{"type": "tool_result", "tool_use_id": "call-b", "content": "b done"}]}}),
            assistant("a2", &at(8), serde_json::json!({"type": "text", "text": "a done"}), "end_turn"),
        ];
        let b = [
            serde_json::json!({"type": "user", "timestamp": at(4), "message": {"content": "B: go"}}),
            assistant("b1", &at(5), serde_json::json!({"type": "text", "text": "b done"}), "end_turn"),
        ];
        let meta = |call: &str, depth: u32, d: &str| {
            File {
            name: "m.json".into(),
            text: serde_json::json!({"agentType": "general-purpose", "description": d, "toolUseId": call, "spawnDepth": depth}).to_string(),
        }
        };
        let subs = [
            SubagentFiles {
                id: "a1111111111111111".into(),
                rows: file("a.jsonl", &a),
                meta: Some(meta("call-a", 1, "A")),
            },
            SubagentFiles {
                id: "a2222222222222222".into(),
                rows: file("b.jsonl", &b),
                meta: Some(meta("call-b", 2, "B")),
            },
        ];
        let c = convert("33334444-0000-0000-0000-000000000000", &file("s.jsonl", &main), &subs);
        let started: Vec<(AgentId, AgentStarted)> = c
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::AgentStarted(s) => Some((e.agent_id.clone(), s.clone())),
                _ => None,
            })
            .collect();
        let of = |d: &str| started.iter().find(|(_, s)| s.description == d).unwrap().clone();
        let (a_id, _) = of("A");
        let (_, b) = of("B");
        assert_eq!((b.parent_id.as_ref(), b.parent_call_id.as_deref(), b.depth), (Some(&a_id), Some("call-b"), 2));
        assert!(
            arbor_testkit::violations(&c.events, true).is_empty(),
            "{:?}",
            arbor_testkit::violations(&c.events, true)
        );
    }
}
