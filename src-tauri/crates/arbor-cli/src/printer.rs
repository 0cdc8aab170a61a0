//! Renders the event stream: one JSON event per line (`--json`), or a readable
//! live view with the agent id on every line. Colours come from anstream, which
//! drops them when stdout is not a terminal or NO_COLOR is set.

use anstyle::{AnsiColor, Style};
use arbor_protocol::{
    AgentEvent, AgentId, AgentStatus, ApprovalOutcome, ApprovalRule, DecidedBy, EventKind, McpState, WorktreeState,
};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;

const DIM: Style = Style::new().dimmed();
const BOLD: Style = Style::new().bold();
const TOOL: Style = AnsiColor::Cyan.on_default();
const OK: Style = AnsiColor::Green.on_default();
const ERR: Style = AnsiColor::Red.on_default();
const ASK: Style = AnsiColor::Yellow.on_default().bold();

/// Which streamed line is open, so chunks of different agents do not run together.
#[derive(PartialEq, Clone)]
enum Open {
    Response(AgentId),
    Thoughts(AgentId),
    Output(AgentId, String),
}

pub struct Printer {
    json: bool,
    out: anstream::AutoStream<std::io::Stdout>,
    open: Option<Open>,
    /// The open stream ended with a newline: the next piece starts with the prefix.
    at_line_start: bool,
    /// Subagents: their thinking is hidden (their parents never see it either), and
    /// their streams are printed by whole lines so parallel children do not interleave mid-word.
    subagents: Vec<AgentId>,
    /// A subagent's streamed tool output not yet ended by a newline, per call.
    partial: HashMap<String, String>,
    /// Line prefixes: the id, and for a subagent its description, indented by depth.
    labels: HashMap<AgentId, String>,
    /// When each subagent was queued, to say how long it waited for a slot.
    queued_at: HashMap<AgentId, i64>,
    /// Each call's tool, by agent and call id (models number their calls per conversation).
    tool_names: HashMap<(AgentId, String), String>,
    /// Every agent's description, to name the agent a rule's answer was given to.
    descriptions: HashMap<AgentId, String>,
    /// Every agent as its events left it (how full its context is, for its last line).
    states: arbor_protocol::AgentStates,
    /// The highest of [`CONTEXT_STEPS`] each agent's context was last said to have passed.
    context_said: HashMap<AgentId, u64>,
}

/// How full an agent's context gets before the live view says so, once per step
/// (and again after a compaction brings it below).
const CONTEXT_STEPS: [u64; 3] = [50, 70, 90];

impl Printer {
    pub fn new(json: bool) -> Self {
        Self {
            json,
            out: anstream::AutoStream::auto(std::io::stdout()),
            open: None,
            at_line_start: false,
            subagents: Vec::new(),
            partial: HashMap::new(),
            labels: HashMap::new(),
            queued_at: HashMap::new(),
            tool_names: HashMap::new(),
            descriptions: HashMap::new(),
            states: arbor_protocol::AgentStates::default(),
            context_said: HashMap::new(),
        }
    }

    /// The highest step an agent's context has reached, with its figure ("context 52k of 100k (52%)").
    fn context_step(&self, id: &AgentId) -> (u64, Option<String>) {
        let Some(a) = self.states.get(id) else { return (0, None) };
        let Some(percent) = a.context_percent() else { return (0, None) };
        let step = CONTEXT_STEPS.iter().rev().find(|&&s| percent >= s).copied().unwrap_or(0);
        (step, a.context_figure())
    }

    /// Prints a line that is not an event (banners, notes) in the human view.
    pub fn note(&mut self, text: &str) {
        if self.json {
            return;
        }
        self.close_line();
        let _ = writeln!(self.out, "{DIM}{text}{DIM:#}");
        let _ = self.out.flush();
    }

    pub fn print(&mut self, ev: &AgentEvent) {
        if self.json {
            if let Ok(line) = serde_json::to_string(ev) {
                let _ = writeln!(self.out, "{line}");
                let _ = self.out.flush();
            }
            return;
        }
        self.render(ev);
        let _ = self.out.flush();
    }

    fn render(&mut self, ev: &AgentEvent) {
        self.states.apply(ev);
        let id = &ev.agent_id;
        match &ev.kind {
            EventKind::AgentStarted(s) => {
                self.descriptions.insert(id.clone(), s.description.clone());
                let indent = "  ".repeat(s.depth as usize);
                let label = match &s.parent_id {
                    None => format!("{DIM}[{id}]{DIM:#} "),
                    Some(_) => {
                        self.subagents.push(id.clone());
                        format!("{indent}{DIM}[{id} {}]{DIM:#} ", one_line(&s.description, 32))
                    }
                };
                self.labels.insert(id.clone(), label);
                let kind = match (&s.fork, s.subagent_type.as_deref()) {
                    (Some(f), _) => format!(" (fork of its parent's {} messages)", f.messages),
                    (None, Some(t)) => format!(" ({t})"),
                    (None, None) => String::new(),
                };
                let bg = if s.background && s.parent_id.is_some() { " · background" } else { "" };
                let parent = s.parent_id.as_ref().map(|p| format!(" · under {p}")).unwrap_or_default();
                self.line(
                    id,
                    &format!(
                        "{BOLD}▶ {}{kind}{BOLD:#} {DIM}· {} via {}{parent}{bg}{DIM:#}",
                        s.description, s.model, s.provider
                    ),
                );
            }
            EventKind::AgentStatus(s) if s.status == AgentStatus::Queued => {
                self.queued_at.insert(id.clone(), ev.ts);
            }
            EventKind::AgentStatus(s) if s.status == AgentStatus::Running => {
                // Only a wait someone would notice is worth a line.
                if let Some(q) = self.queued_at.remove(id)
                    && ev.ts - q >= 200
                {
                    let waited = (ev.ts - q) as f64 / 1000.0;
                    self.line(id, &format!("{DIM}started after {waited:.1}s in the queue{DIM:#}"));
                }
            }
            EventKind::ResponseChunk(t) if !self.subagents.contains(id) => {
                self.stream(Open::Response(id.clone()), &t.content, Style::new())
            }
            EventKind::Response(t) if self.subagents.contains(id) => self.line(id, &t.content),
            EventKind::ThoughtsChunk(t) if !self.subagents.contains(id) => {
                if self.open != Some(Open::Thoughts(id.clone())) {
                    self.stream(Open::Thoughts(id.clone()), "(thinking) ", DIM);
                }
                self.stream(Open::Thoughts(id.clone()), &t.content, DIM.italic())
            }
            EventKind::ToolCall(c) => {
                self.tool_names.insert((id.clone(), c.call_id.clone()), c.tool_name.clone());
                let summary = summarize_args(&c.tool_name, &c.tool_args);
                self.line(id, &format!("{TOOL}⚙ {}{TOOL:#} {summary}", c.tool_name));
            }
            EventKind::ToolOutputChunk(c) if self.subagents.contains(id) => {
                let buf = self.partial.entry(c.call_id.clone()).or_default();
                buf.push_str(&c.content);
                if let Some(end) = buf.rfind('\n') {
                    let done: String = buf.drain(..=end).collect();
                    for l in done.lines() {
                        self.line(id, &format!("{DIM}{l}{DIM:#}"));
                    }
                }
            }
            EventKind::ToolOutputChunk(c) => self.stream(Open::Output(id.clone(), c.call_id.clone()), &c.content, DIM),
            EventKind::ToolOutput(o) => {
                if let Some(rest) = self.partial.remove(&o.call_id).filter(|r| !r.is_empty()) {
                    self.line(id, &format!("{DIM}{rest}{DIM:#}"));
                }
                let name = self.tool_names.get(&(id.clone(), o.call_id.clone())).cloned().unwrap_or_default();
                let (mark, style) = if o.is_error { ("✗", ERR) } else { ("✓", OK) };
                let streamed = self.tool_streamed(id, &o.call_id);
                let body = match (streamed, o.is_error, name.as_str()) {
                    // The output itself was streamed above; only its verdict is new.
                    (true, true, _) => last_line(&o.content),
                    (true, false, _) => String::new(),
                    (false, false, "Read") => {
                        format!("{DIM}{} lines{DIM:#}", o.content.lines().filter(|l| l.contains('\t')).count())
                    }
                    (false, _, _) => first_lines(&o.content, 4),
                };
                let mut line = format!("{style}{mark} {name}{style:#} {body}");
                match &o.decided_by {
                    Some(DecidedBy::Rule { rule }) => {
                        line = format!("{} {DIM}· by rule: {}{DIM:#}", line.trim_end(), self.rule_origin(rule));
                    }
                    Some(DecidedBy::Hook { hook_event, .. }) => {
                        line = format!("{} {DIM}· by a {} hook{DIM:#}", line.trim_end(), hook_event.as_str());
                    }
                    Some(DecidedBy::Setting { rule, .. }) => {
                        line = format!("{} {DIM}· by the settings rule {rule}{DIM:#}", line.trim_end());
                    }
                    _ => {}
                }
                self.line(id, line.trim_end());
            }
            EventKind::ApprovalRequest(r) => {
                let summary = summarize_args(&r.tool_name, &r.tool_args);
                self.line(
                    id,
                    &format!(
                        "{ASK}? approval needed{ASK:#} for {} ({}): {} {summary}",
                        r.agent_path.join(" › "),
                        id,
                        r.tool_name
                    ),
                );
                for l in r.preview.as_ref().map(crate::preview::lines).unwrap_or_default() {
                    let style = match l.chars().next() {
                        Some('+') => OK,
                        Some('-') => ERR,
                        _ => DIM,
                    };
                    self.line(id, &format!("  {DIM}┆{DIM:#} {style}{l}{style:#}"));
                }
            }
            EventKind::ApprovalStale(s) => {
                self.line(id, &format!("{ASK}! {}{ASK:#} {DIM}(approval {}){DIM:#}", s.message, s.request_id));
            }
            EventKind::ApprovalResolved(r) => {
                let verdict = match r.outcome {
                    ApprovalOutcome::Approved => format!("{OK}approved{OK:#}"),
                    ApprovalOutcome::Denied => format!("{ERR}denied{ERR:#}"),
                    ApprovalOutcome::Withdrawn => format!("{DIM}withdrawn (the agent stopped){DIM:#}"),
                };
                let by = match &r.decided_by {
                    Some(DecidedBy::Rule { rule }) => format!(" by rule: {}", self.rule_origin(rule)),
                    Some(DecidedBy::Person) => " by you".to_string(),
                    _ => String::new(),
                };
                let reason = r.reason.as_deref().map(|t| format!(": “{}”", one_line(t, 200))).unwrap_or_default();
                let set = match &r.rule {
                    Some(rule) => format!(
                        " {DIM}· now a rule ({}), revoke with {{\"type\":\"revoke\",\"rule_id\":\"{}\"}}{DIM:#}",
                        self.reach(rule),
                        rule.rule_id
                    ),
                    None => String::new(),
                };
                let edited = if r.edit.is_some() { " (edited)" } else { "" };
                self.line(id, &format!("{DIM}approval {}{DIM:#} {verdict}{edited}{by}{reason}{set}", r.request_id));
            }
            EventKind::FileChanged(c) => {
                let mut line = format!(
                    "{DIM}✎ {} {} +{} −{}",
                    c.kind.as_str(),
                    crate::preview::visible(&c.path),
                    c.lines_added,
                    c.lines_removed
                );
                if c.is_ambiguous() {
                    let with: Vec<&str> = c.ambiguous_with.iter().map(|a| a.as_str()).collect();
                    line.push_str(&format!(" · ambiguous: {} ran commands here too", with.join(", ")));
                }
                if !c.revert_of.is_empty() {
                    line.push_str(" · reverted");
                }
                self.line(id, &format!("{line}{DIM:#}"));
            }
            EventKind::Worktree(w) => {
                let (added, removed) =
                    w.files.iter().fold((0, 0), |(a, r), f| (a + f.lines_added, r + f.lines_removed));
                let files =
                    format!("{} file{} +{added} −{removed}", w.files.len(), if w.files.len() == 1 { "" } else { "s" });
                let text = match w.state {
                    WorktreeState::Created => format!("works in its own worktree {} (branch {})", w.path, w.branch),
                    WorktreeState::Ready => format!(
                        "{ASK}worktree kept{ASK:#}: branch {} ({files}); merge it with `arbor worktrees merge {id}` or discard it with `arbor worktrees discard {id}`",
                        w.branch
                    ),
                    WorktreeState::Removed => "no changes: its worktree and branch were removed".to_string(),
                    WorktreeState::Merged => format!("branch {} merged into {} ({files})", w.branch, w.parent_root),
                    WorktreeState::Conflicted => {
                        let paths: Vec<&str> = w.conflicts.iter().map(|c| c.path.as_str()).collect();
                        format!("{ERR}merge refused{ERR:#}, nothing applied: conflicts in {}", paths.join(", "))
                    }
                    WorktreeState::Kept => format!("branch {} kept; worktree removed", w.branch),
                    WorktreeState::Discarded => format!("branch {} discarded", w.branch),
                };
                self.line(id, &format!("⎇ {text}"));
            }
            EventKind::BudgetSet(b) => {
                let carved = if b.carved.is_empty() { "" } else { " (cut to what the budgets above it had left)" };
                let text =
                    format!("budget {} · from {}{carved}", b.budget.describe(), b.origin.as_str().replace('_', " "));
                self.line(id, &format!("{DIM}{text}{DIM:#}"));
            }
            EventKind::BudgetWarning(w) if w.standing.exhausted.is_some() => {
                let text = format!("{ERR}budget ran out{ERR:#}: {} (its subtree stops)", w.standing.figures(w.kind));
                self.line(id, &text);
            }
            EventKind::BudgetWarning(w) => {
                let text = format!(
                    "{ASK}budget {:.0}% used{ASK:#}: {} (its agents are told to wrap up)",
                    w.standing.fraction * 100.0,
                    w.standing.figures(w.kind)
                );
                self.line(id, &text);
            }
            EventKind::HookRan(h) => {
                let style = match h.decision {
                    arbor_protocol::HookDecision::Deny
                    | arbor_protocol::HookDecision::Block
                    | arbor_protocol::HookDecision::Stop
                    | arbor_protocol::HookDecision::Failed
                    | arbor_protocol::HookDecision::TimedOut => ERR,
                    _ => DIM,
                };
                self.line(id, &format!("{style}↪ {}{style:#}", one_line(&h.describe(), 300)));
            }
            EventKind::Plan(p) => {
                let (done, all) = p.progress();
                self.line(id, &format!("{DIM}☰ plan, {done} of {all} done{DIM:#}"));
                for e in &p.entries {
                    self.line(id, &format!("{DIM}  {} {}{DIM:#}", e.status.mark(), one_line(&e.content, 200)));
                }
            }
            EventKind::ContextCompacted(c) => {
                self.line(id, &format!("{ASK}⋯ context compacted{ASK:#} {DIM}{}{DIM:#}", c.describe()));
                let (step, _) = self.context_step(id);
                self.context_said.insert(id.clone(), step);
            }
            EventKind::Usage(_) => {
                let (step, figure) = self.context_step(id);
                let said = self.context_said.get(id).copied().unwrap_or(0);
                if step > said
                    && let Some(figure) = figure
                {
                    self.context_said.insert(id.clone(), step);
                    self.line(id, &format!("{DIM}⋯ {figure}{DIM:#}"));
                }
            }
            EventKind::RuleRevoked(r) => {
                self.line(id, &format!("{DIM}rule {} revoked: the calls it covered ask again{DIM:#}", r.rule_id));
            }
            EventKind::AgentStatus(s) if s.status == AgentStatus::WaitingApproval => {}
            EventKind::AgentFinished(f) => {
                let (mark, style) = match f.status {
                    AgentStatus::Completed => ("■", OK),
                    _ => ("■", ERR),
                };
                let mut text = format!(
                    "{style}{mark} {}{style:#} {DIM}· {} turn{} · {:.1}s",
                    f.status.as_str(),
                    f.turns,
                    if f.turns == 1 { "" } else { "s" },
                    f.duration_ms as f64 / 1000.0
                );
                if let Some(context) = self.states.get(id).and_then(|a| a.context_figure()) {
                    text.push_str(&format!(" · {context}"));
                }
                if !f.files_modified.is_empty() {
                    text.push_str(&format!(" · modified {}", f.files_modified.join(", ")));
                }
                text.push_str(&format!("{DIM:#}"));
                if let Some(e) = &f.error {
                    text.push_str(&format!("\n{ERR}{e}{ERR:#}"));
                }
                self.line(id, &text);
            }
            EventKind::McpStatus(s) => match s.state {
                McpState::Connected => {
                    let pid = s.pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
                    self.line(id, &format!("{DIM}mcp {} started{pid}{DIM:#}", s.server));
                }
                McpState::Failed => {
                    let why = s.error.as_deref().unwrap_or("no detail");
                    self.line(id, &format!("{ERR}mcp {} failed: {why}{ERR:#}", s.server));
                }
                McpState::Closed => {}
            },
            EventKind::TaskNotification(n) => {
                self.line(id, &format!("{DIM}⤶ result of {}: {}{DIM:#}", n.task_id, one_line(&n.summary, 140)));
            }
            // Complete texts repeat what was streamed; statuses show in the lines above.
            _ => {}
        }
    }

    /// The description of the agent whose answer set `rule` (its id when unknown).
    fn answerer<'a>(&'a self, rule: &'a ApprovalRule) -> &'a str {
        self.descriptions.get(&rule.agent_id).map_or(rule.agent_id.0.as_str(), String::as_str)
    }

    /// "Write anywhere in this session".
    fn reach(&self, rule: &ApprovalRule) -> String {
        rule.reach(self.answerer(rule))
    }

    /// Which rule, set when, by whose answer: "Write anywhere in this session, set 14:03:12 by your answer to “main”".
    fn rule_origin(&self, rule: &ApprovalRule) -> String {
        let verb = if rule.approved { "" } else { "deny " };
        let at = arbor_protocol::time::second(rule.created_at);
        format!("{verb}{}, set {at} by your answer to “{}”", self.reach(rule), self.answerer(rule))
    }

    fn tool_streamed(&self, id: &AgentId, call_id: &str) -> bool {
        self.open == Some(Open::Output(id.clone(), call_id.to_string()))
            || self.tool_names.get(&(id.clone(), call_id.to_string())).is_some_and(|n| n == "Bash")
    }

    fn prefix(&self, id: &AgentId) -> String {
        self.labels.get(id).cloned().unwrap_or_else(|| format!("{DIM}[{id}]{DIM:#} "))
    }

    fn close_line(&mut self) {
        if self.open.take().is_some() && !self.at_line_start {
            let _ = writeln!(self.out);
        }
        self.at_line_start = false;
    }

    fn line(&mut self, id: &AgentId, text: &str) {
        self.close_line();
        let prefix = self.prefix(id);
        for l in text.lines() {
            let _ = writeln!(self.out, "{prefix}{l}");
        }
    }

    fn stream(&mut self, kind: Open, chunk: &str, style: Style) {
        let id = match &kind {
            Open::Response(id) | Open::Thoughts(id) | Open::Output(id, _) => id.clone(),
        };
        if self.open.as_ref() != Some(&kind) {
            self.close_line();
            self.open = Some(kind);
            self.at_line_start = true;
        }
        let prefix = self.prefix(&id);
        for piece in chunk.split_inclusive('\n') {
            if self.at_line_start {
                let _ = write!(self.out, "{prefix}");
            }
            let text = piece.strip_suffix('\n');
            let _ = write!(self.out, "{style}{}{style:#}", text.unwrap_or(piece));
            if text.is_some() {
                let _ = writeln!(self.out);
            }
            self.at_line_start = text.is_some();
        }
    }

    /// Ends an open streamed line before the program exits.
    pub fn finish(&mut self) {
        self.close_line();
        let _ = self.out.flush();
    }
}

/// The argument a person wants to see for a tool call.
pub fn summarize_args(tool: &str, args: &Value) -> String {
    let s = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
    let text = match tool {
        "Read" | "Write" | "Edit" => s("file_path"),
        "Glob" | "Grep" => s("pattern").map(|p| match s("path") {
            Some(path) => format!("{p} in {path}"),
            None => p,
        }),
        "Bash" => s("command"),
        "Task" => s("description").or_else(|| s("prompt")).map(|d| {
            let fork = args.get("fork").and_then(Value::as_bool) == Some(true);
            let kind = if fork {
                "fork".to_string()
            } else {
                s("subagent_type").unwrap_or_else(|| "general-purpose".to_string())
            };
            let bg =
                if args.get("run_in_background").and_then(Value::as_bool) == Some(true) { ", background" } else { "" };
            format!("{d} ({kind}{bg})")
        }),
        "TaskOutput" | "TaskStop" => s("task_id"),
        _ => None,
    }
    .unwrap_or_else(|| args.to_string());
    crate::preview::visible(&one_line(&text, 120))
}

fn one_line(s: &str, max: usize) -> String {
    let first = s.lines().next().unwrap_or_default();
    let more = s.lines().nth(1).is_some();
    match first.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &first[..i]),
        None if more => format!("{first} …"),
        None => first.to_string(),
    }
}

fn first_lines(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let mut out: Vec<String> = lines.iter().take(n).map(|l| one_line(l, 160)).collect();
    if lines.len() > n {
        out.push(format!("{DIM}… {} more lines{DIM:#}", lines.len() - n));
    }
    out.join("\n  ")
}

fn last_line(s: &str) -> String {
    one_line(s.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or_default(), 160)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::{AgentStarted, ApprovalScope, SessionId};

    #[test]
    fn a_rule_is_named_with_its_reach_its_time_and_whose_answer_set_it() {
        let mut p = Printer::new(true);
        let id = AgentId("agent-0001".into());
        p.render(&AgentEvent {
            agent_id: id.clone(),
            session_id: SessionId("s".into()),
            seq: 1,
            ts: 0,
            kind: EventKind::AgentStarted(AgentStarted {
                parent_id: None,
                parent_call_id: None,
                depth: 0,
                description: "main".into(),
                subagent_type: None,
                model: "m".into(),
                provider: "p".into(),
                background: false,
                call_seq: None,
                fork: None,
                external: None,
            }),
        });
        let rule = ApprovalRule {
            rule_id: "rule-1".into(),
            tool: "Write".into(),
            scope: ApprovalScope::Subtree,
            agent_id: id,
            approved: true,
            request_id: "approval-1".into(),
            created_at: 1_700_000_000_000,
        };
        let at = arbor_protocol::time::second(rule.created_at);
        assert_eq!(
            p.rule_origin(&rule),
            format!("Write for “main” and all its subagents, set {at} by your answer to “main”")
        );
        let deny = ApprovalRule { approved: false, scope: ApprovalScope::Session, ..rule };
        assert_eq!(
            p.rule_origin(&deny),
            format!("deny Write anywhere in this session, set {at} by your answer to “main”")
        );
    }
}
